"""DataParallel's gradient averaging: parameters in size-bounded buckets, each bucket's
allreduce started as soon as all its gradients are ready during backward, every bucket
waited for when that backward ends (specs/distributed.md#dataparallel).

Buckets: the trainable parameters in the layer's order, grouped by dtype; a group closes
once it holds `limits[0]` bytes (the first, last_comm_buffer_size), later groups
`limits[1]` (comm_buffer_size); groups ordered by their first parameter, then reversed --
the last layers' gradients come first in backward, and the small group holding the first
layers' is the one left to average after backward. Buckets start in that order only (a
complete bucket waits for the earlier ones), so every rank makes the same calls in the
same order whatever order its gradients come in.

A step: DataParallel's forward `prepare`s (noting, with find_unused_parameters, the
parameters the outputs do not depend on); each parameter's ready hook (autograd's
register_ready_hook: its .grad holds this backward's gradient) writes .grad divided by
the world size into its bucket's flat array (one pass; the array is kept from step to
step); a complete bucket's sum is started (World.start_allreduce: MPI Iallreduce, so it
overlaps the rest of backward; each hook lets the ones in flight progress). When the backward ends (autograd.queue_callback) the
parameters still without a gradient are marked ready with their gradient so far (zeros
if none) under find_unused_parameters, else they are an error naming them; then every
bucket is waited for and each .grad becomes its part of the averaged bucket.
"""
import sys
import time

import numpy as np

from ..dygraph import autograd
from ..dygraph.tensor import Tensor

__all__ = ["Reducer", "assign_buckets"]

MB = 1 << 20


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


class _Bucket:
    """Parameters whose gradients travel in one flat array."""

    def __init__(self, params):
        self.params = params
        self.dtype = params[0]._array().dtype
        self.offsets = np.cumsum([0] + [p._array().size for p in params]).tolist()
        self.flat = None
        self.reset()

    def reset(self):
        # The flat array is reused from step to step (the fresh pages of a new one cost
        # more than the copy into them) unless a view of it is still alive -- a gradient
        # of the last step that someone kept, which must keep its values.
        self.pending = None
        if self.flat is None or sys.getrefcount(self.flat) > 2:   # 2: self.flat, the call
            self.flat = np.empty(self.offsets[-1], self.dtype)
        self.ready = [False] * len(self.params)
        self.count = 0

    def put(self, index, grad, ranks):
        """Parameter `index`'s gradient (None: zeros) divided by `ranks` into the flat
        array (one pass: the copy is the division); whether the bucket is complete."""
        part = self.flat[self.offsets[index]:self.offsets[index + 1]]
        if grad is None:
            part.fill(0)
        else:
            np.divide(grad.reshape(-1), ranks, out=part, casting="same_kind")
        self.ready[index] = True
        self.count += 1
        return self.count == len(self.params)

    def scatter_back(self):
        """Each parameter's .grad: its part of the averaged flat array."""
        for p, start, end in zip(self.params, self.offsets, self.offsets[1:]):
            p._grad = self.flat[start:end].reshape(p._array().shape)
            p._zeroed = False


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
        self._handles = [autograd.register_ready_hook(p, self._on_ready) for p in params]
        self.state = "idle"    # idle | armed (a synchronized step) | local (no_sync)
        self._unused = ()
        self._started = False
        self.wait_seconds = 0.0   # spent waiting for the buckets' sums after backward

    def remove(self):
        for h in self._handles:
            h.remove()

    # -- a step ------------------------------------------------------------------------
    def prepare(self, outputs):
        """A synchronized forward ran: arm the buckets for its backward."""
        for bucket in self.buckets:
            bucket.reset()
        self._next = 0           # the next bucket to start
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
            for p in self._unused:
                self._mark(p)
        self._mark(param)
        self.world.progress()

    def _mark(self, param):
        bucket, index = self._where[id(param)]
        if bucket.ready[index]:
            raise RuntimeError("DataParallel: parameter %r was marked ready twice in one "
                               "backward" % param.name)
        if bucket.put(index, param.gradient(), self.world.size):
            while self._next < len(self.buckets) and \
                    self.buckets[self._next].count == len(self.buckets[self._next].params):
                self._start(self.buckets[self._next])
                self._next += 1

    def _start(self, bucket):
        bucket.pending = self.world.start_allreduce(bucket.flat)

    def _finish(self):
        """The backward has ended: the rest of the parameters, then wait for every bucket."""
        missing = [p for bucket in self.buckets for p, ready in zip(bucket.params,
                                                                      bucket.ready)
                   if not ready]
        if missing and not self.find_unused:
            self.state = "idle"
            names = ", ".join(repr(p.name) for p in missing[:5])
            more = " and %d more" % (len(missing) - 5) if len(missing) > 5 else ""
            raise RuntimeError(
                "DataParallel: parameter%s %s%s received no gradient in this backward (not "
                "used to compute the loss); the other ranks would wait for it forever. "
                "Construct paddle.DataParallel(..., find_unused_parameters=True) to average "
                "zeros for the parameters a step does not use"
                % ("s" if len(missing) > 1 else "", names, more))
        for p in missing:
            self._mark(p)
        began = time.perf_counter()
        for bucket in self.buckets:
            bucket.pending.wait()
            bucket.pending = None
            bucket.scatter_back()
        self.world.progress()      # forgets the completed requests (and their buffers)
        self.wait_seconds += time.perf_counter() - began
        self.state = "idle"


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
