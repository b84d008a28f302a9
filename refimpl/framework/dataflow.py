"""Data flow across blocks: which names of the enclosing blocks a sub-block reads and
writes. Control-flow layers list them in their ops' slots (so the enclosing plan frees
values at the right time and backward sees the data flow); control-flow ops keep them alive
in their nested plans."""

__all__ = ["block_io", "outer_names"]


def _local_names(blocks):
    return {n for b in blocks for n in b.vars}


def block_io(block):
    """(reads, writes): names from enclosing blocks that `block`'s ops read and write, in
    first-use order. Nested control ops list their own sub-block's outside names in their
    slots, so one level is enough."""
    local = set(block.vars)
    reads, writes = [], []
    for op in block.ops:
        for n in op.input_arg_names:
            if n not in local and n not in reads:
                reads.append(n)
        for n in op.output_arg_names:
            if n not in local and n not in writes:
                writes.append(n)
    return reads, writes


def outer_names(ops, blocks):
    """Every name `ops` touch that is not local to `blocks`: what a nested plan must keep."""
    local = _local_names(blocks)
    return {n for op in ops for n in op.input_arg_names + op.output_arg_names
            if n not in local}
