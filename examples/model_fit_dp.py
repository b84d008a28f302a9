"""paddle.Model.fit that runs unchanged alone or under `mpirun -n N`:

    python -m refimpl run examples/model_fit_dp.py static out.npz
    mpirun -n 2 python -m refimpl run examples/model_fit_dp.py static out.npz

Each rank trains on its share of every global batch of 12 (DistributedBatchSampler) with
the gradients averaged over the ranks, so the parameters match the single process's;
evaluation and prediction gather every rank's samples. Only rank 0 prints and saves. The
first argument is the mode ('static' or 'dynamic'), the second a .npz path where rank 0
writes the parameters, the accuracy and the predictions; an optional third is fit's
save_dir.
"""
import sys

import numpy as np
import paddle
from paddle.static import InputSpec

mode, out = sys.argv[1], sys.argv[2]
save_dir = sys.argv[3] if len(sys.argv) > 3 else None
if mode == "static":
    paddle.enable_static()
world = paddle.distributed.get_world_size()

rng = np.random.RandomState(0)
x = rng.randn(77, 8).astype("float32")
y = x[:, :3].argmax(1)[:, None].astype("int64")
train = paddle.io.TensorDataset([x[:48], y[:48]])
test = paddle.io.TensorDataset([x[48:], y[48:]])      # 29 samples: padded under mpirun

paddle.seed(1)
net = paddle.nn.Sequential(paddle.nn.Linear(8, 16), paddle.nn.ReLU(), paddle.nn.Linear(16, 3))
model = paddle.Model(net, [InputSpec([None, 8], "float32", "x")],
                     [InputSpec([None, 1], "int64", "y")])
model.prepare(paddle.optimizer.Momentum(0.1, 0.9, parameters=net.parameters()),
              paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy())
model.fit(train, batch_size=12 // world, epochs=3, log_freq=2, save_dir=save_dir)
result = model.evaluate(test, batch_size=5, verbose=0)
predictions, = model.predict(test, batch_size=5, stack_outputs=True, verbose=0)

if paddle.distributed.get_rank() == 0:
    if mode == "static":
        scope = paddle.static.global_scope()
        values = {p.name: np.array(scope.find_var(p.name).get_tensor())
                  for p in net.parameters()}
    else:
        values = {p.name: p.numpy() for p in net.parameters()}
    np.savez(out, acc=result["acc"], predictions=predictions,
             **{"param_%d" % i: v for i, v in enumerate(values.values())})
print("rank %d of %d done" % (paddle.distributed.get_rank(), world))
