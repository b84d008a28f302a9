"""Small building blocks shared by layer functions."""
import functools
import warnings

import numpy as np

from .. import versions
from ..framework import mode
from ..framework.errors import NotATensorError
from ..dygraph.dispatch import run_eagerly
from ..dygraph.tensor import Tensor
from ..framework.layer_helper import LayerHelper
from ..framework.program import Variable

__all__ = ["unary", "binary", "check_variable", "check_variables", "check_dtype",
           "converted_arg", "real_arg", "append_op_out", "append_op_outputs", "as_list",
           "reduce_axes", "in_place", "in_place_broadcast", "paddle_api"]


def check_variable(x, arg, layer):
    if not isinstance(x, Variable):
        raise NotATensorError("%s: argument %r must be %s, got %s"
                        % (layer, arg, mode.variable_kind(), type(x).__name__))


def check_variables(layer, **variables):
    """check_variable of each argument given; None (an optional one left out) passes."""
    for arg, v in variables.items():
        if v is not None:
            check_variable(v, arg, layer)


def converted_arg(value, convert, what):
    """convert(value) (float, int); a TypeError "<what>, got <type> <value>" when it fails
    or value is a str (float() and int() would take "0.5" or "3")."""
    if not isinstance(value, str):
        try:
            return convert(value)
        except (TypeError, ValueError):
            pass
    raise TypeError("%s, got %s %r" % (what, type(value).__name__, value))


def real_arg(layer, arg, value):
    """`layer`'s argument `arg` as a float; a TypeError naming both when it is no number."""
    return converted_arg(value, float, "%s: %s must be a number" % (layer, arg))


def check_dtype(x, arg, layer, allowed):
    """`x` is a static Variable of one of the dtype names `allowed`, else a TypeError."""
    check_variable(x, arg, layer)
    if x.dtype.name not in allowed:
        raise TypeError("%s: %s must have dtype in %s, got %s"
                        % (layer, arg, list(allowed), x.dtype.name))


def check_static_dtype(x, arg, layer, allowed):
    """check_dtype for a static Variable, where Paddle 2.0's APIs check (after their dynamic
    branch); an eager Tensor only has to be a Variable."""
    if mode.dynamic and isinstance(x, Tensor):
        return
    check_dtype(x, arg, layer, allowed)


def as_list(v):
    if v is None:
        return []
    return list(v) if isinstance(v, (list, tuple)) else [v]


def reduce_axes(x, axis):
    """Paddle's axis argument as a sorted list of non-negative dims of x (None: all dims)."""
    nd = len(x.shape)
    axes = list(range(nd)) if axis is None else [int(a) for a in as_list(axis)]
    for a in axes:
        if not -nd <= a < nd:
            raise ValueError("axis %d is out of range for %r of rank %d" % (a, x.name, nd))
    return sorted(a % nd for a in axes)


def append_op_out(op_type, inputs, attrs=None, name=None, out_dtype=None, out_slot="Out",
                  extra_outputs=(), stop_gradient=False, layer_type=None):
    """Append `op_type` with one main output (plus named extra outputs); return the main one
    (and the extras, in order, when any are requested). Outputs are named after
    `layer_type` (default: the op type), as Paddle names them after the API's LayerHelper.
    In dynamic mode the op runs now on eager inputs without a LayerHelper (the hot path of
    most layer functions), falling back to the general dispatch for static inputs."""
    if mode.dynamic:
        ran = run_eagerly(op_type, inputs, attrs, out_dtype, out_slot, extra_outputs,
                          stop_gradient)
        if ran is not None:
            return ran
    for slot, values in inputs.items():
        for v in as_list(values):
            check_variable(v, slot, layer_type or op_type)
    helper = LayerHelper(layer_type or op_type, name=name)
    first = next(v for vs in inputs.values() for v in as_list(vs))
    dtype = out_dtype or first.dtype
    out = helper.create_variable_for_type_inference(dtype, stop_gradient=stop_gradient)
    outputs = {out_slot: [out]}
    extras = []
    for slot, ex_dtype in extra_outputs:
        v = helper.create_variable_for_type_inference(ex_dtype or dtype, stop_gradient=True)
        outputs[slot] = [v]
        extras.append(v)
    helper.append_op(type=op_type, inputs=inputs, outputs=outputs, attrs=attrs or {})
    return (out, *extras) if extras else out


