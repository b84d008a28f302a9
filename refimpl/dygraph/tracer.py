"""The tracer: runs one op on eager Tensors now, with the same OpDef the static executor
runs (its compiled kernel or numpy reference), and records it for autograd when an input
needs a gradient.

Per op type the slot layout and the grad op's argument plan are worked out once
(`_Layout`); per (op type, dtype) the kernel (`select_kernel`). Build-time shape inference
runs once per signature (op type, attrs, input shapes and dtypes): its errors name the
op, the variable, expected vs got and the user's line, exactly as in static mode; after
that the kernel runs directly.
"""
import weakref

from ..framework.errors import OpError, user_frame
from ..framework.program import Program, Variable
from ..ops.registry import OpDef, SavedForGrad, get_op_def, is_duplicable, slot_name
from . import mode
from .tensor import Tensor

__all__ = ["run_op", "select_kernel", "GradNode"]


def select_kernel(op_def, attrs, dtype):
    """The one place the eager mode asks for a kernel (forward of `op_def`, which for a
    grad op is the registered backward)."""
    return op_def.kernel("forward", attrs, dtype)


class _Layout:
    """What the tracer needs to know about one op type, computed once."""

    def __init__(self, op_def):
        self.op_def = op_def
        self.type = op_def.type
        self.ins = [(slot_name(s), is_duplicable(s)) for s in op_def.inputs]
        self.outs = [(slot_name(s), is_duplicable(s)) for s in op_def.outputs]
        self.attr_items = list(op_def.attrs.items())
        self.single_out = len(self.outs) == 1
        # compiled kernels that depend on attrs only through the dtype: cached per dtype
        self.kernels = {} if type(op_def).fast_ok is OpDef.fast_ok else None
        grad = get_op_def(op_def.type + "_grad") if op_def.has_grad() else None
        self.grad_def = grad
        if grad is None:
            return
        in_pos = {name: i for i, (name, _) in enumerate(self.ins)}
        out_pos = {name: k for k, (name, _) in enumerate(self.outs)}
        plan = []   # per grad-op input: ("in", i) | ("out", k) | ("dout", k)
        for s in op_def.grad_input_slots():
            name = slot_name(s)
            if name.endswith("@GRAD"):
                plan.append(("dout", out_pos[name[:-len("@GRAD")]]))
            elif name in in_pos:
                plan.append(("in", in_pos[name]))
            else:
                plan.append(("out", out_pos[name]))
        self.grad_plan = plan
        self.saved_ins = sorted({i for kind, i in plan if kind == "in"})
        self.saved_outs = sorted({k for kind, k in plan if kind == "out"})
        # the forward input slots that receive a gradient, in the grad op's output order
        self.grad_targets = [i for i, (name, _) in enumerate(self.ins)
                             if name not in op_def.no_grad]
        self.partial = op_def.partial_grads
        self.saves = op_def.saves_for_grad


_LAYOUTS = {}


def layout(op_type):
    lay = _LAYOUTS.get(op_type)
    if lay is None:
        lay = _LAYOUTS[op_type] = _Layout(get_op_def(op_type))
    return lay


def _kernel(lay, kw, dtype):
    cache = lay.kernels
    if cache is None:
        return select_kernel(lay.op_def, kw, dtype)
    fn = cache.get(dtype)
    if fn is None:
        fn = cache[dtype] = select_kernel(lay.op_def, kw, dtype)
    return fn


class GradNode:
    """One recorded op: what its grad op reads (the forward values it saved), where each
    input's gradient goes (`edges`), and its outputs' shapes (to fill a gradient nobody
    produced with zeros)."""
    __slots__ = ("lay", "kw", "ins", "outs", "edges", "out_meta", "out_slots", "hooks",
                 "retained", "saved", "released", "__weakref__")

    def __init__(self, lay, kw, ins, outs, edges):
        self.lay, self.kw, self.ins, self.outs, self.edges = lay, kw, ins, outs, edges
        self.hooks = None       # {flat output index: [hook]}
        self.retained = None    # {flat output index: weakref of a tensor keeping its grad}
        self.saved = None
        self.released = False

    @property
    def type(self):
        return self.lay.type

    def release(self):
        """Free what the backward needed (backward without retain_graph)."""
        self.ins = self.outs = self.saved = None
        self.released = True


