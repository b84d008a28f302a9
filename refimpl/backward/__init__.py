"""Reverse-mode autodiff over a Program: append_backward and gradients.

Walks the forward ops that lead to the targets in reverse and appends each op's
"<type>_grad" op. Naming follows Paddle: the gradient of `x` is `x@GRAD`; when `x`
feeds several ops, each contribution is written to `x@GRAD@RENAME@block0@k` and a
`sum` op adds them into `x@GRAD` as soon as the last contribution exists.
"""
from ..framework.desc import GENERATED_ATTR_TYPES
from ..framework.program import (EMPTY_VAR_NAME, GRAD_SUFFIX, OpRole, Parameter, Variable,
                                grad_var_name)
from ..ops.registry import differentiable_grad_op, slot_name
from . import double_grad    # noqa: F401  (installs the kernel of <type>_grad_grad ops)

__all__ = ["append_backward", "gradients", "calc_gradient"]


def _names_of(items, what=None):
    """The names of a collection of Variables / names; with `what` (the argument's name)
    anything else is a TypeError, as Paddle checks no_grad_set and parameter_list."""
    if items is None:
        return set()
    if what is not None and not isinstance(items, (set, list, tuple)):
        raise TypeError("The type of %s should be set or list or tuple, but received %s"
                        % (what, type(items).__name__))
    out = set()
    for v in items:
        if isinstance(v, Variable):
            out.add(v.name)
        elif isinstance(v, str) or what is None:
            out.add(v)
        else:
            raise TypeError("The type of %s's member must be Variable or str, but received "
                            "%s" % (what, type(v).__name__))
    return out


def _has_grad(op):
    """Whether `op` passes gradients back: a registered grad op, a control-flow op whose
    grad op (with its sub-block) _control_grad_attrs builds, or a grad op (gradients of
    gradients: its "<type>_grad_grad", backward/double_grad.py)."""
    return op.op_def.has_grad() or getattr(op.op_def, "control_grad", False) or \
        differentiable_grad_op(op.op_def)


def _is_array(block, name):
    v = block._find_var_recursive(name)
    return v is not None and v.type == "LOD_TENSOR_ARRAY"


def _rewritten(op):
    """Names `op` reads and writes (in place: a while op's loop variables)."""
    return set(op.input_arg_names).intersection(op.output_arg_names)


def _ops_on_path(ops, target_names):
    """Forward ops whose outputs (transitively) reach the targets, in program order. An op
    without a gradient (less_than, argmax) passes none back: what only feeds it is off the
    path, so no grad op waits for a gradient that never comes."""
    needed = set(target_names)
    path = []
    for op in reversed(ops):
        if needed.intersection(op.output_arg_names):
            path.append(op)
            if _has_grad(op):
                needed.update(op.input_arg_names)
    path.reverse()
    return path


def _receiving_grad(path, targets, no_grad):
    """Names a gradient from the targets reaches: back through the ops that pass
    gradients, not through their no-grad slots (a label) nor a no_grad name."""
    reached = set(targets)
    for op in reversed(path):
        if not (_has_grad(op) and reached.intersection(op.output_arg_names)):
            continue
        for slot, names in op.inputs.items():
            if slot not in op.op_def.no_grad:
                reached.update(n for n in names if n not in no_grad)
    return reached


def _requiring_grad(block, path, targets, no_grad):
    """Names of the variables that get a gradient: those a gradient from the targets
    reaches that are not in no_grad and either an input of an op on the path with
    stop_gradient False (a computed one: of a floating dtype), or produced from
    something that requires a gradient. As in Paddle, a computed variable gets its
    gradient even when nothing before it needs one (`a = 2 * data`: a@GRAD exists,
    data@GRAD does not)."""
    produced = {n for op in path for n in op.output_arg_names}
    requires = set()
    for op in path:
        for n in op.input_arg_names:
            if n in no_grad:
                continue
            v = block._find_var_recursive(n)
            if v is None or v.stop_gradient or n in produced and \
                    not (v.dtype is not None and v.dtype.name.startswith("float")):
                continue
            requires.add(n)
        if _has_grad(op) and requires.intersection(op.input_arg_names):
            requires.update(n for n in op.output_arg_names if n not in no_grad)
    return requires & _receiving_grad(path, targets, no_grad)


def _differentiable_inputs(op, requires):
    """(slot, index, name) of the op's inputs that receive a gradient from it (not its
    no_grad slots, nor those it reads only for their LoD)."""
    no_grad_slots = set(op.op_def.no_grad) | set(op.op_def.lod_only)
    found = []
    for slot, names in op.inputs.items():
        if slot in no_grad_slots:
            continue
        for i, n in enumerate(names):
            if n in requires:
                found.append((slot, i, n))
    return found