def append_op_outputs(op_type, inputs, outputs, attrs=None, helper=None):
    """Append `op_type` with a fresh variable per output: `inputs` {slot: Variable or None
    (left out)}, `outputs` [(slot, dtype, stop_gradient)]; the new variables in that
    order. `helper` names them (default: a LayerHelper of the op type)."""
    helper = helper or LayerHelper(op_type)
    made = [(slot, helper.create_variable_for_type_inference(dtype, stop_gradient=stop))
            for slot, dtype, stop in outputs]
    helper.append_op(type=op_type,
                     inputs={slot: [v] for slot, v in inputs.items() if v is not None},
                     outputs={slot: [v] for slot, v in made}, attrs=attrs or {})
    return [v for _, v in made]


def unary(op_type, x, attrs=None, name=None, out_dtype=None, layer_type=None):
    """Append `op_type`(X=x) -> Out and return Out."""
    check_variable(x, "x", layer_type or op_type)
    return append_op_out(op_type, {"X": [x]}, attrs, name, out_dtype, layer_type=layer_type)


def binary(op_type, x, y, axis=-1, act=None, name=None):
    check_variable(x, "x", op_type)
    check_variable(y, "y", op_type)
    out = append_op_out(op_type, {"X": [x], "Y": [y]}, {"axis": axis}, name)
    return LayerHelper(op_type).append_activation(out, act)


def in_place(out_of_place, public_name):
    """Paddle 2.0's in-place variant (reshape_, tanh_, relu_, ...) of `out_of_place`. On an
    eager Tensor the tensor itself becomes the result (a leaf that needs a gradient is
    refused, as in Paddle). A static graph has no in-place update: Paddle warns and builds
    the out-of-place op, returning a new variable; so do we."""
    @functools.wraps(out_of_place)
    def layer(x, *args, **kwargs):
        if isinstance(x, Tensor):
            if not x.stop_gradient and versions.switch("inplace_input") == "copied":
                # the op reads a copy of x (an assign, whose gradient reads no input), so
                # the value its gradient needs survives x's next in-place change
                copy = append_op_out("assign", {"X": [x]})
                return x._change_in_place(lambda _, *a, **k: out_of_place(copy, *a, **k),
                                          *args, **kwargs)
            return x._change_in_place(out_of_place, *args, **kwargs)
        warnings.warn("%s: in-place is dygraph-only; the static graph gets a new variable "
                      "(as %s)" % (public_name, out_of_place.__name__), stacklevel=2)
        return out_of_place(x, *args, **kwargs)
    layer.__name__ = public_name
    return layer


_PADDLE_API = {}


def paddle_api(name):
    """paddle.<name> as the namespace exports it, for layer functions composed from other
    modules' public functions (looked up when first called: the namespace gathers every
    layer module)."""
    if not _PADDLE_API:
        from . import exports
        _PADDLE_API.update(exports("paddle"))
    return _PADDLE_API[name]
def in_place_broadcast(out_of_place, public_name):
    """in_place of a binary function: Paddle's in-place binary APIs (x.add_(y),
    paddle.multiply_(x, y)) refuse a y that broadcasts x to another shape (its ValueError
    text); else x becomes out_of_place(x, y)."""
    changed = in_place(out_of_place, public_name)

    @functools.wraps(out_of_place)
    def layer(x, y, *args, **kwargs):
        x_shape, y_shape = list(x.shape), list(getattr(y, "shape", ()))
        if min(x_shape + y_shape, default=0) >= 0:   # (static: -1, known when it runs)
            try:
                out_shape = list(np.broadcast_shapes(tuple(x_shape), tuple(y_shape)))
            except ValueError:
                out_shape = None
            if out_shape != x_shape:
                raise ValueError("The shape of broadcast output %s is different from that "
                                 "of inplace tensor %s in the Inplace operation (%s: y's "
                                 "shape %s)." % (out_shape, x_shape, public_name, y_shape))
        return changed(x, y, *args, **kwargs)
    layer.__name__ = public_name
    return layer
