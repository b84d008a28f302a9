"""DataParallel's gradient averaging: parameters in size-bounded buckets, each bucket
summed in pieces, each piece's allreduce started as soon as its gradients are ready during
backward, every piece waited for when that backward ends
(specs/distributed.md#dataparallel).

Buckets: the trainable parameters in the layer's order, grouped by dtype; a group closes
once it holds `limits[0]` bytes (the first, last_comm_buffer_size), later groups
`limits[1]` (comm_buffer_size); groups ordered by their first parameter, then reversed --
the last layers' gradients come first in backward, and the small group holding the first
layers' is the one left to average after backward. Pieces: consecutive parameters of a
bucket, at most PIECE_BYTES (or one larger parameter). Pieces start in one fixed order
only -- the buckets in turn, each from its last piece to its first -- a complete piece
waiting for the earlier ones, so every rank makes the same calls in the same order
whatever order its gradients come in.

A step: DataParallel's forward `prepare`s (noting, with find_unused_parameters, the
parameters the outputs do not depend on); each parameter's ready hook (autograd's
register_ready_hook: its .grad holds this backward's gradient) writes .grad divided by
the world size into its bucket's staging array (one pass); a complete piece's sum is
started at once, each hook letting the started ones progress. How the pieces are summed
is the world's (World.bucket_sum): by default in place in the bucket's flat array
(World.start_allreduce: MPI Iallreduce, which advances inside the hooks); under mpirun
on one machine through shared memory (parallel/node_sum.py: the staging array lies in
it, the owner of each share of a piece adds the ranks' gradients and writes the sum into
every rank's staging array). The flat array is kept from step to step. When the backward
ends (autograd.queue_callback) the parameters still without a gradient are marked ready
with their gradient so far (zeros if none) under find_unused_parameters, else they are
an error naming them; then every piece's sum is waited for and each .grad becomes its
part of the averaged bucket (a view: of the flat array, or of the shared one).
"""
import sys
import time

import numpy as np

from ..dygraph import autograd
from ..dygraph.tensor import Tensor

__all__ = ["Reducer", "assign_buckets"]

MB = 1 << 20
# A bucket's sum is started in pieces of at most this many bytes (whole parameters), each
# as soon as its gradients are ready: MPI moves a transfer on only inside a call, so a
# large piece that completes late in backward is exchanged after it rather than during it.
# ResNet-18 under mpirun -n 2, one core a rank: with buckets of 25 MB (Paddle's default;
# one of 34 MB holds layers 1-4) a rank waited 27-66 ms a step after backward, 9-39 with
# buckets of 4 MB; with pieces of 4 MB, 2-3 CPU ms (README, data-parallel bench).
PIECE_BYTES = 4 * MB
PHASES = ("fill", "progress", "wait")
# a hook handing on a gradient of at least this many elements reads the CPU clock
# (Reducer._hook_clock)
HOOK_CPU_CLOCK_ELEMENTS = 1 << 16


def assign_buckets(params, limits):
    """Index lists of `params` per bucket, in the order they start (see the module doc)."""
    open_groups, closed = {}, []
    limit_index = {}
    for i, p in enumerate(params):
        dtype = p._array().dtype
        group = open_groups.setdefault(dtype, [[], 0])
        group[0].append(i)
        group[1] += p._array().nbytes
        k = limit_index.get(dtype, 0)
        if group[1] >= limits[min(k, len(limits) - 1)]:
            closed.append(group[0])
            del open_groups[dtype]
            limit_index[dtype] = k + 1
    closed += [g for g, _ in open_groups.values()]
    closed.sort(key=lambda g: g[0])
    return list(reversed(closed))


def assign_pieces(nbytes, limit):
    """[start, end) ranges of consecutive parameters (sizes `nbytes`), each holding at
    most `limit` bytes or a single larger parameter."""
    pieces, start, held = [], 0, 0
    for i, n in enumerate(nbytes):
        if i > start and held + n > limit:
            pieces.append((start, i))
            start, held = i, 0
        held += n
    return pieces + [(start, len(nbytes))]


