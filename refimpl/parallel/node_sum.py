"""DataParallel's gradient sum for an mpirun job whose ranks all run on one machine: through
memory they share (an MPI shared-memory window) instead of MPI's allreduce
(specs/distributed.md#dataparallel).

Why: with one core a rank, MPI's allreduce of ResNet-18's 45 MB of gradients cost each
rank about 14 CPU ms a step beyond filling the buckets (copies into MPI's own shared
cells, out of them, the sums, the same again to spread the result). Here every rank fills
its buckets in its own part of the shared memory (the fill the reducer does anyway), sums
its share of every piece straight from the other ranks' parts (one pass) and copies the
other shares' sums from where their owners left them into its own buckets (one pass).

The protocol, per step t (every rank's part holds, besides the data, int64 counters):
a piece's elements are split into `size` consecutive shares, share q owned by rank q.
  - begin: wait until every other rank has released step t-1 (it no longer reads this
    rank's part), then the reducer fills this rank's part;
  - start(j): piece j of this rank's part is filled: its `filled[j] = t`;
  - progress / finish: for the started pieces in order, once every rank's `filled[j]` is
    t, the owner sums its share of piece j over the ranks (its own part first, then the
    others' in rank order) into its own part: `summed[j] = t`;
  - finish: every piece summed by its owner is copied, share by share, into the buckets
    the gradients view (a rank's private memory, so a gradient kept or changed after the
    step never touches what the others read), then `released = t`.
Every rank reads the same owner's sum, so all end with the same bits. Counters are written
after the data and read before it, with MPI_Win_sync (a memory barrier) between. Every
wait goes through the world's StallWatch (a rank that never comes raises StallError).

One arena (window) per world, shared by every DataParallel of the job (their steps take
turns; the step counter is the arena's); a layout larger than the arena's makes a larger
one, created and the old one freed at DataParallel's construction, which every rank makes
together.
"""
import numpy as np

__all__ = ["usable", "SharedBucketSum", "arena_for"]

ALIGN = 64      # each bucket's data starts on a cache line
FILLED, SUMMED = 0, 1      # counter rows; the released step follows them