def _is_output_grad(op, slot):
    """Whether grad-op input `slot` is the gradient of one of `op`'s outputs ("Out@GRAD";
    a grad op's own input "Out@GRAD" is a value it reads, its gradient slot is
    "X@GRAD@GRAD")."""
    return slot.endswith(GRAD_SUFFIX) and (slot[:-len(GRAD_SUFFIX)] in op.outputs or
                                           slot[:-len(GRAD_SUFFIX)] in op.op_def.output_slots)


def forward_reads(op):
    """{slot: forward names} that the grad op of `op` reads besides gradients (its forward
    inputs and outputs named in grad_inputs)."""
    reads = {}
    for s in op.op_def.grad_input_slots():
        slot = slot_name(s)
        if _is_output_grad(op, slot):
            continue
        if slot in op.inputs:
            reads[slot] = op.inputs[slot]
        elif slot in op.outputs:
            reads[slot] = op.outputs[slot]
    return reads


def _backward_ops(block, path, requires, initial_grads, before_grad_op=None):
    """Append the grad ops for `path` (reversed) to `block`; return var -> grad name.

    `before_grad_op(op) -> {forward name: name to read instead}` is called before each
    grad op is appended (RecomputeOptimizer re-emits forward segments there)."""
    contributions = {}
    # An op none of whose outputs carries a gradient (all stop_gradient, e.g. built under
    # paddle.no_grad) passes nothing back: it gets no grad op.
    grad_ops = [op for op in path
                if _has_grad(op) and _differentiable_inputs(op, requires)
                and any(n in requires or n in initial_grads for n in op.output_arg_names)]
    # A name an op both reads and writes (a while op's loop variables) holds one value
    # before that op and another after: gradients are counted per version of a name.
    version = {}
    arrays = {n for op in grad_ops for _, _, n in _differentiable_inputs(op, requires)
              if _is_array(block, n)}
    for op in grad_ops:
        for _, _, n in _differentiable_inputs(op, requires):
            if n in arrays:
                continue
            key = (n, version.get(n, 0))
            contributions[key] = contributions.get(key, 0) + 1
        for n in _rewritten(op):
            version[n] = version.get(n, 0) + 1
    grad_of = dict(initial_grads)   # forward var -> its complete gradient's name
    partial = {}                    # (forward var, version) -> partial gradient names so far
    array_parts = {}                # array -> how many contributions were renamed
    # From the second backward pass of a program on, a gradient whose name an earlier pass
    # made gets 'grad/' once per pass in front, as in Paddle ('grad/grad/x@GRAD'), so
    # gradients of gradients leave the first gradients alone.
    earlier = set(block.vars) if block.program._appending_grad_times > 1 else set()
    prefix = "grad/" * block.program._appending_grad_times

    def grad_var(name, grad_name):
        if grad_name in earlier:
            grad_name = prefix + grad_name
        fwd = block._find_var_recursive(name)
        if not block.has_var(grad_name):
            block.create_var(name=grad_name, shape=fwd.shape, dtype=fwd.dtype, type=fwd.type)
        return grad_name

    grad_set = set(map(id, grad_ops))
    undone = _counters_to_undo(path, grad_ops)
    for op in reversed(path):
        if id(op) in undone:
            _append_undo(block, op)
        if id(op) not in grad_set:
            continue
        op_def = op.op_def
        renamed = before_grad_op(op) if before_grad_op is not None else {}
        inputs = {}
        reads = forward_reads(op)
        for s in op_def.grad_input_slots():
            slot = slot_name(s)
            if _is_output_grad(op, slot):
                fwd_slot = slot[:-len(GRAD_SUFFIX)]
                names = [grad_of.get(n) for n in op.outputs.get(fwd_slot, [])]
                if any(names):
                    inputs[slot] = [n or _zeros_like(block, m)
                                    for n, m in zip(names, op.outputs[fwd_slot])]
            elif slot in reads:
                inputs[slot] = [renamed.get(n, n) for n in reads[slot]]
        for n in _rewritten(op):    # the newer version's gradient is consumed here
            version[n] -= 1
            grad_of.pop(n, None)
        outputs = {}
        finished = []
        added = []      # (array, its running gradient, this op's contribution)
        for slot, i, n in _differentiable_inputs(op, requires):
            # Inputs of a duplicable slot that get no gradient are written to @EMPTY@.
            names = outputs.setdefault(slot + GRAD_SUFFIX,
                                       [EMPTY_VAR_NAME] * len(op.inputs[slot]))
            key = (n, version.get(n, 0))
            if n in arrays:
                # An array's gradient is a running sum, complete at each point of the
                # reversed walk: a write_to_array earlier in the program reads what the
                # reads after it gave, whatever reads before it give later.
                if n in grad_of:
                    k = array_parts[n] = array_parts.get(n, -1) + 1
                    names[i] = grad_var(n, "%s@RENAME@block%d@array%d"
                                        % (grad_var_name(n), block.idx, k))
                    added.append((n, grad_of[n], names[i]))
                else:
                    names[i] = grad_of[n] = grad_var(n, grad_var_name(n))
            elif contributions[key] == 1:
                names[i] = grad_var(n, grad_var_name(n))
                grad_of[n] = names[i]
                finished.append(key)
            else:
                k = len(partial.setdefault(key, []))
                names[i] = grad_var(n, "%s@RENAME@block%d@%d" % (grad_var_name(n), block.idx, k))
                partial[key].append(names[i])
                if len(partial[key]) == contributions[key]:
                    finished.append(key)
        role_vars = _role_vars(block, [n for n, _ in finished])
        # as Paddle's grad op makers: every attribute of the forward op but the framework's
        # own (Paddle's grad kernels read the inert ones, softmax_grad its use_cudnn)
        attrs = {k: v for k, v in op.attrs.items() if k not in GENERATED_ATTR_TYPES}
        attrs["op_role"] = OpRole.Backward
        attrs["op_role_var"] = role_vars if role_vars else []
        attrs["op_callstack"] = op.attrs.get("op_callstack", "")
        # a grad op runs where its forward op was placed (Paddle's backward copies it)
        attrs["op_device"] = op.attrs.get("op_device", "")
        if getattr(op_def, "control_grad", False):
            attrs.update(_control_grad_attrs(block, op, requires))
        grad_type, inputs, outputs, attrs = op_def.static_grad_op(inputs, outputs, attrs)
        block.append_op(type=grad_type, inputs=inputs, outputs=outputs, attrs=attrs)
        for n, running, part in added:
            total = grad_var(n, grad_var_name(n))
            block.append_op(type="sum", inputs={"X": [running, part]},
                            outputs={"Out": [total]}, attrs={"op_role": OpRole.Backward})
            grad_of[n] = total
        for key in finished:
            if key in partial:
                n = key[0]
                total = grad_var(n, grad_var_name(n))
                block.append_op(type="sum", inputs={"X": partial.pop(key)},
                                outputs={"Out": [total]},
                                attrs={"op_role": OpRole.Backward,
                                       "op_role_var": _role_vars(block, [n])})
                grad_of[n] = total
    return grad_of


