"""Paddle 3's other names of 2.0's math (paddle.div, true_divide, mul, sub, eq, ne, lt,
le, gt, ge, greater, less, clamp), with 3.3.1's extra keywords: `out` (a tensor the result
is written into), div's rounding_mode, sub's alpha. specs/ops/special_functions.md."""
from ..framework.program import Variable
from . import math as math_layers
from .common import check_variable, in_place, in_place_broadcast
from .creation import written
from .elementwise_math import exact_scalar_like, trunc

_P = math_layers.EXPORTS["paddle"]
_FLOATS = ("float16", "float32", "float64", "complex64", "complex128")


def _operand(x, y, api):
    """y as a tensor: a number becomes an exact constant of x's dtype (broadcast to x)."""
    check_variable(x, "x", api)
    if isinstance(y, Variable):
        return y
    if isinstance(y, (bool, int, float)):
        return exact_scalar_like(x, y)
    raise TypeError("%s: y must be a Tensor or a number, got %s" % (api, type(y).__name__))


def div(x, y, name=None, *, rounding_mode=None, out=None):
    """x / y: true division (integers in float32), or rounded toward zero ('trunc') or
    down ('floor'); integers rounded stay integers (divided in float64 first: exact up to
    2^53, in every profile, where 2.0's floor_divide of integers truncates)."""
    y = _operand(x, y, "div")
    if rounding_mode not in (None, "trunc", "floor"):
        raise ValueError("div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                         "but found %s." % rounding_mode)
    integers = x.dtype.name not in _FLOATS and y.dtype.name not in _FLOATS
    dtype = x.dtype
    if integers:
        wide = "float32" if rounding_mode is None else "float64"
        x, y = math_layers.cast(x, wide), math_layers.cast(y, wide)
    quotient = _P["divide"](x, y, name=name if rounding_mode is None else None)
    if rounding_mode is not None:
        rounded = trunc(quotient) if rounding_mode == "trunc" else _P["floor"](quotient)
        quotient = math_layers.cast(rounded, dtype) if integers else rounded
    return written(quotient, out)


def true_divide(input, other, *, out=None):
    return div(input, other, out=out)


def mul(x, y, name=None, *, out=None):
    return written(_P["multiply"](x, _operand(x, y, "mul"), name=name), out)


def sub(x, y, name=None, *, alpha=1, out=None):
    """x - alpha y."""
    y = _operand(x, y, "sub")
    if alpha != 1:
        y = math_layers.scale(y, float(alpha))
    return written(_P["subtract"](x, y, name=name), out)


def _comparison(function, api):
    def layer(x, y, name=None, *, out=None):
        return written(_P[function](x, _operand(x, y, api), name=name), out)
    layer.__name__ = api
    layer.__doc__ = "paddle.%s: paddle.%s (bool)." % (api, function)
    return layer


def clamp(x, min=None, max=None, name=None, *, out=None):
    """paddle.clip; integers too (clipped as float64, back in x's dtype: 3.3.1's clip
    kernel takes int32 and int64)."""
    check_variable(x, "x", "clamp")
    if x.dtype.name in ("int32", "int64"):
        clipped = math_layers.clip(math_layers.cast(x, "float64"), min, max)
        return written(math_layers.cast(clipped, x.dtype), out)
    return written(math_layers.clip(x, min, max, name=name), out)


_FUNCTIONS = dict(
    {"div": div, "true_divide": true_divide, "mul": mul, "sub": sub, "clamp": clamp},
    **{api: _comparison(function, api) for api, function in (
        ("eq", "equal"), ("ne", "not_equal"), ("lt", "less_than"), ("le", "less_equal"),
        ("gt", "greater_than"), ("ge", "greater_equal"), ("greater", "greater_than"),
        ("less", "less_than"))})
_IN_PLACE = {name + "_": in_place_broadcast(_FUNCTIONS[name], name + "_")
             for name in ("div", "mul", "sub", "less")}
_IN_PLACE["clamp_"] = in_place(clamp, "clamp_")

EXPORTS = {
    "paddle": dict(_FUNCTIONS, **{n: _IN_PLACE[n] for n in ("div_", "sub_", "less_")}),
    "Tensor": dict(_FUNCTIONS, **_IN_PLACE),
}
