"""The order a Plan runs a block's ops in: the program's, but each optimize-phase op (the
parameter updates, and the regularization, clipping and learning-rate ops they read) moved
up to just after the last op it depends on.

Why: a parameter's gradient is final as soon as its last backward consumer has run, but
the program updates every parameter after the whole backward, so all gradients are alive
together at the end. Moving the update up frees each gradient as soon as it is made; for
ResNet-18 the largest gradients (layer 4's) are made first, while most activations are
still alive, which is the step's peak.

Only data dependencies decide: an op moves above another only when neither writes what
the other reads or writes, so every op reads the same values as in the program's order
and the results are the same. Ops that draw random numbers (a `seed` attribute), ops with
sub-blocks, and collectives (every place must run those in one order) keep their place."""
from ..framework.program import OpRole
from ..ops.registry import BlockOpDef
from .binding import talks_to_places


def with_updates_early(ops):
    """`ops` in the order to run them (a new list; the program is not changed)."""
    order = []
    for op in ops:
        position = len(order)
        if _movable(op):
            reads, writes = set(op.input_arg_names), set(op.output_arg_names)
            while position > 0 and not _conflict(order[position - 1], reads, writes):
                position -= 1
        order.insert(position, op)
    return order


def _movable(op):
    return (op.attrs.get("op_role", OpRole.Forward) & OpRole.Optimize
            and op.output_arg_names and not isinstance(op.op_def, BlockOpDef)
            and "seed" not in op.attrs and not talks_to_places(op))


def _conflict(other, reads, writes):
    """Whether `other` must stay before an op reading `reads` and writing `writes`."""
    other_writes = other.output_arg_names
    return (any(n in reads or n in writes for n in other_writes)
            or any(n in writes for n in other.input_arg_names)
            or not _movable_past(other))


def _movable_past(other):
    """Ops nothing moves above: sub-blocks (their reads and writes are not all listed) and
    collectives."""
    return not isinstance(other.op_def, BlockOpDef) and not talks_to_places(other)
