"""Run under `mpirun -n N python -m refimpl run` by tests/test_distributed_mpi.py: the
gradients DataParallel's sum through shared memory (refimpl/parallel/node_sum.py, the one
used when every rank runs on one machine) leaves in .grad. On every rank, after each
backward: every .grad is the gradient of the mean loss over the global batch (one process
computing it alone), in the same bits on every rank; gradients kept from step to step keep
their values (each step summing in an array nothing views: a free slot, else the private
buckets) and one rank changing its gradients after a step changes nobody else's; two
DataParallel models whose steps take turns, the second larger than the shared memory made
for the first (so it is replaced while the first's gradients still view it), are both
right; without room for the shared memory as one rank sees it, every rank sums by
allreduce. Pieces of a few parameters, so that most pieces do not split evenly over the
ranks.
"""
import numpy as np
import paddle
import paddle.distributed as dist
import paddle.nn as nn

from refimpl.distributed import reducer
from refimpl.parallel import node_sum
from refimpl.parallel.world import process_world

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

    def __init__(self, width, shared=True):
        self.dp = paddle.DataParallel(net(width))
        assert isinstance(self.dp._reducer._sum, node_sum.SharedBucketSum) == shared
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


def sum_array(pair):
    """Which of its arrays (node_sum) this rank's last step summed in."""
    return pair.dp._reducer._sum._index


small = Pair(3)
kept, values = [], []
for seed, index in enumerate([0, 1, node_sum.SCRATCH]):
    # the gradients of every step kept: each step sums in an array nothing views, the
    # private buckets once both slots are viewed
    kept.append(small.backward(seed))
    values.append([g.copy() for g in kept[-1]])
    assert sum_array(small) == index, (sum_array(small), index)
    small.step()
for grads, copies in zip(kept, values):       # the kept gradients keep their values
    for g, c in zip(grads, copies):
        assert np.array_equal(g, c)
del kept
grads = small.backward(3)                     # nothing viewed: the first slot again
assert sum_array(small) == 0
expected = [g.copy() for g in grads]
small.step()
if RANK == 0:      # a rank changing its gradients after the step changes nobody else's
    for g in grads:
        g[...] = -1
dist.barrier()
if RANK:
    for g, e in zip(grads, expected):
        assert np.array_equal(g, e)
# more than the shared memory made for `small`: replaced, while `grads` still views the
# old one (which stays mapped: retired)
large = Pair(8)
for seed in range(4, 7):
    large.backward(seed)
    large.step()
    small.backward(seed)
    small.step()
if RANK:
    for g, e in zip(grads, expected):
        assert np.array_equal(g, e)
assert len(process_world().retired_arenas) == 1
del grads
larger = Pair(12)       # replaces the arena again, now freeing it: nothing views it
assert len(process_world().retired_arenas) == 1
for seed in range(7, 9):
    for pair in (small, large, larger):
        pair.backward(seed)
        pair.step()
# too little room for a larger window as rank 0 sees it: every rank sums by allreduce
room = node_sum._shm_room
node_sum._shm_room = (lambda: 0) if RANK == 0 else room
roomless = Pair(16, shared=False)
node_sum._shm_room = room
for seed in range(9, 11):
    for pair in (roomless, small):
        pair.backward(seed)
        pair.step()
print("rank %d of %d: shared sums right" % (RANK, WORLD))
