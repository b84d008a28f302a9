"""Communicators: collective operations among devices.

Devices are the places of every process: global rank = process rank x local places +
local rank. `InProcessCommunicator` synchronizes the threads of one process (one per
place); `HierarchicalCommunicator` first reduces within the process, then the place that
completes the local rendezvous talks to the other processes with mpi4py on contiguous
numpy buffers (no pickling), like ChainerMN's hierarchical communicator. Every call is
collective: all devices make it, in the same order (checked: CollectiveMismatch).

Interface (per device, `local_rank` = this thread's place index; `op` names the op making
the call, for CollectiveMismatch and stall reports):
  allreduce(local_rank, arrays, op=None, reduction="sum") -> list  the sums (max, min,
                                         products) over devices (new arrays: a kernel may
                                         return one buffer as two gradients)
  broadcast(local_rank, arrays, roots, op=None)   in place: array i takes device roots[i]'s
                                         value
  allgather(local_rank, array) -> list   every device's array, in global rank order
  barrier(local_rank)
A place's handle on these is its DeviceGroup (group.py), which the executor binds to
collective ops.
Many small arrays are packed into one flat bucket per call, so a fused call costs one
exchange.
"""
import threading

import numpy as np

from .stall import StallWatch

__all__ = ["InProcessCommunicator", "HierarchicalCommunicator", "MPICommunicator",
           "CommunicationAborted", "CollectiveMismatch"]


# how allreduce combines two devices' values, by reduction name
REDUCTION_UFUNCS = {"sum": np.add, "max": np.maximum, "min": np.minimum, "prod": np.multiply}


class CommunicationAborted(RuntimeError):
    """Another device failed, so this collective cannot complete."""


def pack(arrays, scratch=None):
    """One flat buffer (the arrays' common dtype) holding every array. A `scratch` buffer
    of that dtype and size, when given, is filled instead of allocating a new one: fresh
    pages cost more than the copy itself."""
    if len(arrays) == 1 and scratch is None:
        return np.ascontiguousarray(arrays[0]).reshape(-1)
    dtype = np.result_type(*arrays)
    size = sum(a.size for a in arrays)
    flat = scratch[:size] if scratch is not None and scratch.dtype == dtype and \
        scratch.size >= size else np.empty(size, dtype)
    np.concatenate([a.reshape(-1) for a in arrays], out=flat, casting="same_kind")
    return flat


def unpack_into(flat, arrays):
    offset = 0
    for a in arrays:
        n = a.size
        np.copyto(a, flat[offset:offset + n].reshape(a.shape), casting="unsafe")
        offset += n


class CollectiveMismatch(RuntimeError):
    """The places called different collectives at the same point: their programs (or the
    order in which they issue collectives) differ."""


class _Call:
    """One place's side of a collective: the kind of call, the op making it (when an op
    does: DeviceGroup.collective), what it carries, and its number in this run."""
    __slots__ = ("kind", "op", "signature", "number")

    def __init__(self, kind, op, signature, number):
        self.kind, self.op, self.signature, self.number = kind, op, signature, number

    def key(self):
        return self.kind, self.op, self.signature

    def __str__(self):
        return "%s (%s) #%d of this run" % (self.op or "no op", self.kind, self.number)


def _signature(value):
    """Sizes and dtypes of what a call carries: the places must agree on them."""
    arrays = value if isinstance(value, (list, tuple)) else [value]
    return tuple((a.size, a.dtype.str) for a in arrays if isinstance(a, np.ndarray))


