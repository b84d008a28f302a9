"""The process world: this process's place among the processes of a job, one device each,
and the collectives paddle.distributed and DataParallel run on numpy arrays.

    process_world()   the World of this process, made on first use:
      SingleWorld     one process: every collective returns its input
      MPIWorld        under mpirun: mpi4py non-blocking calls on a duplicate of COMM_WORLD
      PipeWorld       a child of paddle.distributed.spawn: pipes to the parent (pipes.py)

A World answers the array collectives (`allreduce_array`, `broadcast_array`,
`allgather_array`, `barrier`), the device-communicator
interface of communicator.py for its one device (`allreduce(local_rank, arrays)`, ...; what
collective ops call through their DeviceGroup), and `bucket_sum`, how DataParallel's
gradient buckets are summed: by default each piece by `start_allreduce`, the non-blocking
sum (`progress()` lets MPI advance the ones in flight); under mpirun on one machine through
shared memory (node_sum.py).

Every call is a collective: all ranks make it, in the same order. Each call but a bucket's
first exchanges a small signature (kind, reduction, root, dtype, shape): ranks making
different calls raise CollectiveMismatch naming every rank's call, where MPI would
truncate, mix up or hang. Every wait goes through the world's StallWatch, so a peer that
never makes the call raises StallError instead of hanging (REFIMPL_STALL_TIMEOUT).
"""
import numpy as np

from . import node_sum
from .communicator import CollectiveMismatch, pack, unpack_into
from .stall import StallWatch

__all__ = ["World", "SingleWorld", "MPIWorld", "Call", "process_world", "REDUCTIONS",
           "describe_call"]

REDUCTIONS = ("sum", "max", "min", "prod")
KINDS = ("allreduce", "broadcast", "allgather", "barrier")
# the dtypes collectives carry (Paddle's list: float16 travels as float32)
DTYPES = ("float16", "float32", "float64", "int32", "int64")
SIGNATURE_LEN = 12      # kind, reduction, root, dtype, ndim, up to 7 dims


class Call:
    """One collective call: its kind, reduction (allreduce), root (broadcast), and the
    array it carries (None for barrier)."""
    __slots__ = ("kind", "reduction", "root", "array", "in_place", "number", "op")

    def __init__(self, kind, array=None, reduction=None, root=None, in_place=False, op=None):
        self.kind, self.array, self.reduction, self.root = kind, array, reduction, root
        self.in_place = in_place    # the result goes into `array` (a bucket's sum)
        self.number = 0
        self.op = op                # the op making the call, when an op makes it

    def signature(self):
        """What every rank must agree on, as int64s."""
        sig = np.full(SIGNATURE_LEN, -1, np.int64)
        sig[0] = KINDS.index(self.kind)
        sig[1] = REDUCTIONS.index(self.reduction) if self.reduction else -1
        sig[2] = -1 if self.root is None else self.root
        if self.array is not None:
            sig[3] = DTYPES.index(self.array.dtype.name)
            # (more dims than fit: the element count, which is what must agree)
            dims = self.array.shape if self.array.ndim <= SIGNATURE_LEN - 5 \
                else (self.array.size,)
            sig[4] = len(dims)
            sig[5:5 + len(dims)] = dims
        return sig


def describe_call(sig):
    """'all_reduce (sum) of float32 [2, 3]' from a signature."""
    kind = KINDS[sig[0]]
    what = {"allreduce": "all_reduce", "allgather": "all_gather"}.get(kind, kind)
    if sig[1] >= 0:
        what += " (%s)" % REDUCTIONS[sig[1]]
    if sig[2] >= 0:
        what += " root %d" % sig[2]
    if sig[3] >= 0:
        what += " of %s %s" % (DTYPES[sig[3]], [int(d) for d in sig[5:5 + sig[4]]])
    return what


def _mismatch(signatures, number):
    """CollectiveMismatch naming every rank's call when they differ, else None."""
    if all(np.array_equal(s, signatures[0]) for s in signatures[1:]):
        return None
    lines = ["the ranks made different collective calls at call #%d (every rank must make "
             "the same collectives, on tensors of the same shape and dtype, in the same "
             "order):" % number]
    lines += ["  rank %d: %s" % (r, describe_call(s)) for r, s in enumerate(signatures)]
    return CollectiveMismatch("\n".join(lines))


