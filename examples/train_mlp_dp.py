"""Data-parallel training that runs unchanged alone or under `mpirun -n N`:

    python -m refimpl run examples/train_mlp_dp.py
    mpirun -n 2 python -m refimpl run examples/train_mlp_dp.py

Every rank builds the same program, takes its shard of each global batch and trains with
with_data_parallel; gradients are averaged over all ranks, so the parameters match the
single-process run on the whole batch. Optional argument: a .npz path where rank 0 saves
the final parameters.
"""
import sys

import numpy as np
import paddle
import paddle.static as static

paddle.enable_static()
rank, world = paddle.distributed.get_rank(), paddle.distributed.get_world_size()

x = static.data("x", [None, 8], "float32")
y = static.data("y", [None, 1], "int64")
init = paddle.nn.initializer.Uniform(-0.3, 0.3, seed=1)
h = static.nn.fc(x, 16, activation="relu", weight_attr=paddle.ParamAttr(initializer=init))
logits = static.nn.fc(h, 3, weight_attr=paddle.ParamAttr(initializer=init))
loss = paddle.nn.functional.cross_entropy(logits, y)
paddle.optimizer.Momentum(learning_rate=0.1, momentum=0.9).minimize(loss)

exe = static.Executor(paddle.CPUPlace())
exe.run(static.default_startup_program())
train = static.CompiledProgram(static.default_main_program()).with_data_parallel(
    loss_name=loss.name, places=[paddle.CPUPlace()])

rng = np.random.RandomState(0)
global_batch = 12
for step in range(20):
    xs = rng.randn(global_batch, 8).astype("float32")
    ys = (xs[:, :3].argmax(1)[:, None]).astype("int64")
    b = global_batch // world
    shard = slice(rank * b, (rank + 1) * b)
    losses, = exe.run(train, feed={"x": xs[shard], "y": ys[shard]}, fetch_list=[loss])
    if rank == 0 and step % 5 == 0:
        print("step %d loss %.4f" % (step, float(losses.mean())))

if rank == 0 and len(sys.argv) > 1:
    scope = static.global_scope()
    np.savez(sys.argv[1], **{p.name: np.array(scope.find_var(p.name).get_tensor())
                             for p in static.default_main_program().all_parameters()})
print("rank %d of %d done" % (rank, world))