class InProcessCommunicator:
    """Threads of one process, one per place. A collective is a rendezvous: each place
    deposits its value, the last to arrive checks that all made the same call and
    combines the deposits, everyone takes the result, and the slots are free again once
    all have taken it. Every wait goes through the StallWatch (`watch`), so a place
    that never arrives makes the others raise StallError instead of hanging."""

    def __init__(self, n_local, process_rank=0, n_processes=1):
        self.n_local = n_local
        self.process_rank = process_rank
        self.n_processes = n_processes
        self.watch = StallWatch(n_local)
        self._cond = threading.Condition()
        self._numbers = [0] * n_local     # collectives each place made in this run
        self._clear()

    def _clear(self):
        self._calls = [None] * self.n_local
        self._slots = [None] * self.n_local
        self._phase = "open"      # open -> combining -> done -> open
        self._result = None
        self._failure = None
        self._taken = 0
        self._aborted = False

    @property
    def nranks(self):
        return self.n_local * self.n_processes

    def global_rank(self, local_rank):
        return self.process_rank * self.n_local + local_rank

    def begin_run(self):
        """A run of every place starts: count collectives from 1 again."""
        self.watch.begin_run()
        with self._cond:
            self._numbers = [0] * self.n_local

    def abort(self):
        """A place failed: every wait, now or later, raises CommunicationAborted."""
        with self._cond:
            self._aborted = True
            self._cond.notify_all()

    def reset(self):
        with self._cond:
            self._clear()

    def _wait(self, ready, describe):
        """Under the lock: wait until ready() (or an abort)."""
        self.watch.wait(self._cond, lambda: self._aborted or ready(), describe)
        if self._aborted:
            raise CommunicationAborted("another device failed during a collective")

    def _exchange(self, local_rank, kind, value, combine, op=None):
        """Deposit `value`; the last place to arrive combines all deposits; everyone gets
        the result. `op`: the op making the call."""
        with self._cond:
            # nobody may overwrite a slot before everyone has taken the last result
            self._wait(lambda: self._phase == "open",
                       lambda: "waiting for the other places to take the result of the "
                               "previous collective")
            self._numbers[local_rank] += 1
            self._calls[local_rank] = _Call(kind, op, _signature(value),
                                            self._numbers[local_rank])
            self._slots[local_rank] = value
            combines = all(c is not None for c in self._calls)
            if combines:
                self._phase = "combining"
                self._failure = self._mismatch()
        if combines:
            if self._failure is None:
                try:
                    self._result = combine(self._slots)
                except BaseException as e:   # the others must not wait for a result
                    self._failure = e
            with self._cond:
                self._phase = "done"
                self._cond.notify_all()
        with self._cond:
            self._wait(lambda: self._phase == "done", lambda: self._describe_wait(local_rank))
            result, failure = self._result, self._failure
            self._taken += 1
            if self._taken == self.n_local:
                aborted = self._aborted
                self._clear()
                self._aborted = aborted
                self._cond.notify_all()
        if failure is not None:
            if isinstance(failure, CollectiveMismatch):
                raise CollectiveMismatch(str(failure))
            if combines:
                raise failure
            raise CommunicationAborted("the place combining the collective failed: %s: %s"
                                       % (type(failure).__name__, failure))
        return result

    def _mismatch(self):
        """A CollectiveMismatch naming every place's call when they differ, else None."""
        if len({c.key() for c in self._calls}) == 1:
            return None
        lines = ["the places called different collectives at the same point (every place "
                 "must issue the same collectives in the same order):"]
        for d, c in enumerate(self._calls):
            lines.append("  place %d: %s, carrying %s" % (
                d, c, ", ".join("%d x %s" % s for s in c.signature) or "nothing"))
        return CollectiveMismatch("\n".join(lines))

    def _describe_wait(self, local_rank):
        arrived = [d for d, c in enumerate(self._calls) if c is not None]
        missing = [d for d, c in enumerate(self._calls) if c is None]
        if missing:
            return "in collective %s: places %s have arrived, waiting for places %s" % (
                self._calls[local_rank], arrived, missing)
        return "in collective %s: waiting for its result" % self._calls[local_rank]

    def _across_processes(self, flat, reduction="sum"):
        return flat

    def allreduce(self, local_rank, arrays, op=None, reduction="sum"):
        """`reduction`: sum, max, min or prod over devices."""
        if not arrays:
            return []
        flat = pack(arrays)
        ufunc = REDUCTION_UFUNCS[reduction]

        def combine(slots):
            total = slots[0].copy()
            for s in slots[1:]:
                ufunc(total, s, out=total)
            return self._across_processes(total, reduction)
        kind = "allreduce" if reduction == "sum" else "allreduce (%s)" % reduction
        total = self._exchange(local_rank, kind, flat, combine, op)
        out = [np.empty(a.shape, a.dtype) for a in arrays]
        unpack_into(total, out)
        return out

    def broadcast(self, local_rank, arrays, roots, op=None):
        if not arrays:
            return
        me = self.global_rank(local_rank)

        def combine(slots):
            return [self._root_value(slots, i, root) for i, root in enumerate(roots)]
        values = self._exchange(local_rank, "broadcast %s" % list(roots), list(arrays),
                                combine, op)
        for a, v, root in zip(arrays, values, roots):
            if root != me:
                np.copyto(a, v)

    def _root_value(self, slots, i, root):
        """Value of array i on device `root` (a copy, since the root keeps updating it)."""
        local = root - self.process_rank * self.n_local
        return np.array(slots[local][i])

    def allgather(self, local_rank, array):
        return self._exchange(local_rank, "allgather", np.asarray(array), list)

    def barrier(self, local_rank):
        self._exchange(local_rank, "barrier", None, lambda slots: None)