def _edge(t):
    """Where the gradient of input `t` goes: its producer (node, output index), or the
    leaf itself."""
    return t if t._node is None else (t._node, t._index)


def _static_error(lay, slot, v):
    return OpError(lay.type, "input %s %r is a static Variable of a Program while the "
                   "other inputs are eager Tensors: one operation takes either (build the "
                   "program in static mode, or pass Tensors)" % (slot, v.name), user_frame())


def _input_array(lay, slot, t):
    if type(t) is not Tensor and not isinstance(t, Tensor):
        if isinstance(t, Variable):
            raise _static_error(lay, slot, t)
        raise OpError(lay.type, "input %s must be a Tensor, got %s"
                      % (slot, type(t).__name__), user_frame())
    a = t._value
    if a is None:
        raise OpError(lay.type, "input %s %r holds no value" % (slot, t.name), user_frame())
    return a


def _hashable(v):
    return tuple(v) if type(v) is list else v


_checked = set()


def _check_signature(lay, kw, args, inputs, outputs):
    """Shape inference once per signature, for its errors (see the module doc)."""
    sig = [lay.type]
    for a in args:
        if a is None:
            sig.append(None)
        elif type(a) is list:
            sig.append(tuple((x.shape, x.dtype) for x in a))
        else:
            sig.append((a.shape, a.dtype))
    try:
        key = (tuple(sig), tuple(_hashable(v) for v in kw.values()))
        if key in _checked:
            return
    except TypeError:
        key = None
    _infer_once(lay, kw, inputs, outputs)
    if key is not None:
        if len(_checked) > 100000:
            _checked.clear()
        _checked.add(key)


def _infer_once(lay, kw, inputs, outputs):
    """Build the op in a scratch program over variables shaped like the inputs, which runs
    the op's slot checks and infer_shape."""
    block = Program().global_block()
    names = {}

    def declare(t, prefix):
        name = t._name or "%s%d" % (prefix, len(names))
        if t._value is not None:
            block.create_var(name=name, shape=t._value.shape, dtype=t._value.dtype.name)
        names[id(t)] = name
        return name

    ins = {}
    for slot, v in (inputs or {}).items():
        vs = v if isinstance(v, (list, tuple)) else [v]
        ins[slot] = [declare(t, "input") for t in vs if t is not None]
    outs = {slot: [names.get(id(t)) or declare(t, "output") for t in
                   (v if isinstance(v, (list, tuple)) else [v]) if t is not None]
            for slot, v in (outputs or {}).items()}
    from ..framework.program import Operator
    Operator(block, lay.type, ins, outs, dict(kw, op_callstack=user_frame()))


def _explain(lay, e, args):
    def desc(a):
        if type(a) is list:
            return "[%s]" % ", ".join(desc(x) for x in a)
        return "None" if a is None else "%s %s" % (list(a.shape), a.dtype)
    shapes = ", ".join("%s=%s" % (name, desc(a)) for (name, _), a in zip(lay.ins, args))
    return OpError(lay.type, "%s: %s (inputs: %s)" % (type(e).__name__, e, shapes),
                   user_frame())


