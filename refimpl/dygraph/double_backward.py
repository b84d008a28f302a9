"""Differentiable gradients (paddle.grad(create_graph=True)) without a second copy of any
op's gradient maths.

An op's registered `backward` is numpy code on arrays. With create_graph the engine calls
that same function on `Recorded` stand-ins for the Tensors that need a gradient: objects
that answer numpy's array interface (operators, `__array_ufunc__`, `__array_function__`,
reshape/sum/astype/indexing) by running the corresponding OpDef through the tracer, so
the backward's own computation lands on the tape and can be differentiated again. Values
that need no gradient stay plain ndarrays and numpy computes with them as usual.

What a backward does that has no recorded equivalent -- np.asarray of a stand-in, writing
into it in place, a numpy function without a mapping here -- raises DoubleBackwardError
naming the op: never a silently constant gradient. specs/dygraph.md#double-backward.
"""
import numbers
import operator

import numpy as np

from .. import versions
from ..ops.activation import erf_ufunc
from ..ops.registry import bilinear_grad_of_grad, bilinear_grad_op, slot_name
from .tensor import Tensor
from .tracer import layout, run_op

__all__ = ["DoubleBackwardError", "Recorded", "Traced", "has_values", "recomputed_outputs"]


class DoubleBackwardError(NotImplementedError):
    pass


_current_op = [None]   # the op whose backward is being recorded (for error messages)

# the ops whose grad op has a grad op itself in Paddle 2.0 (release/2.0's operators: the
# grad ops registered with a dygraph grad maker, and the ops whose grad is such an op:
# scale, sum, assign, cast, ...); paddle.grad(create_graph=True) through any other op is
# its RuntimeError there (switch double_grad_ops)
PADDLE_20_DOUBLE_GRAD_OPS = frozenset((
    "abs", "assign", "batch_norm", "cast", "concat", "conv2d", "conv2d_transpose", "conv3d",
    "cumsum", "depthwise_conv2d", "elementwise_add", "elementwise_div", "elementwise_mul",
    "elementwise_sub", "elu", "expand", "expand_v2", "flip", "instance_norm", "leaky_relu",
    "log", "matmul", "mul", "pad", "pad3d", "reduce_mean", "reduce_sum", "relu", "reshape2",
    "reverse", "rsqrt", "scale", "sign", "slice", "sqrt", "square", "squeeze", "squeeze2",
    "sum", "tile", "transpose2", "unsqueeze", "unsqueeze2"))


def _check_double_grad_op(op_type):
    if versions.switch("double_grad_ops") == "paddle_2_0" and \
            op_type not in PADDLE_20_DOUBLE_GRAD_OPS:
        raise RuntimeError(
            "The Op %s_grad doesn't have any grad op. If you don't intend calculating higher "
            "order derivatives, please set `create_graph` to False. (paddle.grad("
            "create_graph=True) through %s: Paddle 2.0 has no double grad for it)"
            % (op_type, op_type))


def _unsupported(what):
    return DoubleBackwardError(
        "paddle.grad(create_graph=True) through op %s: its backward uses %s, which the "
        "eager double backward cannot record (specs/dygraph.md#double-backward)"
        % (_current_op[0] or "?", what))


def _run(op_type, inputs, attrs=None, out="Out"):
    result = Tensor._placeholder()
    run_op(op_type, inputs, {out: [result]}, attrs or {})
    return result


def _value(x):
    return x.t._value if isinstance(x, Recorded) else x


def _tensor(x, dtype):
    """`x` as a Tensor of `dtype`: a stand-in's Tensor (cast, recorded), else a constant."""
    if isinstance(x, Recorded):
        if x.t._value.dtype != dtype:
            return _run("cast", {"X": [x.t]}, {"in_dtype": x.t._value.dtype.name,
                                               "out_dtype": np.dtype(dtype).name})
        return x.t
    return Tensor(np.asarray(x, dtype=dtype))


def wrap(t):
    """What a backward sees for Tensor `t`: its array when no gradient flows through it,
    else a Recorded stand-in."""
    if t is None:
        return None
    return t._value if t.stop_gradient else Recorded(t)


def _binary(op_type, a, b):
    dtype = np.result_type(_value(a), _value(b))
    return wrap(_run(op_type, {"X": [_tensor(a, dtype)], "Y": [_tensor(b, dtype)]},
                     {"axis": -1}))


def _unary(op_type, attrs=None):
    return lambda x: wrap(_run(op_type, {"X": [x.t]}, attrs))