def _counters_to_undo(path, grad_ops):
    """The in-place increments (`increment(i)` writing i) on the path whose counter a grad
    op of an earlier op reads (array_read(arr, i) then increment(i): the read's grad op
    needs the index it read). Backward undoes each, as Paddle 1.8's increment grad op does,
    so those grad ops see the earlier value. Only a counter of the op's own block: one a
    while body writes outside is restored by while_grad's replay instead."""
    readers = {}    # name -> positions in path of grad ops reading its forward value
    position = {id(op): k for k, op in enumerate(path)}
    for op in grad_ops:
        for names in forward_reads(op).values():
            for n in names:
                readers.setdefault(n, []).append(position[id(op)])
    undone = set()
    for k, op in enumerate(path):
        if op.type != "increment" or op.input("X") != op.output("Out"):
            continue
        n = op.input("X")[0]
        if n in op.block.vars and any(r < k for r in readers.get(n, ())):
            undone.add(id(op))
    return undone


def _append_undo(block, op):
    n = op.input("X")[0]
    block.append_op(type="increment", inputs={"X": [n]}, outputs={"Out": [n]},
                    attrs={"step": -op.attrs["step"], "op_role": OpRole.Backward})


def _control_grad_attrs(block, op, requires):
    """The sub-block of a control-flow op's grad op (specs/control_flow.md): a new block,
    child of the forward sub-block (so its ops see the forward names), holding the grad
    ops of the forward sub-block's ops. Its own names get a per-block suffix so they never
    meet the enclosing blocks' gradients in the one dict of values. Returns the grad op's
    attrs: sub_block, and the block's names for each Out's and each input's gradient."""
    program = block.program
    fwd = program.block(op.attrs["sub_block"])
    outs = op.output("Out")
    xs = op.input("Input" if op.type == "conditional_block" else "X")
    current = program._current_block_idx
    grad_block = program._create_block(parent_idx=fwd.idx)
    program._current_block_idx = current
    initial = {}
    for o in outs:
        v = fwd._find_var_recursive(o)
        initial[o] = grad_block.create_var(name=grad_var_name(o), shape=v.shape,
                                           dtype=v.dtype).name
    path = _ops_on_path(list(fwd.ops), outs)
    inner_requires = {n for n in xs if n in requires}
    for inner in path:
        if _has_grad(inner) and inner_requires.intersection(inner.input_arg_names):
            inner_requires.update(inner.output_arg_names)
    with program._role_guard(OpRole.Backward):
        grad_of = _backward_ops(grad_block, path, inner_requires, initial)
    differentiated = {n for inner in path if _has_grad(inner)
                      for _, _, n in _differentiable_inputs(inner, inner_requires)}
    renamed = {}
    for name in list(grad_block.vars):
        renamed[name] = "%s@B%d" % (name, grad_block.idx)
        grad_block._rename_var(name, renamed[name])
    return {"sub_block": grad_block.idx,
            "out_grad_names": [renamed[initial[o]] for o in outs],
            "in_grad_names": [renamed.get(grad_of[x], grad_of[x])
                              if x in differentiated and x in grad_of else "" for x in xs]}


