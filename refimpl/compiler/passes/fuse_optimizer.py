"""fuse_all_optimizer_ops: the update ops of one optimizer type (sgd, momentum, adam, ...)
become one fused_optimizer op placed after the last of them. refimpl runs the member
updates back to back in that op (each in place); see specs/passes/fuse_optimizer.md for how
this differs from Paddle's single update over a coalesced buffer."""
from ..strategy import BuildStrategy
from .fuse_chain import fuse_ops

UPDATE_OPS = {"sgd", "momentum", "adam", "adamw", "rmsprop", "adagrad", "lamb"}


def apply(program, protected, strategy):
    if strategy.reduce_strategy == BuildStrategy.ReduceStrategy.Reduce:
        return 0   # Reduce keeps each parameter's update on its owner: nothing to fuse
    block = program.global_block()
    fused = 0
    for op_type in sorted(UPDATE_OPS):
        members = [i for i, op in enumerate(block.ops) if op.type == op_type]
        if len(members) < 2 or not _independent(block, members):
            continue
        fuse_ops(block, members, set(), "fused_optimizer")
        fused += 1
    return fused


def _independent(block, members):
    """Moving every update to the last one's position must not change what ops between
    them read: nothing between may read or write a member's outputs."""
    outputs = {n for i in members for n in block.ops[i].output_arg_names}
    inputs = {n for i in members for n in block.ops[i].input_arg_names}
    for j in range(members[0] + 1, members[-1]):
        if j in members:
            continue
        op = block.ops[j]
        if outputs & set(op.input_arg_names) or (outputs | inputs) & set(op.output_arg_names):
            return False
    return True