def _power(x, e):
    if isinstance(x, Recorded) and not isinstance(e, Recorded) and np.ndim(e) == 0:
        return wrap(_run("pow", {"X": [x.t]}, {"factor": float(e)}))
    return _binary("elementwise_pow", x, e)


def _constant(fn):
    """A numpy function whose result carries no gradient (comparisons, sign, floor, ...):
    computed on the values."""
    return lambda *args, **kwargs: fn(*[_value(a) for a in args], **kwargs)


_UFUNCS = {
    np.add: lambda a, b: _binary("elementwise_add", a, b),
    np.subtract: lambda a, b: _binary("elementwise_sub", a, b),
    np.multiply: lambda a, b: _binary("elementwise_mul", a, b),
    np.true_divide: lambda a, b: _binary("elementwise_div", a, b),
    np.maximum: lambda a, b: _binary("elementwise_max", a, b),
    np.minimum: lambda a, b: _binary("elementwise_min", a, b),
    np.power: _power,
    np.matmul: lambda a, b: wrap(_run("matmul_v2", {
        "X": [_tensor(a, np.result_type(_value(a), _value(b)))],
        "Y": [_tensor(b, np.result_type(_value(a), _value(b)))]})),
    np.negative: lambda x: wrap(_run("scale", {"X": [x.t]}, {"scale": -1.0})),
    np.positive: lambda x: x,
    np.exp: _unary("exp"), np.log: _unary("log"), np.sqrt: _unary("sqrt"),
    np.tanh: _unary("tanh"), np.sin: _unary("sin"), np.cos: _unary("cos"),
    np.tan: _unary("tan"), np.square: _unary("square"), np.reciprocal: _unary("reciprocal"),
    np.log1p: _unary("log1p"), np.log2: _unary("log2"), np.log10: _unary("log10"),
    np.sinh: _unary("sinh"), np.cosh: _unary("cosh"), np.arctan: _unary("atan"),
    np.arcsin: _unary("asin"), np.arccos: _unary("acos"), np.abs: _unary("abs"),
    np.expm1: lambda x: _binary("elementwise_sub", _unary("exp")(x), 1.0),
    erf_ufunc: _unary("erf"),
}
for _f in (np.sign, np.floor, np.ceil, np.round, np.rint, np.greater, np.greater_equal,
           np.less, np.less_equal, np.equal, np.not_equal, np.logical_and, np.logical_or,
           np.logical_not, np.logical_xor, np.isfinite, np.isnan, np.isinf, np.signbit):
    _UFUNCS[_f] = _constant(_f)


def _axes(ndim, axis):
    if axis is None:
        return list(range(ndim)), True
    axes = [axis] if isinstance(axis, numbers.Integral) else list(axis)
    return [a % ndim for a in axes], False


def _reduce(op_type, a, axis=None, dtype=None, out=None, keepdims=False, **_):
    if out is not None:
        raise _unsupported("%s(out=...)" % op_type)
    if not isinstance(a, Recorded):
        return getattr(np, op_type[len("reduce_"):])(a, axis=axis, keepdims=keepdims)
    axes, every = _axes(a.ndim, axis)
    if a.ndim == 0 or not axes:      # axis=(): numpy reduces nothing (instance_norm of [N, C])
        return a if dtype is None else a.astype(dtype)
    result = wrap(_run(op_type, {"X": [a.t]}, {"dim": axes, "keep_dim": bool(keepdims),
                                                "reduce_all": every}))
    return result if dtype is None else result.astype(dtype)


def _reshape(a, shape, order="C"):
    shape = [shape] if isinstance(shape, numbers.Integral) else [int(d) for d in shape]
    return wrap(_run("reshape2", {"X": [a.t]}, {"shape": shape}))


def _transpose(a, axes=None):
    axes = list(range(a.ndim))[::-1] if axes is None else [int(x) % a.ndim for x in axes]
    return wrap(_run("transpose2", {"X": [a.t]}, {"axis": axes}))


def _swapaxes(a, i, j):
    axes = list(range(a.ndim))
    i, j = i % a.ndim, j % a.ndim
    axes[i], axes[j] = axes[j], axes[i]
    return _transpose(a, axes)


def _moveaxis(a, source, destination):
    order = [i for i in range(a.ndim) if i != source % a.ndim]
    order.insert(destination % a.ndim, source % a.ndim)
    return _transpose(a, order)


