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
    """`ops` in the order to run them (a new list; the program is not changed).

    Each movable op goes right after the latest op it conflicts with (the first one met
    walking back from the end of the order so far), ahead of the ops placed there before
    it; the others go at the end. The order is kept as sort keys (tuples: an op placed
    after the op of key k gets k + (-j,) for the j-th op placed there), and the latest
    writer and reader of each variable as their keys, so placing an op costs one look-up
    per variable it touches instead of a walk back over the ops (SE-ResNeXt's 1395 ops
    and 231 updates: 355,000 conflict checks)."""
    keys = []            # per op, its sort key
    last_writer, last_reader = {}, {}
    last_barrier = None
    placed_after = {}    # key -> how many ops were placed right after it
    appended = 0
    for op in ops:
        reads, writes = op.input_arg_names, op.output_arg_names
        if _movable(op):
            anchor = max(_latest(last_writer, reads) + _latest(last_writer, writes)
                         + _latest(last_reader, writes)
                         + ([last_barrier] if last_barrier is not None else []),
                         default=())
            placed_after[anchor] = placed_after.get(anchor, 0) + 1
            key = anchor + (-placed_after[anchor],)
        else:
            key = (appended,)
            appended += 1
            if _barrier(op):
                last_barrier = key
        keys.append(key)
        for name in writes:
            last_writer[name] = max(last_writer.get(name, key), key)
        for name in reads:
            last_reader[name] = max(last_reader.get(name, key), key)
    return [op for _, op in sorted(zip(keys, ops), key=lambda pair: pair[0])]


def _latest(last, names):
    return [last[n] for n in names if n in last]


def _movable(op):
    return (op._is_optimize_op() and op.output_arg_names and "seed" not in op.attrs
            and not _barrier(op))


def _barrier(op):
    """Ops that stay where they are and that nothing moves above: sub-blocks (their reads
    and writes are not all listed) and collectives."""
    return isinstance(op.op_def, BlockOpDef) or talks_to_places(op)
