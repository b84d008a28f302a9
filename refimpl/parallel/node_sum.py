"""DataParallel's gradient sum for an mpirun job whose ranks all run on one machine: through
memory they share (an MPI shared-memory window) instead of MPI's allreduce
(specs/distributed.md#dataparallel).

Why: with one core a rank, MPI's allreduce of ResNet-18's 45 MB of gradients cost each
rank about 14 CPU ms a step beyond filling the buckets (copies into MPI's own shared
cells, out of them, the sums, the same again to spread the result). Here every rank fills
its buckets in its own part of the shared memory (the fill the reducer does anyway); the
owner of each share of a piece adds the ranks' gradients there and writes the sum into
every rank's buckets; the gradients then view the summed buckets where they lie.

Each rank's part holds SLOTS + 1 arrays of the buckets' layout. A step's gradients go into
one of them: a slot nothing views any more (the .grads of an earlier step hold views of
the slot they were summed in, and keep their values), else the last one, `SCRATCH`,
whose sums are copied into the reducer's private buckets (a user keeping the gradients
of several steps costs that copy, never a kept value).

The protocol, per step t (every rank's part holds, besides the data, int64 counters):
a piece's elements are split into `size` consecutive shares, share q owned by rank q.
  - begin: wait until every other rank has released step t-1 (it no longer reads or
    writes this rank's arrays), pick the array and publish its index; the reducer fills it;
  - start(j): piece j is filled: `filled[j] = t`;
  - progress / finish: for the started pieces in order, once every rank's `filled[j]` is
    t, the owner adds up its share of piece j (its own array first, then the others' in
    rank order) and writes the sum into every rank's array: `summed[j] = t`;
  - finish: once every owner has summed every piece, this rank's array holds the
    averages (SCRATCH: copied into the private buckets): `released = t`.
Every rank gets the owner's sum, so all end with the same bits. Counters are written after
the data and read before it, with MPI_Win_sync (a memory barrier) between. Every wait goes
through the world's StallWatch (a rank that never comes raises StallError).

One arena (window) per world, shared by every DataParallel of the job (their steps take
turns; the step counter is the arena's). A layout larger than the arena's makes a larger
one at DataParallel's construction, which every rank makes together; the old one is freed
then if no rank's gradients still view it, else kept until the job ends.
"""
import os
import sys

import numpy as np

__all__ = ["usable", "SharedBucketSum", "arena_for", "SLOTS", "SCRATCH"]

ALIGN = 64      # each bucket's data starts on a cache line
SLOTS = 2       # arrays a rank's gradients can stay in from step to step
SCRATCH = SLOTS  # the array used when every slot is still viewed (its sums copied out)
# counters: per piece, filled and summed steps; then the released step and the array
# index of the current step
FILLED, SUMMED = 0, 1