def run_op(op_type, inputs, outputs, attrs):
    """Run `op_type` on the eager tensors of `inputs` ({slot: Tensor or [Tensor]}), write
    its results into the tensors of `outputs` and record it for autograd when an input
    needs a gradient (and recording is on: see no_grad)."""
    lay = _LAYOUTS.get(op_type) or layout(op_type)
    if attrs:
        kw = {k: attrs.get(k, d) for k, d in lay.attr_items}
    else:
        kw = dict(lay.attr_items)
    args = []
    requires = False
    dtype = None
    inputs = inputs or {}
    for slot, dup in lay.ins:
        v = inputs.get(slot)
        if v is None:
            args.append([] if dup else None)
            continue
        if dup:
            vs = v if isinstance(v, (list, tuple)) else [v]
            arrays = [_input_array(lay, slot, t) for t in vs]
            args.append(arrays)
            requires = requires or any(not t.stop_gradient for t in vs)
            if dtype is None and arrays:
                dtype = arrays[0].dtype.name
        else:
            t = v[0] if isinstance(v, (list, tuple)) else v
            if t is None:
                args.append(None)
                continue
            a = _input_array(lay, slot, t)
            args.append(a)
            requires = requires or not t.stop_gradient
            if dtype is None:
                dtype = a.dtype.name
    record = requires and mode.grad_enabled and lay.grad_def is not None
    _check_signature(lay, kw, args, inputs, outputs)
    fn = _kernel(lay, kw, dtype)
    saved = None
    if record and lay.saves:     # the forward hands work to its grad op (conv's columns)
        saved = kw["saved"] = SavedForGrad()
    try:
        result = fn(*args, **kw)
    except OpError:
        raise
    except Exception as e:
        raise _explain(lay, e, args) from e
    if saved is not None:
        del kw["saved"]
    if lay.single_out:
        result = (result,)
    outputs = outputs or {}
    node = None
    if record:
        node = _record(lay, kw, args, inputs, result)
        node.saved = saved
    flat = 0
    for k, (slot, dup) in enumerate(lay.outs):
        value = result[k]
        targets = outputs.get(slot)
        if not dup:
            if targets is not None:
                t = targets[0] if isinstance(targets, (list, tuple)) else targets
                if value is not None and t is not None:
                    _fill(t, value, node, flat)
            flat += 1
            continue
        targets = targets if isinstance(targets, (list, tuple)) else \
            ([] if targets is None else [targets])
        values = value if value is not None else []
        for j, t in enumerate(targets):
            if j < len(values) and t is not None and values[j] is not None:
                _fill(t, values[j], node, flat + j)
        flat += len(values)
    return None


def _fill(t, value, node, index):
    """Write an op's result into output tensor `t`: a fresh placeholder, or an existing
    tensor written in place (batch_norm's running mean, an optimizer's parameter, tanh_).
    A recorded result makes `t` non-leaf, unless `t` stops gradients (a buffer)."""
    if not isinstance(t, Tensor):
        raise TypeError("eager op output must be a Tensor, got %s %r"
                        % (type(t).__name__, getattr(t, "name", t)))
    fresh = t._value is None
    if node is not None and not t.stop_gradient:
        if not fresh and t._node is None:
            raise ValueError("Leaf Tensor %r that doesn't stop gradient can't be written "
                             "in place by op %s" % (t.name, node.lay.type))
        t._node, t._index = node, index
        if mode.legacy_grads:     # Paddle <= 2.0: every such tensor keeps its gradient
            if node.retained is None:
                node.retained = {}
            node.retained[index] = weakref.ref(t)
    elif fresh:
        t.stop_gradient = True
    t._value = value


def _record(lay, kw, args, inputs, result):
    """The GradNode of this run: saved forward values the grad op reads, gradient edges."""
    ins = [None] * len(lay.ins)
    for i in lay.saved_ins:
        ins[i] = args[i]
    outs = [None] * len(lay.outs)
    for k in lay.saved_outs:
        outs[k] = result[k]
    edges = []
    for i in lay.grad_targets:
        slot, dup = lay.ins[i]
        v = inputs.get(slot)
        if v is None:
            edges.append([] if dup else None)
        elif dup:
            vs = v if isinstance(v, (list, tuple)) else [v]
            edges.append([None if t.stop_gradient else _edge(t) for t in vs])
        else:
            t = v[0] if isinstance(v, (list, tuple)) else v
            edges.append(None if t is None or t.stop_gradient else _edge(t))
    node = GradNode(lay, kw, ins, outs, edges)
    meta = []
    for (slot, dup), value in zip(lay.outs, result):
        if dup:
            meta.append([None if v is None else (v.shape, v.dtype) for v in (value or ())])
        else:
            meta.append(None if value is None else (value.shape, value.dtype))
    node.out_meta = meta
    return node
