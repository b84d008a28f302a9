"""Communicators: collective operations among devices.

Devices are the places of every process: global rank = process rank x local places +
local rank. `InProcessCommunicator` synchronizes the threads of one process (one per
place); `HierarchicalCommunicator` first reduces within the process, then lets the local
leader talk to the other processes with mpi4py on contiguous numpy buffers (no pickling),
like ChainerMN's hierarchical communicator. Every call is collective: all devices make it,
in the same order.

Interface (per device, `local_rank` = this thread's place index):
  allreduce(local_rank, arrays) -> list  the sums over devices (new arrays: a kernel may
                                         return one buffer as two gradients)
  broadcast(local_rank, arrays, roots)   in place: array i takes device roots[i]'s value
  allgather(local_rank, array) -> list   every device's array, in global rank order
  barrier(local_rank)
Many small arrays are packed into one flat bucket per call, so a fused call costs one
exchange.
"""
import threading

import numpy as np

__all__ = ["InProcessCommunicator", "HierarchicalCommunicator", "MPICommunicator",
           "CommunicationAborted"]


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


class InProcessCommunicator:
    """Threads of one process, one per place."""

    def __init__(self, n_local, process_rank=0, n_processes=1):
        self.n_local = n_local
        self.process_rank = process_rank
        self.n_processes = n_processes
        self._barrier = threading.Barrier(n_local)
        self._slots = [None] * n_local
        self._result = None

    @property
    def nranks(self):
        return self.n_local * self.n_processes

    def global_rank(self, local_rank):
        return self.process_rank * self.n_local + local_rank

    def abort(self):
        self._barrier.abort()

    def reset(self):
        self._barrier.reset()

    def _wait(self):
        try:
            self._barrier.wait()
        except threading.BrokenBarrierError:
            raise CommunicationAborted("another device failed during a collective") from None

    def _exchange(self, local_rank, value, combine):
        """Deposit `value`; the leader combines all deposits; everyone gets the result."""
        self._slots[local_rank] = value
        self._wait()
        if local_rank == 0:
            self._result = combine(self._slots)
        self._wait()
        result = self._result
        self._wait()   # nobody may overwrite a slot before everyone has read the result
        return result

    def _across_processes(self, flat):
        return flat

    def allreduce(self, local_rank, arrays):
        if not arrays:
            return []
        flat = pack(arrays)

        def combine(slots):
            total = slots[0].copy()
            for s in slots[1:]:
                total += s
            return self._across_processes(total)
        total = self._exchange(local_rank, flat, combine)
        out = [np.empty(a.shape, a.dtype) for a in arrays]
        unpack_into(total, out)
        return out

    def broadcast(self, local_rank, arrays, roots):
        if not arrays:
            return
        me = self.global_rank(local_rank)

        def combine(slots):
            return [self._root_value(slots, i, root) for i, root in enumerate(roots)]
        values = self._exchange(local_rank, list(arrays), combine)
        for a, v, root in zip(arrays, values, roots):
            if root != me:
                np.copyto(a, v)

    def _root_value(self, slots, i, root):
        """Value of array i on device `root` (a copy, since the root keeps updating it)."""
        local = root - self.process_rank * self.n_local
        return np.array(slots[local][i])

    def allgather(self, local_rank, array):
        return self._exchange(local_rank, np.asarray(array), list)

    def barrier(self, local_rank):
        self._exchange(local_rank, None, lambda slots: None)


class HierarchicalCommunicator(InProcessCommunicator):
    """Threads within the process, then MPI between processes (the local leader calls MPI)."""

    def __init__(self, n_local, mpi_comm):
        super().__init__(n_local, mpi_comm.Get_rank(), mpi_comm.Get_size())
        self.mpi = mpi_comm

    def _across_processes(self, flat):
        from mpi4py import MPI
        flat = np.ascontiguousarray(flat)
        self.mpi.Allreduce(MPI.IN_PLACE, flat, op=MPI.SUM)
        return flat

    def _root_value(self, slots, i, root):
        owner = root // self.n_local
        if owner == self.process_rank:
            buf = np.array(slots[root - self.process_rank * self.n_local][i])
        else:
            buf = np.empty_like(slots[0][i])
        self.mpi.Bcast(buf, root=owner)
        return buf

    def allgather(self, local_rank, array):
        def combine(slots):
            stacked = np.ascontiguousarray(np.stack(slots))
            out = np.empty((self.n_processes,) + stacked.shape, stacked.dtype)
            self.mpi.Allgather(stacked, out)
            return list(out.reshape((-1,) + stacked.shape[1:]))
        return self._exchange(local_rank, np.asarray(array), combine)

    def broadcast_from_rank0(self, arrays):
        """Process-level broadcast (called by one thread): startup parameters."""
        for a in arrays:
            self.mpi.Bcast(a, root=0)


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