class _Bucket:
    """Parameters whose gradients travel in one flat array, summed in pieces."""

    def __init__(self, params):
        self.params = params
        self.dtype = params[0]._array().dtype
        self.offsets = np.cumsum([0] + [p._array().size for p in params]).tolist()
        self.shapes = [p._array().shape for p in params]
        self.pieces = assign_pieces([p._array().nbytes for p in params], PIECE_BYTES)
        self._piece_of = [k for k, (a, b) in enumerate(self.pieces) for _ in range(a, b)]
        self.flat = None
        self.staging = None     # what the gradients are filled into (World.bucket_sum's)
        self.reset()

    def reset(self):
        # The flat array is reused from step to step (the fresh pages of a new one cost
        # more than the copy into them) unless a view of it is still alive -- a gradient
        # of the last step that someone kept, which must keep its values.
        if self.flat is None or sys.getrefcount(self.flat) > 2:   # 2: self.flat, the call
            self.flat = np.empty(self.offsets[-1], self.dtype)
        self.missing = [b - a for a, b in self.pieces]    # per piece: gradients to come
        self.ready = [False] * len(self.params)

    def put(self, index, grad, ranks):
        """Parameter `index`'s gradient (None: zeros) divided by `ranks` into the staging
        array (one pass: the copy is the division)."""
        part = self.staging[self.offsets[index]:self.offsets[index + 1]]
        if grad is None:
            part.fill(0)
        elif ranks & (ranks - 1) == 0:
            # 1/ranks is exact for a power of two, so the product has the quotient's
            # bits; numpy multiplies a hot gradient in about 2/3 of the time it divides
            np.multiply(grad.reshape(-1), 1.0 / ranks, out=part, casting="same_kind")
        else:
            np.divide(grad.reshape(-1), ranks, out=part, casting="same_kind")
        self.ready[index] = True
        self.missing[self._piece_of[index]] -= 1

    def scatter_back(self, averaged):
        """Each parameter's .grad: its part of the averaged bucket (a view), dense (the rows
        of a sparse embedding's gradient are not gathered across ranks)."""
        for p, shape, start, end in zip(self.params, self.shapes, self.offsets,
                                        self.offsets[1:]):
            p._grad = averaged[start:end].reshape(shape)
            p._zeroed, p._grad_rows = False, None


