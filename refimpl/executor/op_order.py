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
from ..ops.registry import BlockOpDef
from .binding import talks_to_places


def with_updates_early(ops):
    """`ops` in the order to run them (a new list; the program is not changed)."""
    order = []   # (op, its reads, its writes, whether nothing may move above it)
    for op in ops:
        reads, writes = set(op.input_arg_names), set(op.output_arg_names)
        position = len(order)
        if _movable(op):
            while position > 0 and not _conflict(order[position - 1], reads, writes):
                position -= 1
        order.insert(position, (op, reads, writes, _barrier(op)))
    return [entry[0] for entry in order]


def _movable(op):
    return (op._is_optimize_op() and op.output_arg_names and "seed" not in op.attrs
            and not _barrier(op))


def _barrier(op):
    """Ops that stay where they are and that nothing moves above: sub-blocks (their reads
    and writes are not all listed) and collectives."""
    return isinstance(op.op_def, BlockOpDef) or talks_to_places(op)


def _conflict(earlier, reads, writes):
    """Whether the op `earlier` describes must stay before an op reading `reads` and
    writing `writes`."""
    _, earlier_reads, earlier_writes, barrier = earlier
    return (barrier or not earlier_writes.isdisjoint(reads)
            or not earlier_writes.isdisjoint(writes) or not earlier_reads.isdisjoint(writes))