def _role_vars(block, names):
    """[param, param@GRAD, ...] of the parameters among `names`, the last made first: Paddle's
    append_backward puts each parameter's pair, in parameter order, before the others', on
    global-block ops only (a While body's grad ops have none, its while_grad all)."""
    if block.parent_idx != -1:
        return []
    made = {name: i for i, name in enumerate(block.program.global_block().vars)}
    params = [n for n in names if isinstance(block._find_var_recursive(n), Parameter)]
    pairs = []
    for n in sorted(params, key=lambda n: -made.get(n, -1)):
        pairs += [n, grad_var_name(n)]
    return pairs


def _zeros_like(block, name):
    """A zero gradient for an output nobody differentiated (e.g. an unused split piece)."""
    fwd = block._find_var_recursive(name)
    zname = grad_var_name(name) + "@ZERO"
    if not block.has_var(zname):
        block.create_var(name=zname, shape=fwd.shape, dtype=fwd.dtype)
        block.append_op(type="fill_zeros_like", inputs={"X": [name]}, outputs={"Out": [zname]},
                        attrs={"op_role": OpRole.Backward})
    return zname


def _fill_ones_grad(block, target, role):
    g = grad_var_name(target.name)
    # placed where the loss is made (Paddle's loss grad op takes the loss op's op_device)
    maker = getattr(target, "op", None)
    device = maker.attrs.get("op_device", "") if maker is not None else ""
    block.create_var(name=g, shape=target.shape, dtype=target.dtype)
    if all(d >= 0 for d in target.shape):
        block.append_op(type="fill_constant", outputs={"Out": [g]},
                        attrs={"shape": list(target.shape), "value": 1.0,
                               "dtype": target.dtype.name, "op_role": role,
                               "op_device": device})
    else:
        block.append_op(type="fill_any_like", inputs={"X": [target.name]}, outputs={"Out": [g]},
                        attrs={"value": 1.0, "op_role": role, "op_device": device})
    return g


def _no_grad_names(blocks, no_grad_set):
    """The names no gradient flows to: no_grad_set's (checked once) and the stop_gradient
    variables of `blocks`."""
    names = _names_of(no_grad_set, "no_grad_set")
    for block in blocks:
        names.update(n for n, v in block.vars.items() if v.stop_gradient)
    return names


def _enclosing_blocks(block):
    """`block` and the blocks holding it, outermost first."""
    chain = []
    while block is not None:
        chain.insert(0, block)
        block = block.parent_block
    return chain


def backward_with_hook(loss, parameter_list, no_grad_set, before_grad_op):
    """append_backward's body with a `before_grad_op` hook (see _backward_ops).

    Called inside a control-flow block (a cond / case branch: the program's current block
    is not the global one), the backward goes there, as Paddle 1.8's: the grad ops of the
    ops on the path to the loss, in that block and in the blocks holding it, are appended
    to it, so they (and the optimizer's update ops, Optimizer._block) run when the branch
    runs, after its forward ops."""
    program = loss.block.program
    block = program.current_block()
    chain = _enclosing_blocks(block)
    forward_ops = [op for b in chain for op in b.ops]
    for op in forward_ops:
        if loss.name in op.output_arg_names:
            op.attrs["op_role"] = op.attrs.get("op_role", 0) | OpRole.Loss
    program._appending_grad_times += 1
    no_grad = _no_grad_names(chain, no_grad_set)
    path = _ops_on_path(forward_ops, [loss.name])
    requires = _requiring_grad(block, path, [loss.name], no_grad)
    with program._role_guard(OpRole.Backward):
        loss_grad = _fill_ones_grad(block, loss, OpRole.Backward | OpRole.Loss)
        grad_of = _backward_ops(block, path, requires, {loss.name: loss_grad}, before_grad_op)
    return [(p, block.var(grad_of[p.name]))
            for p in _parameters(program.global_block(), parameter_list)
            if p.name in grad_of]


