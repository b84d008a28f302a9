"""Chain fusion: replace a producer op and its consumer(s) by one fused op (refimpl/ops/
fused.py). Intermediates used only inside the chain never reach the scope; one that a grad
op also reads (e.g. conv's Input) stays an output of the fused op, as Paddle's fused ops
save their intermediate outputs.

A chain [A, B, ...] of op types matches ops a, b, ... where each op reads an output of the
previous one. The fused op stands where the last member stood; it is skipped when that
would be wrong: an intermediate is protected (fetched, the loss) or read by another forward
op, or an op between the members reads a member's output or overwrites a member's input.
"""
from ...framework.program import EMPTY_VAR_NAME, OpRole

__all__ = ["fuse_chains", "fuse_ops"]


def _readers(block):
    readers = {}
    for i, op in enumerate(block.ops):
        for n in op.input_arg_names:
            readers.setdefault(n, set()).add(i)
    return readers


def _match(block, start, chain):
    """Indices of ops matching `chain` from block.ops[start], following data, or None."""
    ops = block.ops
    if ops[start].type not in chain[0]:
        return None
    members = [start]
    readers = _readers(block)
    for types in chain[1:]:
        prev = ops[members[-1]]
        nxt = sorted({j for n in prev.output_arg_names for j in readers.get(n, ())
                      if j > members[-1] and ops[j].type in types})
        if not nxt:
            return None
        members.append(nxt[0])
    return members


def _fusable(block, members, protected):
    ops = block.ops
    inside = set(members)
    produced = {n for i in members for n in ops[i].output_arg_names}
    # an intermediate is produced by one member and read by a later one; what a member
    # reads before the chain produced it (batch_norm's Mean -> MeanOut) is an input
    intermediates, made = set(), set()
    for i in members:
        intermediates.update(n for n in ops[i].input_arg_names if n in made)
        made.update(ops[i].output_arg_names)
    consumed = {n for i in members for n in ops[i].input_arg_names}
    readers = _readers(block)
    if intermediates & protected:
        return None
    for n in intermediates:
        if any(not ops[j].attrs.get("op_role", 0) & OpRole.Backward
               for j in readers.get(n, set()) - inside):
            return None
    first, last = members[0], members[-1]
    member_inputs = consumed - produced
    for j in range(first + 1, last):
        if j in inside:
            continue
        between = ops[j]
        if produced & set(between.input_arg_names) or \
                member_inputs & set(between.output_arg_names) or \
                produced & set(between.output_arg_names):
            return None
    # what grad ops still read is kept as an output of the fused op
    return {n for n in intermediates if not readers.get(n, set()) - inside}


def fuse_ops(block, members, intermediates, fused_type):
    """Replace ops[members] by one `fused_type` op at the last member's position."""
    ops = block.ops
    chain = [ops[i] for i in members]
    inputs, outputs, made = [], [], set()
    for op in chain:
        for n in op.input_arg_names:
            if n not in made and n not in inputs:
                inputs.append(n)
        made.update(op.output_arg_names)
        for n in op.output_arg_names:
            if n not in intermediates and n not in outputs and n != EMPTY_VAR_NAME:
                outputs.append(n)
    sub_ops = [(op.type, {k: list(v) for k, v in op.inputs.items()},
                {k: list(v) for k, v in op.outputs.items()},
                {k: v for k, v in op.attrs.items() if k in op.op_def.attrs}) for op in chain]
    last = chain[-1]
    attrs = {"sub_ops": sub_ops, "functor_list": [op.type for op in chain],
             "input_names": inputs, "output_names": outputs,
             "op_role": last.attrs.get("op_role", 0),
             "op_role_var": [v for op in chain for v in op.attrs.get("op_role_var", [])],
             "op_callstack": last.attrs.get("op_callstack", "")}
    position = members[-1]
    for i in sorted(members, reverse=True):
        block._remove_op(i)
    position -= len(members) - 1
    block._insert_op(position, type=fused_type, inputs={"X": inputs},
                     outputs={"Out": outputs}, attrs=attrs)
    for n in intermediates:
        if n in block.vars and not block.vars[n].persistable:
            block._remove_var(n)


def fuse_chains(program, chain, fused_type, protected, fused_type_for=None):
    """Fuse every match of `chain` (a list of sets of op types); return how many.
    `fused_type_for(members)` may pick a more specific type (e.g. a compiled kernel's)."""
    block = program.global_block()
    count = 0
    i = 0
    while i < len(block.ops):
        members = _match(block, i, chain)
        intermediates = _fusable(block, members, protected) if members else None
        if intermediates is not None:
            kind = fused_type_for([block.ops[m] for m in members]) if fused_type_for \
                else None
            fuse_ops(block, members, intermediates, kind or fused_type)
            count += 1
        i += 1
    return count