def _broadcast_to(a, shape, subok=False):
    shape = [int(d) for d in ([shape] if isinstance(shape, numbers.Integral) else shape)]
    if not isinstance(a, Recorded):
        return np.broadcast_to(a, shape)
    if list(a.shape) == shape:
        return a
    if a.ndim < len(shape):
        a = _reshape(a, [1] * (len(shape) - a.ndim) + list(a.shape))
    return wrap(_run("expand_v2", {"X": [a.t]}, {"shape": shape}))


def _expand_dims(a, axis):
    axes = [axis] if isinstance(axis, numbers.Integral) else list(axis)
    shape = list(a.shape)
    for ax in sorted(x % (a.ndim + len(axes)) for x in axes):
        shape.insert(ax, 1)
    return _reshape(a, shape)


def _squeeze(a, axis=None):
    shape = [d for i, d in enumerate(a.shape)
             if not (d == 1 and (axis is None or i in _axes(a.ndim, axis)[0]))]
    return _reshape(a, shape)


def _where(cond, x, y):
    cond = np.asarray(_value(cond), dtype=bool)
    if not isinstance(x, Recorded) and not isinstance(y, Recorded):
        return np.where(cond, x, y)
    dtype = np.result_type(_value(x), _value(y))
    shape = np.broadcast_shapes(cond.shape, np.shape(_value(x)), np.shape(_value(y)))

    def full(v):
        return _broadcast_to(wrap(_tensor(v, dtype)) if isinstance(v, Recorded)
                             else np.asarray(v, dtype), shape)
    xs, ys = full(x), full(y)
    return wrap(_run("where", {"Condition": [Tensor(np.broadcast_to(cond, shape).copy())],
                               "X": [_tensor(xs, dtype)], "Y": [_tensor(ys, dtype)]}))


def _clip(a, a_min, a_max, out=None, **_):
    if out is not None or not np.ndim(a_min) == np.ndim(a_max) == 0:
        raise _unsupported("np.clip with array bounds or out=")
    lo = -np.inf if a_min is None else float(a_min)
    hi = np.inf if a_max is None else float(a_max)
    return wrap(_run("clip", {"X": [a.t]}, {"min": lo, "max": hi}))


def _var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **_):
    if out is not None or ddof:
        raise _unsupported("np.var(out=...) or ddof")
    centered = a - _reduce("reduce_mean", a, axis, keepdims=True)
    return _reduce("reduce_mean", centered * centered, axis, dtype, keepdims=keepdims)


def _pad(a, pad_width, mode="constant", constant_values=0, **_):
    if mode != "constant" or np.ndim(constant_values) != 0:
        raise _unsupported("np.pad(mode=%r) or per-dim constant values" % (mode,))
    widths = np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (a.ndim, 2))
    return wrap(_run("pad", {"X": [a.t]}, {"paddings": [int(w) for w in widths.reshape(-1)],
                                           "pad_value": float(constant_values)}))


def _split(a, indices_or_sections, axis=0):
    """np.split's pieces (numpy splits the positions along the axis, with its checks), each
    a slice of the stand-in; an empty piece holds nothing to differentiate."""
    axis %= a.ndim
    pieces = np.split(np.arange(a.shape[axis]), indices_or_sections)
    empty = a.shape[:axis] + (0,) + a.shape[axis + 1:]
    return [a[(slice(None),) * axis + (slice(int(p[0]), int(p[-1]) + 1),)] if len(p) else
            np.zeros(empty, a.dtype) for p in pieces]


def _bincount(x, weights=None, minlength=0):
    """Weights summed into the bins x names: a scatter-add, recorded as scatter_nd_add
    into zeros (its gradient gathers the weights back)."""
    x = np.asarray(_value(x))
    if not isinstance(weights, Recorded):
        return np.bincount(x, weights, minlength)
    length = max(int(minlength), int(x.max()) + 1 if x.size else 0)
    zeros = Tensor(np.zeros(length, weights.dtype))
    return wrap(_run("scatter_nd_add", {"X": [zeros], "Index": [Tensor(x.reshape(-1, 1))],
                                        "Updates": [_reshape(weights, [-1]).t]}))


def _like(fn):
    return lambda a, *args, **kwargs: fn(_value(a), *args, **kwargs)


def _concatenate(arrays, axis=0, **_):
    arrays = list(arrays)
    dtype = np.result_type(*[_value(a) for a in arrays])
    return wrap(_run("concat", {"X": [_tensor(a, dtype) for a in arrays]},
                     {"axis": int(axis)}))