class HierarchicalCommunicator(InProcessCommunicator):
    """Threads within the process, then MPI between processes: the place completing the
    local rendezvous makes the call. Calls are non-blocking requests completed through the
    StallWatch, so a process whose peers never make the call raises StallError (and the
    launcher aborts the job) instead of hanging in MPI."""

    def __init__(self, n_local, mpi_comm):
        super().__init__(n_local, mpi_comm.Get_rank(), mpi_comm.Get_size())
        self.mpi = mpi_comm

    def _complete(self, request, what):
        """Wait for an MPI request; `what` the call, for a stall report."""
        call = next((c for c in self._calls if c is not None), None)   # being combined
        self.watch.poll(request.Test, lambda: "%sin %s with the other processes (MPI): "
                                              "waiting for them to make the same call"
                        % ("in collective %s, " % call if call is not None else "", what))

    def _across_processes(self, flat, reduction="sum"):
        from mpi4py import MPI
        flat = np.ascontiguousarray(flat)
        self._complete(self.mpi.Iallreduce(MPI.IN_PLACE, flat,
                                           op=getattr(MPI, reduction.upper())), "allreduce")
        return flat

    def _root_value(self, slots, i, root):
        owner = root // self.n_local
        if owner == self.process_rank:
            buf = np.array(slots[root - self.process_rank * self.n_local][i])
        else:
            buf = np.empty_like(slots[0][i])
        self._complete(self.mpi.Ibcast(buf, root=owner), "broadcast from process %d" % owner)
        return buf

    def allgather(self, local_rank, array):
        def combine(slots):
            stacked = np.ascontiguousarray(np.stack(slots))
            out = np.empty((self.n_processes,) + stacked.shape, stacked.dtype)
            self._complete(self.mpi.Iallgather(stacked, out), "allgather")
            return list(out.reshape((-1,) + stacked.shape[1:]))
        return self._exchange(local_rank, "allgather", np.asarray(array), combine)

    def broadcast_from_rank0(self, arrays):
        """Process-level broadcast (called by one thread): startup parameters."""
        for a in arrays:
            self._complete(self.mpi.Ibcast(a, root=0), "the startup broadcast from rank 0")


class MPICommunicator:
    """Plain process-level communicator (one device per process, in-place bucketed
    allreduce): bench/bench_allreduce.py measures MPI's own cost with it."""

    def __init__(self, mpi_comm):
        self.mpi = mpi_comm
        self._scratch = {}     # dtype -> the bucket buffer, reused across calls

    def _bucket_buffer(self, arrays):
        dtype = np.result_type(*arrays)
        size = sum(a.size for a in arrays)
        buf = self._scratch.get(dtype)
        if buf is None or buf.size < size:
            buf = self._scratch[dtype] = np.empty(size, dtype)
        return buf

    def allreduce(self, arrays, bucket_bytes=1 << 20):
        """Sum `arrays` in place over all processes. Contiguous arrays of `bucket_bytes` or
        more go to MPI as they are; smaller ones are packed into flat buckets of about that
        size, one exchange each. 1 MB measured best: a bucket that stays in cache is cheap
        to pack, while per-array calls on small arrays are latency-bound."""
        from mpi4py import MPI
        bucket, size = [], 0
        for a in arrays:
            if a.nbytes >= bucket_bytes and a.flags.c_contiguous:
                self.mpi.Allreduce(MPI.IN_PLACE, a, op=MPI.SUM)
                continue
            if bucket and size + a.nbytes > bucket_bytes:
                self._allreduce_bucket(bucket)
                bucket, size = [], 0
            bucket.append(a)
            size += a.nbytes
        if bucket:
            self._allreduce_bucket(bucket)

    def _allreduce_bucket(self, bucket):
        from mpi4py import MPI
        flat = pack(bucket, self._bucket_buffer(bucket))
        self.mpi.Allreduce(MPI.IN_PLACE, flat, op=MPI.SUM)
        unpack_into(flat, bucket)
