"""Paddle 3's top-level in-place functions of 2.0's element-wise math: paddle.abs_(x),
paddle.multiply_(x, y), paddle.equal_(x, y), paddle.cast_(x, dtype), ... (x becomes the
result: layers.common.in_place; a binary one refuses a y broadcasting x to another shape:
in_place_broadcast). The Tensor methods x.abs_(), x.equal_(y), ... are
tensor_methods.INPLACE_*'s."""
from .common import in_place, in_place_broadcast
from .math import EXPORTS as _MATH

_P = _MATH["paddle"]
_UNARY = ("abs", "acos", "asin", "atan", "cos", "cosh", "sin", "sinh", "tan", "log", "log10",
          "log1p", "log2", "square", "erf", "logical_not", "bitwise_not", "cast")
_BINARY = ("pow", "multiply", "divide", "subtract", "floor_divide", "floor_mod", "mod",
           "remainder", "equal", "not_equal", "greater_equal", "greater_than", "less_equal",
           "less_than", "logical_and", "logical_or", "logical_xor", "bitwise_and",
           "bitwise_or", "bitwise_xor")

_IN_PLACE = dict({name + "_": in_place(_P[name], name + "_") for name in _UNARY},
                 **{name + "_": in_place_broadcast(_P[name], name + "_") for name in _BINARY})

EXPORTS = {"paddle": _IN_PLACE}
