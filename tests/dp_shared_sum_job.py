"""Run under `mpirun -n N python -m refimpl run` by tests/test_distributed_mpi.py: the
gradients DataParallel's sum through shared memory (refimpl/parallel/node_sum.py, the one
used when every rank runs on one machine) leaves in .grad. On every rank, after each
backward: every .grad is the gradient of the mean loss over the global batch (one process
computing it alone), in the same bits on every rank; a gradient kept from one step keeps its
values through the next; two DataParallel models whose steps take turns, the second larger
than the shared memory made for the first (so it is replaced while the first still uses
it), are both right. Pieces of a few parameters, so that most pieces do not split evenly
over the ranks.
"""
import numpy as np
import paddle
import paddle.distributed as dist
import paddle.nn as nn

from refimpl.distributed import reducer
from refimpl.parallel import node_sum

dist.init_parallel_env()
paddle.set_default_dtype("float64")
RANK, WORLD = dist.get_rank(), dist.get_world_size()
BATCH = 3 * WORLD
reducer.PIECE_BYTES = 300


def net(width):
    paddle.seed(width)
    return nn.Sequential(nn.Conv2D(2, width, 3, padding=1), nn.ReLU(), nn.Flatten(),
                         nn.Linear(width * 16, 5))


def batch(seed):
    rng = np.random.RandomState(seed)
    return rng.randn(BATCH, 2, 4, 4), rng.randint(0, 5, (BATCH, 1)).astype("int64")


def loss_of(model, x, y):
    return nn.functional.cross_entropy(model(paddle.to_tensor(x)), paddle.to_tensor(y))


class Pair:
    """A DataParallel model and the same model alone on the global batch."""

    def __init__(self, width):
        self.dp = paddle.DataParallel(net(width))
        assert isinstance(self.dp._reducer._sum, node_sum.SharedBucketSum)
        self.alone = net(width)
        self.dp_opt = paddle.optimizer.Momentum(0.1, 0.9, parameters=self.dp.parameters())
        self.opt = paddle.optimizer.Momentum(0.1, 0.9, parameters=self.alone.parameters())

    def backward(self, seed):
        """Both backwards on batch `seed` (this rank's rows for the DataParallel); checks
        the gradients; returns the DataParallel's."""
        x, y = batch(seed)
        rows = slice(RANK * 3, RANK * 3 + 3)
        loss_of(self.dp, x[rows], y[rows]).backward()
        loss_of(self.alone, x, y).backward()
        grads = [p.gradient() for p in self.dp.parameters()]
        for (name, p), q in zip(self.dp.named_parameters(), self.alone.parameters()):
            np.testing.assert_allclose(p.gradient(), q.gradient(), rtol=1e-12,
                                       atol=1e-14, err_msg="%s, rank %d" % (name, RANK))
        mine = np.concatenate([g.ravel() for g in grads])
        every = []
        dist.all_gather(every, paddle.to_tensor(mine))
        for q, theirs in enumerate(every):
            assert np.array_equal(theirs.numpy(), mine), "rank %d's sums differ from %d's" \
                % (q, RANK)
        return grads

    def step(self):
        for opt in (self.dp_opt, self.opt):
            opt.step()
            opt.clear_grad()


small = Pair(3)
kept = small.backward(0)
first = [g.copy() for g in kept]
small.step()
small.backward(1)
for g, values in zip(kept, first):     # the kept gradients are not the new ones
    assert np.array_equal(g, values)
small.step()
large = Pair(8)           # more than the shared memory made for `small`: replaced
for seed in range(2, 5):
    large.backward(seed)
    large.step()
    small.backward(seed)
    small.step()
print("rank %d of %d: shared sums right" % (RANK, WORLD))