def _check_call(kind, array, reduction, root, size):
    if reduction is not None and reduction not in REDUCTIONS:
        raise ValueError("%s: the reduction must be one of %s, got %r"
                         % (kind, list(REDUCTIONS), reduction))
    if root is not None and not (isinstance(root, (int, np.integer)) and 0 <= root < size):
        raise ValueError("%s: the root rank must be an int in [0, %d) (the world size), got "
                         "%r" % (kind, size, root))
    if array is not None and array.dtype.name not in DTYPES:
        raise TypeError("%s: tensors of dtype %s cannot take part in collectives; expected "
                        "one of %s" % (kind, array.dtype.name, list(DTYPES)))


class Pending:
    """A collective in flight. `test()` says (without blocking) whether it completed;
    `wait()` waits through the world's StallWatch and returns its result."""

    def __init__(self, world, call, test, result):
        self.world, self.call, self._test, self._result = world, call, test, result
        self.done = False

    def test(self):
        if not self.done:
            self.done = bool(self._test())
        return self.done

    def wait(self):
        if not self.test():
            self.world.watch.poll(self.test, lambda: self.world.describe_wait(self.call))
        return self._result()


class BucketSum:
    """The sum over the ranks of gradient buckets, piece by piece, as the reducer fills
    them: `begin(flats)` at a step's first gradient (returns the arrays to fill: here the
    buckets themselves), `start(j)` when the j-th piece is filled, `progress()` between
    gradients, `finish()` after backward (returns the buckets holding the averages: here
    `flats`), `abandon()` for a step that failed. Here each piece is summed in place by
    the world's start_allreduce."""

    def __init__(self, world, pieces):
        self.world, self.pieces = world, pieces
        self._pending = []

    def begin(self, flats):
        self._flats, self._pending = flats, []
        return flats

    def start(self, j):
        b, lo, hi = self.pieces[j]
        self._pending.append(self.world.start_allreduce(self._flats[b][lo:hi]))

    def progress(self):
        self.world.progress()

    def finish(self):
        for pending in self._pending:
            pending.wait()
        flats = self._flats
        self.abandon()
        return flats

    def abandon(self):
        self._flats, self._pending = None, []
        self.world.progress()      # forgets the completed requests (and their buffers)


class World:
    """rank, size and the collectives (see the module doc). Subclasses implement
    `_start(call) -> Pending` (and `_agree(call)`, the signature check)."""

    rank = 0
    size = 1
    backend = "single"

    def __init__(self):
        self.watch = StallWatch(1)
        self.calls = 0
        self._in_flight = []

    # -- the device-communicator interface (one device: local_rank is 0) -----------------
    @property
    def nranks(self):
        return self.size

    def global_rank(self, local_rank=0):
        return self.rank

    def allreduce(self, local_rank, arrays, op=None, reduction="sum"):
        if not arrays:
            return []
        if len(arrays) == 1:    # in its own shape, so that a mismatch names the user's
            return [self.allreduce_array(np.ascontiguousarray(arrays[0]), reduction, op)]
        total = self.allreduce_array(pack(arrays), reduction, op)
        out = [np.empty(a.shape, a.dtype) for a in arrays]
        unpack_into(total, out)
        return out

    def broadcast(self, local_rank, arrays, roots, op=None):
        """In place: one call per root and dtype (values are copied exactly)."""
        groups = {}
        for a, r in zip(arrays, roots):
            groups.setdefault((r, a.dtype.str), []).append(a)
        for (root, _), mine in sorted(groups.items(), key=lambda kv: kv[0]):
            whole = mine[0] if len(mine) == 1 else pack(mine)
            unpack_into(self.broadcast_array(np.ascontiguousarray(whole), root, op).reshape(-1),
                        mine)

    def allgather(self, local_rank, array):
        return self.allgather_array(np.asarray(array))

    # -- array collectives ------------------------------------------------------------
    def allreduce_array(self, array, reduction="sum", op=None):
        """The reduction over ranks of `array` (a new array); `op`: the op making the call
        (for a stall report)."""
        return self._collective(Call("allreduce", array, reduction, op=op))

    def broadcast_array(self, array, root, op=None):
        """Rank `root`'s array (a new array on the other ranks)."""
        return self._collective(Call("broadcast", array, root=root, op=op))

    def allgather_array(self, array):
        """Every rank's array, in rank order (a list)."""
        return self._collective(Call("allgather", array))

    def barrier(self, local_rank=0):
        self._collective(Call("barrier"))

    def start_allreduce(self, flat):
        """Start summing the 1-D array `flat` over ranks in place (no signature check: the
        caller's layout is checked once); returns its Pending."""
        call = Call("allreduce", flat, "sum", in_place=True)
        self.calls += 1
        call.number = self.calls
        pending = self._start(call)
        self._in_flight.append(pending)
        return pending

    def bucket_sum(self, sizes, pieces):
        """How DataParallel's reducer sums its buckets over the ranks: a BucketSum (see
        there; `sizes`: per bucket, (elements, dtype); `pieces`: (bucket, start, end), in
        the order the reducer starts them). Every rank calls this together."""
        return BucketSum(self, pieces)

    def progress(self):
        """Let the collectives in flight advance (MPI moves a non-blocking call on only
        while the process is inside MPI); forget the completed ones."""
        self._in_flight = [p for p in self._in_flight if not p.test()]

    def _collective(self, call):
        a = call.array
        _check_call(call.kind, a, call.reduction, call.root, self.size)
        half = a is not None and a.dtype == np.float16
        if half:    # MPI has no float16 reductions: carry float32
            call.array = a.astype(np.float32)
        self.calls += 1
        call.number = self.calls
        self._agree(call)
        result = self._start(call).wait()
        if half:
            result = [r.astype(np.float16) for r in result] if isinstance(result, list) \
                else result.astype(np.float16)
        return result

    def describe_wait(self, call):
        return "in %s%s #%d with the other processes (%s): waiting for them to make the " \
               "same call" % ("%s: " % call.op if call.op else "",
                              describe_call(call.signature()), call.number, self.backend)

    def _agree(self, call):
        """Raise CollectiveMismatch unless every rank makes the same call."""

    def _start(self, call):
        raise NotImplementedError


