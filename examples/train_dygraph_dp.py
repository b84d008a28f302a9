"""Data-parallel training in dynamic mode that runs unchanged alone or under `mpirun -n N`:

    python -m refimpl run examples/train_dygraph_dp.py
    mpirun -n 2 python -m refimpl run examples/train_dygraph_dp.py

Every rank builds the same model (DataParallel gives every rank rank 0's parameters),
reads its share of each global batch through a DistributedBatchSampler and averages the
gradients during backward, so the parameters match the single-process run on the whole
batch. The CNN's batch norm is a SyncBatchNorm, whose statistics cover the global batch.
Optional argument: a .npz path where rank 0 saves the final parameters.
"""
import sys

import numpy as np
import paddle
import paddle.distributed as dist
import paddle.nn as nn
from paddle.io import DataLoader, DistributedBatchSampler, TensorDataset

GLOBAL_BATCH = 12
dist.init_parallel_env()
rank, world = dist.get_rank(), dist.get_world_size()

paddle.seed(rank)     # different on every rank: DataParallel must give them rank 0's values
model = nn.Sequential(
    nn.Conv2D(1, 4, 3, padding=1), nn.SyncBatchNorm(4), nn.ReLU(), nn.MaxPool2D(2),
    nn.Flatten(), nn.Linear(4 * 4 * 4, 3))
model = paddle.DataParallel(model)
opt = paddle.optimizer.Momentum(learning_rate=0.1, momentum=0.9,
                                parameters=model.parameters())

rng = np.random.RandomState(0)
images = rng.randn(GLOBAL_BATCH * 10, 1, 8, 8).astype("float32")
labels = images.reshape(len(images), -1)[:, :3].argmax(1)[:, None].astype("int64")
dataset = TensorDataset([paddle.to_tensor(images), paddle.to_tensor(labels)])
sampler = DistributedBatchSampler(dataset, batch_size=GLOBAL_BATCH // world)
loader = DataLoader(dataset, batch_sampler=sampler)

for epoch in range(2):
    for step, (x, y) in enumerate(loader):
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        if rank == 0 and step % 5 == 0:
            print("epoch %d step %d loss %.4f" % (epoch, step, float(loss)))

if rank == 0 and len(sys.argv) > 1:
    np.savez(sys.argv[1], **{k: v.numpy() for k, v in model.state_dict().items()})
print("rank %d of %d done" % (rank, world))
