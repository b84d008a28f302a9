"""queue_generator: makes, in the scope, the blocking queue of each variable its `names`
attribute names (Paddle's LoDTensorBlockingQueueHolder, `capacity` tensors deep); enqueue
and dequeue then push and pop tensors through it. These ops work on the scope, not on
their inputs and outputs alone, so the executor runs them with it (`run_in_scope`; they
have no eager form). refimpl runs one program at a time on one thread: where Paddle would
wait (a push into a full queue, a pop from an empty one) for another thread, nothing could
come, so each is an error naming the queue. specs/fluid_misc.md#queues."""
import collections

import numpy as np

from .registry import OpDef, register

__all__ = ["TensorQueue", "scope_queue", "no_eager_form"]


class TensorQueue:
    """A queue of at most `capacity` arrays, held in the scope under `name`."""

    def __init__(self, name, capacity):
        self.name, self.capacity = name, capacity
        self._items = collections.deque()

    def push(self, array, op_type):
        if len(self._items) >= self.capacity:
            raise RuntimeError("%s: the queue %r is full (capacity %d): nothing else runs to "
                               "pop it (Paddle would wait for another thread)"
                               % (op_type, self.name, self.capacity))
        self._items.append(np.array(array, copy=True))

    def pop(self, op_type):
        if not self._items:
            raise RuntimeError("%s: the queue %r is empty: nothing else runs to push into it "
                               "(Paddle would wait for another thread)" % (op_type, self.name))
        return self._items.popleft()

    def __len__(self):
        return len(self._items)


def scope_queue(env, name, op_type):
    """The queue queue_generator made in the scope `env` under `name`."""
    queue = env.get(name)
    if not isinstance(queue, TensorQueue):
        raise RuntimeError("%s: no blocking queue named %r in the scope (run the program with "
                           "its queue_generator op first, e.g. the startup program)"
                           % (op_type, name))
    return queue


def no_eager_form(op_type):
    raise RuntimeError("%s works on the scope's queues: it runs only in a static program "
                       "(Executor.run), not eagerly" % op_type)


@register
class QueueGenerator(OpDef):
    type = "queue_generator"
    inputs = ()
    outputs = ()
    attrs = {"names": [], "capacity": 1}

    def infer_shape(self, ctx):
        ctx.expect(len(ctx.attr("names")) > 0, "the attribute 'names' must name at least one "
                   "queue variable")
        ctx.expect(ctx.attr("capacity") > 0, "the attribute 'capacity' must be positive, got "
                   "%d" % ctx.attr("capacity"))
        for name in ctx.attr("names"):
            ctx.expect(ctx.block._find_var_recursive(name) is not None,
                       "no variable %r is declared for the queue" % name)

    @staticmethod
    def forward(names=(), capacity=1):
        no_eager_form("queue_generator")

    @staticmethod
    def run_in_scope(op, env):
        for name in op.attrs["names"]:
            if isinstance(env.get(name), TensorQueue):    # Paddle's InitOnce
                raise RuntimeError("queue_generator: the queue %r already exists (its "
                                   "generator ran before in this scope)" % name)
            env[name] = TensorQueue(name, int(op.attrs["capacity"]))

    def samples(self, rng):
        return []
