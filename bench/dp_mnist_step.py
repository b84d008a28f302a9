"""One data-parallel MLP 784-512-512-10 training loop (global batch 256); rank 0 prints
samples/s as JSON. Used by bench_allreduce.py --throughput."""
import json
import time

import numpy as np
import paddle
import paddle.static as static

paddle.enable_static()
rank, world = paddle.distributed.get_rank(), paddle.distributed.get_world_size()
x = static.data("x", [None, 784], "float32")
y = static.data("y", [None, 1], "int64")
h = static.nn.fc(static.nn.fc(x, 512, activation="relu"), 512, activation="relu")
loss = paddle.nn.functional.cross_entropy(static.nn.fc(h, 10), y)
paddle.optimizer.SGD(0.01).minimize(loss)
exe = static.Executor()
exe.run(static.default_startup_program())
prog = static.CompiledProgram(static.default_main_program()).with_data_parallel(
    loss_name=loss.name, places=[paddle.CPUPlace()])
batch = 256 // world
rng = np.random.RandomState(rank)
feed = {"x": rng.randn(batch, 784).astype("float32"),
        "y": rng.randint(0, 10, (batch, 1)).astype("int64")}
for _ in range(3):
    exe.run(prog, feed=feed, fetch_list=[loss])
steps = 20
t0 = time.perf_counter()
for _ in range(steps):
    exe.run(prog, feed=feed, fetch_list=[loss])
elapsed = time.perf_counter() - t0
if rank == 0:
    print(json.dumps({"samples_per_s": steps * 256 / elapsed, "ms_per_step": 1e3 * elapsed / steps}))
