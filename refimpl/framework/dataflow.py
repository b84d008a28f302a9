"""Data flow across blocks: which names of the enclosing blocks a sub-block reads and
writes. Control-flow layers list them in their ops' slots (so the enclosing plan frees
values at the right time and backward sees the data flow); control-flow ops keep them alive
in their nested plans."""

__all__ = ["block_io", "outer_names", "append_conditional_block", "append_while"]


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


def append_conditional_block(parent, block, conditions, is_scalar_condition=True, scope=False):
    """A conditional_block op in `parent` running `block` when `conditions` hold (the one
    bool of conditions[0] when is_scalar_condition, else every one has an element), its
    slots the outside names the block reads and writes; `scope` adds the step-scope
    variable Paddle 1.8's ConditionalBlock names."""
    reads, writes = block_io(block)
    outputs = {"Out": writes}
    if scope:
        outputs["Scope"] = [parent.create_var(      # unnamed: _generated_var_N
            type="STEP_SCOPES", dtype=None, stop_gradient=True)]
    return parent.append_op(
        type="conditional_block", inputs={"Cond": list(conditions), "Input": reads},
        outputs=outputs, attrs={"sub_block": block.idx,
                                "is_scalar_condition": is_scalar_condition})


def append_while(parent, block, condition, is_test, steps_name=None):
    """A while op in `parent` running `block` while the bool `condition` (a name) holds, its
    slots the outside names the block reads and writes, and its step scopes (`steps_name`,
    else unnamed, as Paddle's While makes them: _generated_var_N)."""
    reads, writes = block_io(block)
    steps = parent.create_var(name=steps_name, type="STEP_SCOPES", dtype=None,
                              stop_gradient=True)
    return parent.append_op(type="while", inputs={"X": reads, "Condition": [condition]},
                            outputs={"Out": writes, "StepScopes": [steps]},
                            attrs={"sub_block": block.idx, "is_test": is_test})