def _stack(arrays, axis=0, **_):
    return _concatenate([_expand_dims(a if isinstance(a, Recorded) else np.asarray(a), axis)
                         if isinstance(a, Recorded) else np.expand_dims(a, axis)
                         for a in arrays], axis)


_FUNCTIONS = {
    np.sum: lambda a, *args, **kw: _reduce("reduce_sum", a, *args, **kw),
    np.mean: lambda a, *args, **kw: _reduce("reduce_mean", a, *args, **kw),
    np.var: _var,
    np.reshape: _reshape, np.transpose: _transpose, np.swapaxes: _swapaxes,
    np.moveaxis: _moveaxis, np.broadcast_to: _broadcast_to, np.expand_dims: _expand_dims,
    np.squeeze: _squeeze, np.where: _where, np.clip: _clip, np.pad: _pad,
    np.concatenate: _concatenate, np.stack: _stack, np.bincount: _bincount,
    np.split: _split,
    np.ascontiguousarray: lambda a, dtype=None: a if dtype is None else a.astype(dtype),
    np.zeros_like: _like(np.zeros_like), np.ones_like: _like(np.ones_like),
    np.full_like: _like(np.full_like), np.empty_like: _like(np.zeros_like),
    np.shape: lambda a: a.shape, np.ndim: lambda a: a.ndim, np.size: lambda a: a.size,
    np.result_type: lambda *args: np.result_type(*[_value(a) for a in args]),
    np.broadcast_shapes: np.broadcast_shapes,
    np.matmul: _UFUNCS[np.matmul],
}


class Recorded:
    """An eager Tensor (that needs a gradient) seen through numpy's array interface: each
    operation on it runs an OpDef through the tracer, so it is recorded."""
    __array_priority__ = 1000

    def __init__(self, t):
        self.t = t

    # -- what numpy code reads: the value's own attributes
    shape, ndim, dtype, size = (property(operator.attrgetter("t._value." + name))
                                for name in ("shape", "ndim", "dtype", "size"))

    @property
    def T(self):
        return _transpose(self)

    def __len__(self):
        return len(self.t._value)

    def __array__(self, dtype=None, copy=None):
        raise _unsupported("an ndarray of a value that needs a gradient (np.asarray / "
                           "np.array)")

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        rule = _UFUNCS.get(ufunc)
        if method != "__call__" or rule is None or kwargs.get("out") is not None:
            raise _unsupported("np.%s%s" % (ufunc.__name__,
                                            "" if method == "__call__" else "." + method))
        kwargs.pop("out", None)
        dtype = kwargs.pop("dtype", None)
        if kwargs:
            raise _unsupported("np.%s(%s=...)" % (ufunc.__name__, ", ".join(kwargs)))
        result = rule(*inputs)
        return result if dtype is None else result.astype(dtype)

    def __array_function__(self, func, types, args, kwargs):
        rule = _FUNCTIONS.get(func)
        if rule is None:
            raise _unsupported("np.%s" % func.__name__)
        return rule(*args, **kwargs)

    # -- methods
    def reshape(self, *shape, order="C"):
        return _reshape(self, shape[0] if len(shape) == 1 and not isinstance(
            shape[0], numbers.Integral) else shape)

    def transpose(self, *axes):
        return _transpose(self, axes[0] if len(axes) == 1 and not isinstance(
            axes[0], numbers.Integral) else (axes or None))

    def swapaxes(self, i, j):
        return _swapaxes(self, i, j)

    def sum(self, axis=None, dtype=None, out=None, keepdims=False):
        return _reduce("reduce_sum", self, axis, dtype, out, keepdims)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False):
        return _reduce("reduce_mean", self, axis, dtype, out, keepdims)

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        return _var(self, axis, dtype, out, ddof, keepdims)

    def ravel(self):
        return _reshape(self, [-1])

    flatten = ravel

    def squeeze(self, axis=None):
        return _squeeze(self, axis)

    def astype(self, dtype, copy=True, **_):
        dtype = np.dtype(dtype)
        if dtype == self.dtype:
            return self
        if dtype.kind not in "f":
            return self.t._value.astype(dtype)       # an integer or bool result: no gradient
        return wrap(_tensor(self, dtype))

    def copy(self, order="C"):
        return self      # values are never written in place here (see __setitem__)

    def __getitem__(self, key):
        """Any numpy index, with numpy's result shape: the positions it picks, gathered
        from the flattened value (the gather op adds repeated picks back)."""
        if isinstance(key, tuple):
            key = tuple(_value(k) for k in key)
        picks = np.arange(self.size).reshape(self.shape)[_value(key)]
        flat = _reshape(self, [-1])
        out = wrap(_run("gather", {"X": [flat.t], "Index": [Tensor(picks.reshape(-1))]},
                        {"axis": 0}))
        return _reshape(out, list(picks.shape))

    def __setitem__(self, key, value):
        raise _unsupported("writing into an array in place (a[...] = ...)")

    def item(self, *args):
        raise _unsupported("a Python number of a value that needs a gradient (.item())")

    # -- operators
    def __add__(self, o): return _binary("elementwise_add", self, o)
    def __radd__(self, o): return _binary("elementwise_add", o, self)
    def __sub__(self, o): return _binary("elementwise_sub", self, o)
    def __rsub__(self, o): return _binary("elementwise_sub", o, self)
    def __mul__(self, o): return _binary("elementwise_mul", self, o)
    def __rmul__(self, o): return _binary("elementwise_mul", o, self)
    def __truediv__(self, o): return _binary("elementwise_div", self, o)
    def __rtruediv__(self, o): return _binary("elementwise_div", o, self)
    def __pow__(self, o): return _power(self, o)
    def __rpow__(self, o): return _power(o, self)
    def __matmul__(self, o): return _UFUNCS[np.matmul](self, o)
    def __rmatmul__(self, o): return _UFUNCS[np.matmul](o, self)
    def __neg__(self): return _UFUNCS[np.negative](self)
    def __pos__(self): return self
    def __abs__(self): return _UFUNCS[np.abs](self)
    def __gt__(self, o): return self.t._value > _value(o)
    def __ge__(self, o): return self.t._value >= _value(o)
    def __lt__(self, o): return self.t._value < _value(o)
    def __le__(self, o): return self.t._value <= _value(o)
    def __eq__(self, o): return self.t._value == _value(o)
    def __ne__(self, o): return self.t._value != _value(o)
    __hash__ = object.__hash__


