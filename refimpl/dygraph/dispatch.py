"""Where an op built through LayerHelper goes: eager inputs run it now (tracer.run_op),
static Variables append it to the program, whatever the global mode; an op without inputs
follows the mode. Mixing the two in one op is an error (specs/dygraph.md#mode-rules)."""
from ..framework.errors import OpError, user_frame
from ..framework.program import Variable
from ..framework import mode
from .tensor import Tensor
from .tracer import StaticInput, run_op

__all__ = ["placeholder", "has_eager_input", "eager_append_op", "run_eagerly"]


def placeholder(dtype=None, shape=None, stop_gradient=False, name=None, persistable=False):
    return Tensor._placeholder(dtype, shape, stop_gradient, name, persistable)


def _values(slots):
    for v in (slots or {}).values():
        if isinstance(v, (list, tuple)):
            yield from v
        elif v is not None:
            yield v


def has_eager_input(inputs):
    return any(isinstance(v, Tensor) for v in _values(inputs))


def _input_kind(op_type, inputs):
    """'eager', 'static', or None (no inputs)."""
    kind = first = None
    for vs in inputs.values():
        for v in (vs if type(vs) is list or type(vs) is tuple else (vs,)):
            if v is None:
                continue
            k = "eager" if isinstance(v, Tensor) else "static"
            if kind is None:
                kind, first = k, v
            elif k != kind:
                eager, static = (first, v) if kind == "eager" else (v, first)
                raise OpError(op_type, "mixes an eager Tensor (%s) and a static Variable "
                              "(%s) in one operation: build static programs from static "
                              "Variables only (paddle.enable_static() / program_guard), or "
                              "run eagerly on Tensors only" % (_desc(eager), _desc(static)),
                              user_frame())
    return kind


def _twins_of_captured(block, inputs):
    """`inputs` with each eager Tensor that a dygraph-to-static translation swapped for a
    static twin (a parameter or buffer: a persistable variable of its name in the program)
    replaced by the twin. Paddle 2.0's declarative mode names an op's eager input by its
    name, so code that keeps its own reference to a buffer (PaddleDetection's
    AnchorGenerator keeps its cell anchors in a list) reads the program's variable."""
    program_vars = block.program.global_block().vars

    def twin(v):
        if isinstance(v, Tensor):
            found = program_vars.get(v.name)
            if found is not None and found.persistable and not isinstance(found, Tensor):
                return found
        return v
    return {slot: [twin(v) for v in vs] if isinstance(vs, (list, tuple)) else twin(vs)
            for slot, vs in inputs.items()}


def _desc(v):
    return repr(v) if isinstance(v, str) else repr(getattr(v, "name", v))


def eager_append_op(block, type, inputs=None, outputs=None, attrs=None, **_ignored):
    """LayerHelper.append_op in dynamic mode (or with eager inputs): run now, or append
    to `block` when the inputs are static Variables."""
    if mode.dynamic:     # the usual case: eager inputs; the tracer stops at a static one
        try:
            run_op(type, inputs, outputs, attrs)
            return None
        except StaticInput:
            pass
    if inputs and mode.in_translation():
        inputs = _twins_of_captured(block, inputs)
    kind = _input_kind(type, inputs) if inputs else None
    if kind == "static" or (kind is None and not mode.dynamic):
        for t in _values(outputs):
            if isinstance(t, Tensor) and t._value is None:
                _become_static(t, block)
        return block.append_op(type=type, inputs=inputs, outputs=outputs, attrs=attrs)
    for v in _values(outputs):
        if isinstance(v, Variable) and not isinstance(v, Tensor):
            _become_eager(v)
    run_op(type, inputs, outputs, attrs)
    return None


def _become_static(t, block):
    """An eager placeholder the op turned out to build statically: a variable of `block`."""
    dtype, shape = t._decl or (None, None)
    name, stop_gradient, persistable = t.name, t.stop_gradient, t.persistable
    t.__class__ = Variable
    Variable.__init__(t, block, name=name, shape=shape, dtype=dtype,
                      stop_gradient=stop_gradient, persistable=persistable)
    block.vars[name] = t
    block.program._bump()


def _become_eager(v):
    """A static temporary (made in static mode) the op turned out to fill eagerly."""
    if v.block is not None and v.block.vars.get(v.name) is v:
        v.block._remove_var(v.name)
    decl = (v.dtype.name if v.dtype is not None else None, v.shape)
    fields = (v.name, v.stop_gradient, v.persistable)
    v.__class__ = Tensor
    Tensor.__init__(v, None, fields[1], fields[0], fields[2])
    v._decl = decl


def run_eagerly(op_type, inputs, attrs=None, out_dtype=None, out_slot="Out",
                extra_outputs=(), stop_gradient=False):
    """The hot path of layer functions in dynamic mode (append_op_out, the Python
    operators): placeholders for the op's main output (and `extra_outputs` [(slot, dtype)],
    which stop gradient), the op run by the tracer; the output (and the extras). None when
    an input is a static Variable: the caller then goes the general way."""
    out = Tensor._placeholder(out_dtype, None, stop_gradient) if out_dtype is not None \
        else Tensor(None, stop_gradient)
    outputs = {out_slot: [out]}
    extras = []
    for slot, ex_dtype in extra_outputs:
        extras.append(Tensor._placeholder(ex_dtype or out_dtype, None, True))
        outputs[slot] = [extras[-1]]
    try:
        run_op(op_type, inputs, outputs, attrs)
    except StaticInput:
        return None
    return (out, *extras) if extras else out