def _aligned(n):
    return -(-n // ALIGN) * ALIGN


def usable(world, sizes):
    """Whether every rank of `world` (an MPIWorld) shares this machine's memory, with room
    in it for buckets of `sizes` (every rank calls this together, and all decide alike).
    Room: a shared-memory file system smaller than the window (a container's default
    /dev/shm is 64 MB; ResNet-18 needs 270 MB for 2 ranks) would kill the ranks with
    SIGBUS when they touch it, so the window takes at most half of what is free there."""
    from mpi4py import MPI
    if not hasattr(MPI.Win, "Allocate_shared") or world.node_comm().Get_size() != world.size:
        return False
    data_bytes = _layout(sizes)[1]
    arena = world.arena
    if arena is not None and data_bytes <= arena.data_bytes:
        return True      # (a new arena for more pieces keeps this one's data size)
    fits = _shm_room() >= 2 * world.size * (SLOTS + 1) * data_bytes
    return bool(world.allreduce_array(np.array([fits], np.int32), "min")[0])


def _shm_room():
    """Bytes free where MPI maps shared memory (/dev/shm on Linux; elsewhere unknown,
    taken as enough)."""
    try:
        st = os.statvfs("/dev/shm")
    except OSError:
        return float("inf")
    return st.f_bavail * st.f_frsize


def _layout(sizes):
    """(each bucket's byte offset in an array, the array's bytes)."""
    offsets, at = [], 0
    for n, dtype in sizes:
        offsets.append(at)
        at += _aligned(n * np.dtype(dtype).itemsize)
    return offsets, at


class _Arena:
    """Every rank's part of the shared window: counters and SLOTS + 1 arrays of
    `data_bytes` each."""

    def __init__(self, node, rank, n_pieces, data_bytes):
        from mpi4py import MPI
        self.n_pieces, self.data_bytes = n_pieces, data_bytes
        self.n_counters = 2 * n_pieces + 2
        self.released_at, self.index_at = 2 * n_pieces, 2 * n_pieces + 1
        counter_bytes = _aligned(8 * self.n_counters)
        self.win = MPI.Win.Allocate_shared(counter_bytes + (SLOTS + 1) * data_bytes, 1,
                                           comm=node)
        self.win.Lock_all(MPI.MODE_NOCHECK)
        memory = [self.win.Shared_query(q)[0] for q in range(node.Get_size())]
        self.counters = [np.frombuffer(m, np.int64, self.n_counters) for m in memory]
        # per rank, per array: its bytes -- each its own base array, so that this rank can
        # tell by its reference count whether a gradient still views one of its own
        self.arrays = [[np.frombuffer(m, np.uint8, data_bytes, counter_bytes + i * data_bytes)
                        for i in range(SLOTS + 1)] for m in memory]
        self.rank = rank
        self.step = 0

    def released(self, q):
        return int(self.counters[q][self.released_at])

    def viewed(self, i):
        """Whether anything beyond the arena views this rank's array i."""
        return sys.getrefcount(self.arrays[self.rank][i]) > 2    # the list's, the call's


def arena_for(world, n_pieces, data_bytes):
    """The world's arena, first replaced by a larger one unless it holds `n_pieces` pieces
    and `data_bytes` of data (at DataParallel's construction: every rank calls this
    together)."""
    old = world.arena
    if old is not None and n_pieces <= old.n_pieces and data_bytes <= old.data_bytes:
        return old
    if old is not None:
        n_pieces, data_bytes = max(n_pieces, old.n_pieces), max(data_bytes, old.data_bytes)
    new = _Arena(world.node_comm(), world.rank, n_pieces, data_bytes)
    if old is not None:
        new.step = old.step
        new.counters[world.rank][new.released_at] = old.step   # the steps so far: released
        for q in range(world.size):      # nobody still reads or writes the old one
            world.watch.poll(lambda q=q: old.released(q) >= old.step,
                             lambda q=q: "in DataParallel's construction (%s): waiting for "
                             "rank %d to release the shared gradient buckets"
                             % (world.backend, q))
        free = not any(old.viewed(i) for i in range(SLOTS + 1))
        if world.allreduce_array(np.array([free], np.int32), "min")[0]:
            old.win.Unlock_all()
            old.win.Free()
        else:                            # a kept gradient views it: it stays mapped
            world.retired_arenas.append(old)
    return new


class SharedBucketSum:
    """The reducer's bucket sum (World.bucket_sum's interface) through the world's _Arena;
    see the module doc. `sizes`: per bucket, (elements, dtype); `pieces`: (bucket, start,
    end) in the order the reducer starts them."""

    def __init__(self, world, sizes, pieces):
        self.world, self.sizes, self.pieces = world, sizes, pieces
        self.rank, self.size = world.rank, world.size
        self.offsets, data_bytes = _layout(sizes)
        self.arena = None
        world.arena = arena_for(world, len(pieces), data_bytes)
        self.shares = [[lo + (hi - lo) * q // self.size for q in range(self.size + 1)]
                       for _, lo, hi in pieces]
        self._started = self._summed = 0
        self.step = self._index = self._flats = None
        self._buckets = None      # per rank, this step's buckets (views of its array)

    def _buckets_of(self, array):
        return [array[off:off + n * np.dtype(dtype).itemsize].view(dtype)
                for off, (n, dtype) in zip(self.offsets, self.sizes)]

    # -- the reducer's interface (World.bucket_sum) -------------------------------------
    def begin(self, flats):
        """A step starts: returns the arrays the reducer fills; `flats`, its private
        buckets, take the averages if every slot is still viewed."""
        self.arena = arena = self.world.arena
        t = self.step = arena.step = arena.step + 1
        for q in self._others():
            self._wait(lambda q=q: arena.released(q) >= t - 1,
                       "rank %d to release step %d's buckets" % (q, t - 1))
        arena.win.Sync()
        self._index = next((i for i in range(SLOTS) if not arena.viewed(i)), SCRATCH)
        arena.counters[self.rank][arena.index_at] = self._index
        self._flats = flats
        self._buckets = [None] * self.size
        self._buckets[self.rank] = self._buckets_of(arena.arrays[self.rank][self._index])
        self._started = self._summed = 0
        return self._buckets[self.rank]

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
        """Wait for every piece's sums; returns the buckets holding the averages."""
        arena, n = self.arena, self.arena.n_pieces
        while self._summed < len(self.pieces):
            j = self._summed
            self._wait(lambda: self._filled_everywhere(j),
                       "every rank to fill piece %d of step %d" % (j, self.step))
            self._sum(j)
        last = len(self.pieces) - 1
        for q in self._others():     # (owners sum the pieces in order)
            self._wait(lambda q=q: arena.counters[q][SUMMED * n + last] >= self.step,
                       "rank %d to sum its shares of step %d" % (q, self.step))
        arena.win.Sync()
        averaged = self._buckets[self.rank]
        if self._index == SCRATCH:
            for flat, summed in zip(self._flats, averaged):
                flat[...] = summed
            averaged = self._flats
        self.abandon()
        return averaged

    def abandon(self):
        """This rank touches nothing more of this step (also when the step failed)."""
        self._flats = self._buckets = None
        if self.step is not None:
            self.arena.win.Sync()
            self.arena.counters[self.rank][self.arena.released_at] = self.step

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
        """Share `rank` of piece j, summed over the ranks into every rank's array."""
        arena = self.arena
        buckets = self._buckets
        for q in self._others():
            if buckets[q] is None:     # q's array index is set before its first fill
                buckets[q] = self._buckets_of(arena.arrays[q][arena.counters[q][arena.index_at]])
        b = self.pieces[j][0]
        a, e = self.shares[j][self.rank], self.shares[j][self.rank + 1]
        mine = buckets[self.rank][b][a:e]
        for q in self._others():
            np.add(mine, buckets[q][b][a:e], out=mine)
        for q in self._others():
            buckets[q][b][a:e] = mine
        arena.win.Sync()
        arena.counters[self.rank][SUMMED * arena.n_pieces + j] = self.step
        self._summed = j + 1

    def _wait(self, done, what):
        self.world.watch.poll(done, lambda: "in DataParallel's gradient sum through shared "
                              "memory (%s): waiting for %s" % (self.world.backend, what))