def append_backward(loss, parameter_list=None, no_grad_set=None, callbacks=None,
                    checkpoints=None):
    """Append the backward pass of `loss`; return [(param, param@GRAD)] in param order.

    `checkpoints` delegates to the recompute builder (RecomputeOptimizer)."""
    if not isinstance(loss, Variable):
        raise TypeError("append_backward: loss must be a Variable, got %s" % type(loss).__name__)
    if checkpoints:
        from .recompute import append_backward_with_checkpoints
        result = append_backward_with_checkpoints(loss, parameter_list, no_grad_set, checkpoints)
    else:
        result = backward_with_hook(loss, parameter_list, no_grad_set, None)
    for cb in callbacks or ():
        cb(block=loss.block.program.global_block(), context={})
    return result


def _parameters(block, parameter_list):
    """The trainable parameters, or the variables parameter_list names in its order: as in
    Paddle 1.8.5, any variable of the block (an intermediate one gets its gradient too)."""
    if parameter_list is None:
        return [p for p in block.all_parameters() if p.trainable]
    _names_of(parameter_list, "parameter_list")
    names = [v.name if isinstance(v, Variable) else v for v in parameter_list]
    return [v for v in (block.vars.get(n) for n in dict.fromkeys(names))
            if v is not None and getattr(v, "trainable", True)]


def calc_gradient(targets, inputs, target_gradients=None, no_grad_set=None):
    """Gradients of sum(targets) w.r.t. each input; None where an input does not reach. One
    gradient for one input (not in a list), as Paddle's calc_gradient."""
    targets = targets if isinstance(targets, (list, tuple)) else [targets]
    single = not isinstance(inputs, (list, tuple))
    inputs = [inputs] if single else list(inputs)
    block = targets[0].block.program.global_block()
    program = block.program
    program._appending_grad_times += 1
    no_grad = _no_grad_names([block], no_grad_set) - _names_of(inputs)
    target_names = [t.name for t in targets]
    path = _ops_on_path(list(block.ops), target_names)
    requires = _requiring_grad(block, path, target_names, no_grad)
    requires.update(v.name for v in inputs)
    # Forward-propagate again so ops fed by a stop_gradient input that the user asked
    # about (e.g. a data var) are differentiated.
    for op in path:
        if _has_grad(op) and requires.intersection(op.input_arg_names):
            requires.update(n for n in op.output_arg_names if n not in no_grad)
    requires &= _receiving_grad(path, target_names, no_grad) | {v.name for v in inputs}
    if target_gradients is None:
        target_gradients = [None] * len(targets)
    elif not isinstance(target_gradients, (list, tuple)):
        target_gradients = [target_gradients]       # one target's gradient, as in Paddle
    if len(target_gradients) != len(targets):
        raise ValueError("calc_gradient: %d target_gradients for %d targets; give one "
                         "gradient (or None) per target" % (len(target_gradients),
                                                            len(targets)))
    with program._role_guard(OpRole.Backward):
        initial = {}
        for t, tg in zip(targets, target_gradients):
            initial[t.name] = tg.name if tg is not None else _fill_ones_grad(block, t,
                                                                              OpRole.Backward)
        grad_of = _backward_ops(block, path, requires, initial)
    grads = [block.var(grad_of[v.name]) if v.name in grad_of else None for v in inputs]
    return grads[0] if single else grads


def gradients(targets, inputs, target_gradients=None, no_grad_set=None):
    """calc_gradient's gradients, always as a list (Paddle's fluid / static.gradients)."""
    for what, value, types in (("targets", targets, (Variable, list, tuple)),
                               ("inputs", inputs, (Variable, list, tuple)),
                               ("target_gradients", target_gradients,
                                (Variable, list, tuple, type(None)))):
        if not isinstance(value, types):
            raise TypeError("The type of '%s' in fluid.backward.gradients must be %s, but "
                            "received %s" % (what, " or ".join(t.__name__ for t in types),
                                             type(value).__name__))
    grads = calc_gradient(targets, inputs, target_gradients, no_grad_set)
    return list(grads) if isinstance(grads, list) else [grads]