def _aligned(n):
    return -(-n // ALIGN) * ALIGN


def usable(world):
    """Whether every rank of `world` (an MPIWorld) shares this machine's memory."""
    from mpi4py import MPI
    return world.node_comm().Get_size() == world.size and hasattr(MPI.Win, "Allocate_shared")


class _Arena:
    """Every rank's part of the shared window: counters (int64: per piece the step it was
    filled in, per piece the step its share was summed in, the last step released) and
    `data_bytes` of bucket data."""

    def __init__(self, node, n_pieces, data_bytes):
        from mpi4py import MPI
        self.n_pieces, self.data_bytes = n_pieces, data_bytes
        self.counter_bytes = _aligned(8 * (2 * n_pieces + 1))
        self.win = MPI.Win.Allocate_shared(self.counter_bytes + data_bytes, 1, comm=node)
        self.win.Lock_all(MPI.MODE_NOCHECK)
        self.parts = [np.frombuffer(self.win.Shared_query(q)[0], np.uint8)
                      for q in range(node.Get_size())]
        self.counters = [p[:8 * (2 * n_pieces + 1)].view(np.int64) for p in self.parts]
        self.step = 0

    def released(self, q):
        return int(self.counters[q][-1])


def arena_for(world, n_pieces, data_bytes):
    """The world's arena, first replaced by a larger one unless it holds `n_pieces` pieces
    and `data_bytes` of data (at DataParallel's construction: every rank calls this
    together)."""
    old = world.arena
    if old is not None and n_pieces <= old.n_pieces and data_bytes <= old.data_bytes:
        return old
    if old is not None:     # nobody may still read the old one
        for q in range(world.size):
            world.watch.poll(lambda q=q: old.released(q) >= old.step,
                             lambda q=q: "in DataParallel's construction (%s): waiting for "
                             "rank %d to release the shared gradient buckets"
                             % (world.backend, q))
        n_pieces, data_bytes = max(n_pieces, old.n_pieces), max(data_bytes, old.data_bytes)
    new = _Arena(world.node_comm(), n_pieces, data_bytes)
    if old is not None:
        new.step = old.step
        new.counters[world.rank][-1] = old.step    # the steps so far: released
        old.win.Unlock_all()
        old.win.Free()
    return new


class SharedBucketSum:
    """The reducer's bucket sum (World.bucket_sum's interface) through an _Arena; see the
    module doc. `sizes`: per bucket, (elements, dtype); `pieces`: (bucket, start, end) in
    the order the reducer starts them."""

    def __init__(self, world, sizes, pieces):
        self.world, self.sizes, self.pieces = world, sizes, pieces
        self.rank, self.size = world.rank, world.size
        self.offsets, at = [], 0
        for n, dtype in sizes:
            self.offsets.append(at)
            at += _aligned(n * np.dtype(dtype).itemsize)
        self.arena = None
        world.arena = arena_for(world, len(pieces), at)
        self.shares = [[lo + (hi - lo) * q // self.size for q in range(self.size + 1)]
                       for _, lo, hi in pieces]
        self._started = self._summed = 0
        self.step = None

    def _bind(self, arena):
        """Views of `arena` (the world's, which only grows, so every layout fits): per
        rank q, per bucket, its data in q's part."""
        self.arena = arena
        self.parts = [[part[arena.counter_bytes + off:][:n * np.dtype(dtype).itemsize]
                       .view(dtype) for off, (n, dtype) in zip(self.offsets, self.sizes)]
                      for part in arena.parts]

    # -- the reducer's interface (World.bucket_sum) -------------------------------------
    def begin(self, flats):
        """A step starts: the arrays the reducer fills (this rank's part), `flats` the
        buckets the averages go into."""
        if self.arena is not self.world.arena:
            self._bind(self.world.arena)
        arena = self.arena
        t = self.step = arena.step = arena.step + 1
        for q in self._others():
            self._wait(lambda q=q: arena.released(q) >= t - 1,
                       "rank %d to release step %d's buckets" % (q, t - 1))
        self.arena.win.Sync()
        self._flats = flats
        self._started = self._summed = 0
        return self.parts[self.rank]

    def start(self, j):
        """Piece j (the reducer's j-th start of this step) is filled."""
        self.arena.win.Sync()
        self.arena.counters[self.rank][FILLED * self.arena.n_pieces + j] = self.step
        self._started = j + 1

    def progress(self):
        """Sum this rank's share of every started piece that every rank has filled."""
        while self._summed < self._started and self._filled_everywhere(self._summed):
            self._sum(self._summed)

    def finish(self):
        """Wait for every piece's sums; the averages are in the `flats` given to begin."""
        n = self.arena.n_pieces
        while self._summed < len(self.pieces):
            j = self._summed
            self._wait(lambda: self._filled_everywhere(j),
                       "every rank to fill piece %d of step %d" % (j, self.step))
            self._sum(j)
        for j, (b, lo, hi) in enumerate(self.pieces):
            shares = self.shares[j]
            for q in range(self.size):
                if q != self.rank:
                    self._wait(lambda q=q: self.arena.counters[q][SUMMED * n + j] >= self.step,
                               "rank %d to sum its share of piece %d of step %d"
                               % (q, j, self.step))
                    self.arena.win.Sync()
                self._flats[b][shares[q]:shares[q + 1]] = \
                    self.parts[q][b][shares[q]:shares[q + 1]]
        self.abandon()

    def abandon(self):
        """This rank reads nothing more of this step (also when the step failed)."""
        self._flats = None
        self.arena.win.Sync()
        self.arena.counters[self.rank][-1] = self.step

    # -- helpers -------------------------------------------------------------------------
    def _others(self):
        return [q for q in range(self.size) if q != self.rank]

    def _filled_everywhere(self, j):
        at = FILLED * self.arena.n_pieces + j
        if all(c[at] >= self.step for c in self.arena.counters):
            self.arena.win.Sync()
            return True
        return False

    def _sum(self, j):
        b, lo, hi = self.pieces[j]
        a, e = self.shares[j][self.rank], self.shares[j][self.rank + 1]
        mine = self.parts[self.rank][b][a:e]
        for q in self._others():
            np.add(mine, self.parts[q][b][a:e], out=mine)
        self.arena.win.Sync()
        self.arena.counters[self.rank][SUMMED * self.arena.n_pieces + j] = self.step
        self._summed = j + 1

    def _wait(self, done, what):
        self.world.watch.poll(done, lambda: "in DataParallel's gradient sum through shared "
                              "memory (%s): waiting for %s" % (self.world.backend, what))
