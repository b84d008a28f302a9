"""paddle.fluid.backward: append_backward and gradients, and the program walks Paddle 1.8
keeps here and its own tests call (specs/backward.md#fluid-1-8-helpers)."""
import re

from .. import versions
from ..backward import _has_grad, append_backward, gradients, calc_gradient
from ..framework.program import GRAD_SUFFIX, Parameter, Program, Variable, program_guard
from ..optimizer import Optimizer

__all__ = ["append_backward", "gradients", "calc_gradient", "gradients_with_optimizer"]


def _append_grad_suffix_(name):
    """x -> x@GRAD"""
    return name + GRAD_SUFFIX


def _as_list(x):
    """None -> [], a list or tuple -> a list of its items, anything else -> [x]."""
    if x is None:
        return []
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _strip_grad_suffix_(name):
    """x@GRAD -> x, y@GRAD@RENAME@1 -> y: everything from the first @GRAD (1.8, 2.0), or
    (switch strip_grad_suffix, 3.3.1) from the first @GRAD that ends the name or is
    followed by '@' (x@GRAD_slice_0@GRAD -> x@GRAD_slice_0), and the 'grad/' scopes
    before the name (grad/grad/x@GRAD -> x)."""
    if versions.switch("strip_grad_suffix") == "first":
        pos = name.find(GRAD_SUFFIX)
        return name if pos == -1 else name[:pos]
    found = re.search(re.escape(GRAD_SUFFIX) + "(@|$)", name)
    stripped = name if found is None else name[:found.start()]
    return stripped[stripped.rfind("grad/") + len("grad/"):] if "grad/" in stripped \
        else stripped


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


def gradients_with_optimizer(program, optimizer, inputs=None, outputs=None):
    """Paddle 2.1 and later (paddle.autograd.backward_mode): the gradients of `outputs`
    w.r.t. `inputs` appended to `program` (by default the outputs are the variables its ops
    write and none reads, the inputs those they read and none writes), then `optimizer`'s
    updates of the Parameters among the inputs that got a gradient. Returns (the update
    ops, [(parameter, gradient)])."""
    if not isinstance(program, Program):
        raise TypeError("gradients_with_optimizer: program must be a Program, got %s"
                        % type(program).__name__)
    if not isinstance(optimizer, Optimizer):
        raise TypeError("gradients_with_optimizer: optimizer must be a paddle.optimizer "
                        "Optimizer, got %s" % type(optimizer).__name__)
    if inputs is None or outputs is None:
        read, written = {}, {}
        for block in program.blocks:
            for op in block.ops:
                for names, seen in ((op.input_arg_names, read), (op.output_arg_names, written)):
                    for name in names:
                        if name not in seen:
                            seen[name] = block.var(name)
        if inputs is None:
            inputs = [v for name, v in read.items() if name not in written]
        if outputs is None:
            outputs = [v for name, v in written.items() if name not in read]
    grads = gradients(outputs, inputs)
    with program_guard(program, None):
        params_grads = [(p, g) for p, g in zip(inputs, grads)
                        if isinstance(p, Parameter) and g is not None]
        return optimizer.apply_gradients(params_grads), params_grads