class Reducer:
    """Averages the gradients of `params` over the ranks of `world` during backward."""

    def __init__(self, params, world, limits, find_unused):
        self.world = world
        self.find_unused = find_unused
        self.buckets = [_Bucket([params[i] for i in group])
                        for group in assign_buckets(params, limits)]
        self._where = {}       # id(param) -> (bucket, index in it)
        for bucket in self.buckets:
            for j, p in enumerate(bucket.params):
                self._where[id(p)] = (bucket, j)
        # every bucket's pieces in the order they start: the buckets in turn, each from its
        # last piece (the later layers', whose gradients come first) to its first
        self._order = [(bucket, k) for bucket in self.buckets
                       for k in reversed(range(len(bucket.pieces)))]
        index = {id(b): i for i, b in enumerate(self.buckets)}
        self._sum = world.bucket_sum(
            [(b.offsets[-1], b.dtype) for b in self.buckets],
            [(index[id(b)], b.offsets[b.pieces[k][0]], b.offsets[b.pieces[k][1]])
             for b, k in self._order])
        self._handles = [autograd.register_ready_hook(p, self._on_ready) for p in params]
        self.state = "idle"    # idle | armed (a synchronized step) | local (no_sync)
        self._unused = ()
        self._started = False
        # wall and CPU seconds, summed over steps, spent in: filling the buckets (and
        # starting the complete ones), letting MPI progress in the hooks, and waiting for
        # the buckets' sums after backward (what the data-parallel bench reports; the
        # hooks' CPU time: see _hook_clock)
        self.seconds = dict.fromkeys(PHASES, 0.0)
        self.cpu_seconds = dict.fromkeys(PHASES, 0.0)

    def _account(self, phase, since, clock=None):
        """Add the wall and CPU seconds from `since` (a reading of `clock`, by default
        _clocks) to `phase`; the clocks now, which start the next phase."""
        now = (clock or _clocks)()
        self.seconds[phase] += now[0] - since[0]
        self.cpu_seconds[phase] += now[1] - since[1]
        return now

    def _hook_clock(self, param):
        """The clocks a hook reads: the CPU clock is a system call (2-4 us on this
        project's VM, and the hooks run for every parameter of every step: LeNet's 20
        readings were 75 us, 1% of a step), so only around work long enough to be
        descheduled in -- a large gradient, or sums in flight; a shorter hook never
        blocks, and its CPU time is taken as its wall time."""
        if self._next or param._array().size >= HOOK_CPU_CLOCK_ELEMENTS:
            return _clocks
        return _wall_clocks

    def remove(self):
        for h in self._handles:
            h.remove()

    # -- a step ------------------------------------------------------------------------
    def prepare(self, outputs):
        """A synchronized forward ran: arm the buckets for its backward."""
        for bucket in self.buckets:
            bucket.reset()
        self._next = 0           # the next piece to start (in self._order)
        self._started = False    # whether this backward has reached a parameter yet
        self._unused = _unreached(self._where, outputs) if self.find_unused else ()
        self.state = "armed"

    def local_step(self):
        """A forward under no_sync: its gradients accumulate locally."""
        self.state = "local"

    def _on_ready(self, param):
        if self.state == "local":
            return
        if self.state == "idle":
            raise RuntimeError(
                "DataParallel: the gradient of parameter %r arrived in a backward that does "
                "not follow a forward through the DataParallel layer (a second backward of "
                "one forward, or a loss computed with the wrapped layer itself); it would "
                "not be averaged over the ranks. Call the DataParallel layer before each "
                "backward, or use its no_sync() to accumulate locally" % param.name)
        if not self._started:
            self._started = True
            autograd.queue_callback(self._finish)
            staging = self._sum.begin([bucket.flat for bucket in self.buckets])
            for bucket, array in zip(self.buckets, staging):
                bucket.staging = array
            for p in self._unused:
                self._mark(p)
        # (one reading between the phases; before the first piece has started there is
        # nothing to progress -- all of a small model's backward)
        clock = self._hook_clock(param)
        since = clock()
        self._mark(param)
        since = self._account("fill", since, clock)
        if self._next:
            self._sum.progress()
            self._account("progress", since, clock)

    def _mark(self, param):
        bucket, index = self._where[id(param)]
        if bucket.ready[index]:
            raise RuntimeError("DataParallel: parameter %r was marked ready twice in one "
                               "backward" % param.name)
        bucket.put(index, param.gradient(), self.world.size)
        while self._next < len(self._order):
            bucket, k = self._order[self._next]
            if bucket.missing[k]:
                break
            self._sum.start(self._next)
            self._next += 1

    def _finish(self):
        """The backward has ended: the rest of the parameters, then wait for every bucket."""
        missing = [p for bucket in self.buckets for p, ready in zip(bucket.params,
                                                                      bucket.ready)
                   if not ready]
        if missing and not self.find_unused:
            self.state = "idle"
            self._sum.abandon()
            self._unstage()
            names = ", ".join(repr(p.name) for p in missing[:5])
            more = " and %d more" % (len(missing) - 5) if len(missing) > 5 else ""
            raise RuntimeError(
                "DataParallel: parameter%s %s%s received no gradient in this backward (not "
                "used to compute the loss); the other ranks would wait for it forever. "
                "Construct paddle.DataParallel(..., find_unused_parameters=True) to average "
                "zeros for the parameters a step does not use"
                % ("s" if len(missing) > 1 else "", names, more))
        since = _clocks()
        for p in missing:
            self._mark(p)
        averaged = self._sum.finish()
        self._unstage()
        for bucket, array in zip(self.buckets, averaged):
            bucket.scatter_back(array)
        self._account("wait", since)
        self.state = "idle"

    def _unstage(self):
        """Drop this step's references to the buckets' arrays (a bucket's flat array is
        reused only while nothing else holds it)."""
        for bucket in self.buckets:
            bucket.staging = None


def _clocks():
    return time.perf_counter(), time.process_time()


def _wall_clocks():
    """_clocks for a stretch that does not block: its CPU time is its wall time."""
    now = time.perf_counter()
    return now, now


def _unreached(where, outputs):
    """The parameters (of `where`) that no output's gradient can reach."""
    reached, seen = set(), set()
    stack = [t._node for t in _tensors(outputs) if t._node is not None]
    reached.update(id(t) for t in _tensors(outputs) if t._node is None)
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        for e in node.flat_edges:
            if type(e) is tuple:
                stack.append(e[0])
            elif e is not None:
                reached.add(id(e))
    return [bucket.params[j] for key, (bucket, j) in where.items() if key not in reached]


def _tensors(outputs):
    if isinstance(outputs, Tensor):
        yield outputs
    elif isinstance(outputs, (list, tuple)):
        for o in outputs:
            yield from _tensors(o)
    elif isinstance(outputs, dict):
        for o in outputs.values():
            yield from _tensors(o)