# -- the engine's gradient arithmetic with create_graph (autograd._run's `ops`)

def _as_tensor(x):
    if isinstance(x, Recorded):
        return x.t
    if isinstance(x, Tensor):
        return x
    return Tensor(np.asarray(x))


class Traced:
    """Gradients as Tensors whose computation is recorded (create_graph)."""

    @staticmethod
    def add(a, b):
        return _run("elementwise_add", {"X": [a], "Y": [b]}, {"axis": -1})

    @staticmethod
    def zeros(shape, dtype):
        return Tensor(np.zeros(shape, dtype))

    @staticmethod
    def to_user(g):
        return g

    @staticmethod
    def from_user(r):
        return _as_tensor(r)

    @staticmethod
    def root(t, g):
        value = t._array()
        if g is None:
            return Tensor(np.ones_like(value))
        g = _as_tensor(g)
        if tuple(g.shape) != value.shape:
            raise ValueError("paddle.grad: the gradient given for Tensor %r has shape %s, "
                             "the tensor %s" % (t.name, g.shape, list(value.shape)))
        return g

    @staticmethod
    def run(node, args, kw, need):
        """Call the op's registered backward on stand-ins: the forward inputs and outputs
        as the tensors they are in the graph (so the gradient depends on them), the output
        gradients as the (possibly recorded) Tensors they are."""
        lay = node.lay
        _check_double_grad_op(lay.type)
        edges = dict(zip(lay.grad_targets, node.edges))
        offsets = node.out_offsets()
        differentiated = {k for kind, k in lay.grad_plan if kind == "dout"}
        _current_op[0] = lay.type
        try:
            call, undifferentiated = [], []
            for (kind, k), a in zip(lay.grad_plan, args):
                if kind == "in":
                    call.append(_seen_as(a, edges.get(k)))
                elif kind == "out" and k in differentiated:
                    call.append(_seen_as(a, _own_outputs(node, k, offsets)))
                elif kind == "out":
                    if has_values(a):
                        undifferentiated.append((len(call), lay.outs[k][0]))
                    call.append(a)
                else:
                    call.append([wrap(g) for g in a] if type(a) is list else wrap(a))
            if undifferentiated:
                ins = {lay.ins[k][0]: v for (kind, k), v in zip(lay.grad_plan, call)
                       if kind == "in"}
                outs = recomputed_outputs(lay.op_def, ins, {
                    slot: call[position] for position, slot in undifferentiated}, kw)
                for position, slot in undifferentiated:
                    call[position] = outs[slot]
            # the reference backward: it computes every input's gradient, takes no hand-off
            result = _recordable_backward(lay.op_def)(*call, **kw)
        finally:
            _current_op[0] = None
        if len(lay.grad_targets) == 1:
            return _as_grad(result)
        return tuple(_as_grad(r) for r in result)


