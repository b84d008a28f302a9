"""Tensor math layers (paddle.* 2.0 names and fluid.layers 1.8 names)."""
from ..framework.dtypes import convert_dtype
from ..framework.layer_helper import LayerHelper
from ..framework.math_patch import scale as _scale
from .common import append_op_out, binary, check_variable, unary

__all__ = ["mean", "fluid_mean"]


def mean(x, axis=None, keepdim=False, name=None):
    """Mean of all elements (axis=None) as a [1] tensor; with axis, reduce_mean."""
    if axis is None:
        return unary("mean", x, name=name)
    return _reduce("reduce_mean", x, axis, keepdim, name)


def fluid_mean(x, name=None):
    return unary("mean", x, name=name)


def _reduce(op_type, x, axis, keepdim, name, out_dtype=None):
    check_variable(x, "x", op_type)
    dims = [] if axis is None else (list(axis) if isinstance(axis, (list, tuple)) else [axis])
    return unary(op_type, x, {"dim": dims or [0], "keep_dim": keepdim,
                              "reduce_all": not dims}, name, out_dtype)


def _paddle_reduce(op_type):
    def layer(x, axis=None, keepdim=False, name=None):
        return _reduce(op_type, x, axis, keepdim, name)
    layer.__name__ = op_type
    layer.__doc__ = "%s over `axis` (all dims when None)." % op_type
    return layer


def _fluid_reduce(op_type):
    def layer(input, dim=None, keep_dim=False, name=None):
        return _reduce(op_type, input, dim, keep_dim, name)
    layer.__name__ = op_type
    layer.__doc__ = "%s over `dim` (all dims when None)." % op_type
    return layer


def paddle_sum(x, axis=None, dtype=None, keepdim=False, name=None):
    out = _reduce("reduce_sum", x, axis, keepdim, name)
    return cast(out, dtype) if dtype is not None else out


def _paddle_binary(op_type):
    def layer(x, y, name=None):
        return binary(op_type, x, y, name=name)
    layer.__name__ = op_type
    layer.__doc__ = "%s with numpy broadcasting." % op_type
    return layer


def _fluid_binary(op_type):
    def layer(x, y, axis=-1, act=None, name=None):
        return binary(op_type, x, y, axis=axis, act=act, name=name)
    layer.__name__ = op_type
    layer.__doc__ = "%s with Paddle's `axis` broadcasting, then `act`." % op_type
    return layer


def _paddle_unary(op_type, **fixed):
    def layer(x, name=None):
        return unary(op_type, x, dict(fixed), name)
    layer.__name__ = op_type
    layer.__doc__ = "elementwise %s" % op_type
    return layer


def _compare(op_type):
    def layer(x, y, name=None, cond=None, force_cpu=None):
        return append_op_out(op_type, {"X": [x], "Y": [y]}, {"axis": -1}, name,
                             out_dtype="bool", stop_gradient=True)
    layer.__name__ = op_type
    return layer


def logical_not(x, out=None, name=None):
    return unary("logical_not", x, name=name, out_dtype="bool")


def matmul(x, y, transpose_x=False, transpose_y=False, name=None):
    """paddle.matmul (matmul_v2)."""
    return append_op_out("matmul_v2", {"X": [x], "Y": [y]},
                         {"trans_x": transpose_x, "trans_y": transpose_y}, name)


def fluid_matmul(x, y, transpose_x=False, transpose_y=False, alpha=1.0, name=None):
    return append_op_out("matmul", {"X": [x], "Y": [y]},
                         {"transpose_X": transpose_x, "transpose_Y": transpose_y,
                          "alpha": float(alpha)}, name)


def scale(x, scale=1.0, bias=0.0, bias_after_scale=True, act=None, name=None):
    out = unary("scale", x, {"scale": float(scale), "bias": float(bias),
                             "bias_after_scale": bias_after_scale}, name)
    return LayerHelper("scale").append_activation(out, act)


def pow(x, y=1.0, name=None):
    """x ** y: a scalar y is the `pow` op, a Variable y is elementwise_pow."""
    if isinstance(y, (int, float)):
        return unary("pow", x, {"factor": float(y)}, name)
    return binary("elementwise_pow", x, y, name=name)


def fluid_pow(x, factor=1.0, name=None):
    return unary("pow", x, {"factor": float(factor)}, name)


def clip(x, min=None, max=None, name=None):
    return unary("clip", x, {"min": float("-inf") if min is None else float(min),
                             "max": float("inf") if max is None else float(max)}, name)


def cast(x, dtype):
    return unary("cast", x, {"in_dtype": x.dtype.name, "out_dtype": convert_dtype(dtype)},
                 out_dtype=convert_dtype(dtype))


def add_n(inputs, name=None):
    inputs = inputs if isinstance(inputs, (list, tuple)) else [inputs]
    return append_op_out("sum", {"X": list(inputs)}, {}, name)


def sums(input, out=None):
    return add_n(input)


_UNARY = ["exp", "log", "sqrt", "rsqrt", "square", "abs", "sign", "sin", "cos", "floor",
          "ceil", "round", "reciprocal"]
_BINARY = {"add": "elementwise_add", "subtract": "elementwise_sub",
           "multiply": "elementwise_mul", "divide": "elementwise_div",
           "maximum": "elementwise_max", "minimum": "elementwise_min",
           "floor_divide": "elementwise_floordiv", "remainder": "elementwise_mod",
           "mod": "elementwise_mod"}
_COMPARE = ["less_than", "less_equal", "greater_than", "greater_equal", "equal", "not_equal",
            "logical_and", "logical_or", "logical_xor"]
_REDUCE = {"max": "reduce_max", "min": "reduce_min", "prod": "reduce_prod"}

EXPORTS = {
    "paddle": dict(
        {"mean": mean, "sum": paddle_sum, "matmul": matmul, "scale": scale, "pow": pow,
         "clip": clip, "cast": cast, "add_n": add_n, "logical_not": logical_not},
        **{n: _paddle_unary(n) for n in _UNARY},
        **{n: _paddle_binary(t) for n, t in _BINARY.items()},
        **{n: _compare(n) for n in _COMPARE},
        **{n: _paddle_reduce(t) for n, t in _REDUCE.items()}),
    "fluid.layers": dict(
        {"mean": fluid_mean, "matmul": fluid_matmul, "scale": scale, "pow": fluid_pow,
         "clip": clip, "cast": cast, "sums": sums, "logical_not": logical_not},
        **{n: _paddle_unary(n) for n in _UNARY},
        **{t: _fluid_binary(t) for t in list(_BINARY.values()) + ["elementwise_pow"]},
        **{n: _compare(n) for n in _COMPARE},
        **{t: _fluid_reduce(t) for t in
           ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod"]}),
}
