"""paddle.fluid.backward: append_backward and gradients, and the program walks Paddle 1.8
keeps here and its own tests call (specs/backward.md#fluid-1-8-helpers)."""
from ..backward import _has_grad, append_backward, gradients, calc_gradient
from ..framework.program import GRAD_SUFFIX, Variable

__all__ = ["append_backward", "gradients", "calc_gradient"]


def _append_grad_suffix_(name):
    """x -> x@GRAD"""
    return name + GRAD_SUFFIX


def _as_list(x):
    """None -> [], a list or tuple -> a list of its items, anything else -> [x]."""
    if x is None:
        return []
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _strip_grad_suffix_(name):
    """x@GRAD -> x, y@GRAD@RENAME@1 -> y (everything from the first @GRAD)."""
    pos = name.find(GRAD_SUFFIX)
    return name if pos == -1 else name[:pos]


def _get_stop_gradients_(program):
    """{block index: {name@GRAD of each stop_gradient variable of the block}}"""
    return {block.idx: {_append_grad_suffix_(v.name) for v in block.vars.values()
                        if v.stop_gradient}
            for block in program.blocks}


def _output_names(targets):
    return {t.name if isinstance(t, Variable) else t for t in targets}


def _find_op_path_(block, outputs, inputs, no_grad_set):
    """The ops of `block` that lead from `inputs` (every input when empty) to `outputs`,
    in program order. Only ops that pass gradients back count, and a name in no_grad_set
    stops the walk. With inputs, the stop_gradient inputs of the path's ops that the walk
    did not reach are added to no_grad_set."""
    no_grad_set = set() if no_grad_set is None else no_grad_set
    ops = list(block.ops)
    on_path = [_has_grad(op) for op in ops]
    reached = _output_names(inputs)
    if inputs:
        for i, op in enumerate(ops):
            if on_path[i] and reached.intersection(op.input_arg_names):
                reached.update(set(op.output_arg_names) - no_grad_set)
            else:
                on_path[i] = False
    wanted = _output_names(outputs)
    for i in reversed(range(len(ops))):
        if on_path[i] and wanted.intersection(ops[i].output_arg_names):
            wanted.update(set(ops[i].input_arg_names) - no_grad_set)
        else:
            on_path[i] = False
    path = [op for op, keep in zip(ops, on_path) if keep]
    if inputs:
        for op in path:
            no_grad_set.update(name for name in op.input_arg_names
                               if name not in reached and block.vars[name].stop_gradient)
    return path


def _find_no_grad_vars(block, op_path, targets, no_grad_set):
    """Outputs of `op_path`'s ops that nothing later on the path reads (nor the op itself),
    are not targets and are not stop_gradient: their gradients stay empty. Ops with a
    sub-block are not looked into."""
    wanted = _output_names(targets)
    unused = set()
    for op in reversed(op_path):
        if "sub_block" not in op.attrs:
            unused.update(name for name in op.output_arg_names
                          if name not in wanted and name not in op.input_arg_names
                          and not block.vars[name].stop_gradient)
        wanted.update(set(op.input_arg_names) - no_grad_set)
    return unused