def _recordable_backward(op_def):
    """What computes op_def's gradient on stand-ins: its numpy backward, or for a bilinear
    op (conv: strided windows and tensordots, which stand-ins cannot record) its grad op
    recorded whole, whose own gradient is the closed form of registry.bilinear_grad_of_grad
    over recorded ops again (so to any order)."""
    if op_def.bilinear:
        return _recorded(op_def.type + "_grad")
    if bilinear_grad_op(op_def):
        fwd = op_def.fwd
        forward, backward = _recorded(fwd.type), _recorded(fwd.type + "_grad")
        return lambda *args, **attrs: bilinear_grad_of_grad(forward, backward, *args, attrs)
    return op_def.backward


def _recorded(op_type):
    """op_type (no list slots) as a function of stand-ins and arrays (inputs in slot
    order, attrs as keywords) that runs it as one recorded op: results as a backward
    sees them."""
    lay = layout(op_type)

    def run(*args, **attrs):
        inputs = {name: _as_tensor(a) for (name, _), a in zip(lay.ins, args)
                  if a is not None}
        outputs = {name: Tensor._placeholder() for name, _ in lay.outs}
        run_op(op_type, inputs, outputs, attrs)
        results = tuple(wrap(outputs[name]) for name, _ in lay.outs)
        return results[0] if len(results) == 1 else results
    return run


def _as_grad(r):
    if type(r) is list:
        return [_as_grad(g) for g in r]
    return None if r is None else _as_tensor(r)


def has_values(value):
    """Whether a forward output holds floating-point values (the view ops' XShape holds
    none, only a shape)."""
    values = value if type(value) is list else [value]
    return any(v is not None and v.dtype.kind == "f" and v.size for v in values)


def recomputed_outputs(op_def, ins, saved, attrs):
    """op_def's outputs computed again from `ins` (input slot -> stand-in, array or None),
    so that their dependence on the inputs is recorded: what a backward reads of an output
    whose gradient the op does not take (`saved`: slot -> the value the forward made;
    instance_norm's SavedVariance, softmax_with_cross_entropy's Softmax), which recorded as
    it was would have no way back to the inputs. The op's own `saved_outputs` rule where it
    has one (batch_norm's statistics of X), else its forward reference, which is refused
    when the grad op does not read every input."""
    own = op_def.saved_outputs(ins, saved, attrs)
    if own is not None:
        return own
    slots = [slot_name(s) for s in op_def.inputs if slot_name(s) not in op_def.lod_only]
    absent = [s for s in slots if s not in ins]
    if absent or op_def.lod_lengths:
        raise DoubleBackwardError(
            "paddle.grad(create_graph=True) through op %s: its backward reads an output "
            "whose gradient the op does not define, and recomputing it from the inputs needs "
            "%s, which its grad op does not read (specs/dygraph.md#double-backward)"
            % (op_def.type, absent or "the inputs' LoD"))
    result = op_def.forward(*[ins[s] for s in slots], **attrs)
    return dict(zip(op_def.output_slots, result if isinstance(result, tuple) else (result,)))


def _own_outputs(node, k, offsets):
    meta = node.out_meta[k]
    if type(meta) is list:
        return [(node, offsets[k] + j) for j in range(len(meta))]
    return (node, offsets[k])


def _seen_as(value, edge):
    """A saved forward value as the backward should see it: where it sits in the graph
    (`edge`: a leaf, a (node, output) pair, None for no gradient; lists for list slots)."""
    if type(value) is list:
        edges = edge if type(edge) is list else [edge] * len(value)
        return [_seen_as(v, e) for v, e in zip(value, edges)]
    if value is None or edge is None:
        return value
    if type(edge) is tuple:
        node, index = edge
        t = Tensor(value, stop_gradient=False)
        t._node, t._index = node, index
        return Recorded(t)
    if edge._value is not value:
        raise DoubleBackwardError("paddle.grad(create_graph=True): leaf Tensor %r changed "
                                  "in place after the forward pass that used it" % edge.name)
    return Recorded(edge)