class SingleWorld(World):
    """A job of one process: the collectives return (copies of) their input."""

    def _start(self, call):
        a = call.array
        if call.kind == "allgather":
            result = [a.copy()]
        elif call.kind == "barrier":
            result = None
        else:
            result = a if call.in_place else a.copy()
        return Pending(self, call, lambda: True, lambda: result)


class MPIWorld(World):
    """The ranks of an mpirun job, talking through a duplicate of COMM_WORLD (made by the
    first collective, so the static engine's calls on COMM_WORLD never match these)."""

    backend = "MPI"

    def __init__(self, comm_world):
        super().__init__()
        self._world = comm_world
        self.rank, self.size = comm_world.Get_rank(), comm_world.Get_size()
        self._comm = self._node = None
        self.arena = None      # DataParallel's shared buckets (node_sum), once made
        self.retired_arenas = []    # smaller ones that gradients still viewed when replaced

    @property
    def comm(self):
        if self._comm is None:
            comm, request = self._world.Idup()
            self.watch.poll(request.Test, lambda: "in the first collective (duplicating "
                            "COMM_WORLD, MPI): waiting for the other processes to make one")
            self._comm = comm
        return self._comm

    def node_comm(self):
        """The ranks sharing this one's memory (a communicator; made by the first call,
        which every rank makes together)."""
        if self._node is None:
            from mpi4py import MPI
            self._node = self.comm.Split_type(MPI.COMM_TYPE_SHARED, key=self.rank)
        return self._node

    def bucket_sum(self, sizes, pieces):
        """Through shared memory when every rank runs on this machine (node_sum)."""
        if node_sum.usable(self, sizes):
            return node_sum.SharedBucketSum(self, sizes, pieces)
        return super().bucket_sum(sizes, pieces)

    def _agree(self, call):
        mine = call.signature()
        every = np.empty((self.size, SIGNATURE_LEN), np.int64)
        request = self.comm.Iallgather(mine, every)
        self.watch.poll(request.Test, lambda: self.describe_wait(call))
        failure = _mismatch(list(every), call.number)
        if failure is not None:
            raise failure

    def _start(self, call):
        from mpi4py import MPI
        comm, kind = self.comm, call.kind
        a = None if call.array is None else np.ascontiguousarray(call.array)
        op = getattr(MPI, call.reduction.upper()) if call.reduction else None
        if kind == "allreduce":
            out = a if call.in_place else a.copy()
            request = comm.Iallreduce(MPI.IN_PLACE, out, op=op)
            result = out
        elif kind == "broadcast":
            out = a.copy()
            request = comm.Ibcast(out, root=call.root)
            result = out
        elif kind == "allgather":
            out = np.empty((self.size,) + a.shape, a.dtype)
            request = comm.Iallgather(a, out)
            result = list(out)
        else:
            request = comm.Ibarrier()
            result = None
        return Pending(self, call, request.Test, lambda: result)


_world = None


def process_world():
    """This process's World: a spawned child's PipeWorld, an mpirun rank's MPIWorld, or a
    SingleWorld."""
    global _world
    if _world is None:
        from . import launch, pipes
        if pipes.spawned():
            _world = pipes.PipeWorld.from_environment()
        else:
            comm = launch.mpi_comm()
            _world = MPIWorld(comm) if comm is not None else SingleWorld()
    return _world
