"""Tensor math layers: paddle.* (2.0 names and signatures) and fluid.layers.* (1.8)."""
import numpy as np

from .. import versions
from ..dygraph.tensor import Tensor
from ..framework import mode
from ..framework.dtypes import convert_dtype
from ..framework.layer_helper import LayerHelper
from ..framework.math_patch import cast as _cast
from ..framework.program import Variable, warn_force_cpu
from .creation import assign, fill_constant
from .common import (append_op_out, binary, check_dtype, check_static_dtype, check_variable,
                     check_variables, real_arg, unary)

__all__ = ["mean", "fluid_mean", "cast", "matmul", "scale", "clip"]


# -- reductions
def mean(x, axis=None, keepdim=False, name=None):
    """reduce_mean over `axis` (None: every axis, reduce_all), as Paddle 2.0's and 3.3.1's
    paddle.mean build it (fluid.layers.mean is the `mean` op); a static x of float32 or
    float64 only under 2.0 (switch mean_dtypes)."""
    if versions.switch("mean_dtypes") == "checked":
        check_static_dtype(x, "x/input", "mean/reduce_mean", ("float32", "float64"))
    return _reduce("reduce_mean", x, axis, keepdim, name, "mean")


def fluid_mean(x, name=None):
    return unary("mean", x, name=name)


def _check_axis_type(axis, layer):
    """paddle.max / min / prod's axis: None, an int, a list or a tuple (Paddle 2.0 raises a
    TypeError for another type; paddle.sum passes it on to the op)."""
    if axis is not None and not isinstance(axis, (int, np.integer, list, tuple)):
        raise TypeError("%s: axis must be an int, list or tuple, got %s %r"
                        % (layer, type(axis).__name__, axis))


def _dims(axis):
    """Paddle's (dim, reduce_all) for an axis given as int, list or None (every dim: the
    dim attr [0], or [] under 3, switch reduce_all_dim)."""
    dims = [] if axis is None else (list(axis) if isinstance(axis, (list, tuple)) else [axis])
    return dims or list(versions.switch("reduce_all_dim")), not dims


def _reduce(op_type, x, axis, keepdim, name, layer_type=None):
    """reduce_* over `axis`, with Paddle's attrs."""
    dim, reduce_all = _dims(axis)
    return unary(op_type, x, {"dim": dim, "keep_dim": bool(keepdim), "reduce_all": reduce_all},
                 name, layer_type=layer_type)


# what paddle.max / min / prod take (Paddle 2.0's static check)
REDUCE_DTYPES = ("float32", "float64", "int32", "int64")


def _paddle_reduce(op_type, api_name, dtypes=None):
    """paddle.<api_name>; `dtypes`: what a static x may hold and a checked axis type
    (paddle.max / min), or None: passed on to the op (paddle.all / any)."""
    def layer(x, axis=None, keepdim=False, name=None):
        if dtypes is not None:
            _check_axis_type(axis, api_name)
            check_static_dtype(x, "x", api_name, dtypes)
        return _reduce(op_type, x, axis, keepdim, name, api_name)
    layer.__name__ = api_name
    layer.__doc__ = "%s over `axis` (every dim when None)." % op_type
    return layer


def _fluid_reduce(op_type):
    def layer(input, dim=None, keep_dim=False, name=None):
        return _reduce(op_type, input, dim, keep_dim, name)
    layer.__name__ = op_type
    layer.__doc__ = "%s over `dim` (every dim when None)." % op_type
    return layer


def _check_sum_dtype(x_dtype, dtype):
    """Paddle 2.0's static paddle.sum: dtype among float32 / float64 / int32 / int64, and
    none that would overflow x's."""
    if dtype not in ("float32", "float64", "int32", "int64"):
        raise TypeError("The data type of 'dtype' in sum must be ['float32', 'float64', "
                        "'int32', 'int64'], but received %s." % dtype)
    if (x_dtype == "float64" and dtype in ("float32", "int32")) or (
            x_dtype == "int64" and dtype == "int32"):
        raise ValueError("sum: x's dtype is %s but dtype is %s, which may overflow"
                         % (x_dtype, dtype))


def paddle_sum(x, axis=None, dtype=None, keepdim=False, name=None):
    """reduce_sum; bool/int32 sum to int64 unless `dtype` says otherwise (Paddle 2.0)."""
    check_variable(x, "x", "sum")
    if dtype is not None and versions.switch("sum_dtype_checks") and \
            not mode.in_dynamic_mode():
        _check_sum_dtype(x.dtype.name, convert_dtype(dtype))
    if dtype is None and x.dtype.name in ("bool", "int32"):
        dtype = "int64"
    if dtype is not None and convert_dtype(dtype) != x.dtype.name:
        x = cast(x, dtype)
    return _reduce("reduce_sum", x, axis, keepdim, name, "sum")


def prod(x, axis=None, keepdim=False, dtype=None, name=None):
    """reduce_prod, after casting x to `dtype` (one of REDUCE_DTYPES) when given."""
    check_variable(x, "x", "prod")
    if dtype is not None:
        if convert_dtype(dtype) not in REDUCE_DTYPES:
            raise TypeError("prod: dtype must be one of %s, got %s"
                            % (list(REDUCE_DTYPES), convert_dtype(dtype)))
        if convert_dtype(dtype) != x.dtype.name:
            x = cast(x, dtype)
    check_static_dtype(x, "x", "prod", REDUCE_DTYPES)
    _check_axis_type(axis, "prod")
    return _reduce("reduce_prod", x, axis, keepdim, name)


def logsumexp(x, axis=None, keepdim=False, name=None):
    check_variable(x, "x", "logsumexp")
    if x.dtype.name in ("int32", "int64") and versions.switch("logsumexp_ints") == "float32":
        x = _cast(x, "float32")     # Paddle 3 casts integers; 1.8 / 2.0: the op refuses them
    dim, reduce_all = _dims(axis)
    return unary("logsumexp", x, {"axis": dim, "keepdim": bool(keepdim),
                                  "reduce_all": reduce_all}, name)


# -- elementwise binary
# what 1.8's fluid.layers.elementwise_* and 2.0's paddle.add / multiply / ... take
_FLUID_BINARY_DTYPES = ("float16", "float32", "float64", "int32", "int64")


def _check_binary_dtypes(op_type, x, y):
    """Paddle 2.0's paddle.add / multiply / ...: static operands of _FLUID_BINARY_DTYPES
    (TypeError); eager ones with a CPU kernel, complex too (RuntimeError, as its missing
    kernel raises; its test_multiply expects both for int8). In dynamic mode an operand
    that is no Tensor is a ValueError, as 2.0's core.ops argument parsing raises."""
    for arg, v in (("x", x), ("y", y)):
        if mode.dynamic and not isinstance(v, Variable):
            raise ValueError("%s: %s must be a Tensor, got %s" % (op_type, arg,
                                                                  type(v).__name__))
        if isinstance(v, Tensor) and mode.dynamic:
            _check_eager_kernel(op_type, arg, v)
        else:
            check_dtype(v, arg, op_type, _FLUID_BINARY_DTYPES)


def _check_eager_kernel(op_type, arg, v):
    """An eager operand needs a CPU kernel of its dtype, complex ones too (Paddle 2.0's
    RuntimeError); dygraph mode checks no dtype before it."""
    if v.dtype.name not in _FLUID_BINARY_DTYPES + ("complex64", "complex128"):
        raise RuntimeError("%s has no kernel for %s %s (Paddle 2.0)"
                           % (op_type, arg, v.dtype.name))


def _paddle_binary(op_type):
    def layer(x, y, name=None):
        if versions.switch("elementwise_api_dtypes") == "checked":
            _check_binary_dtypes(op_type, x, y)
        if op_type == "elementwise_div" and versions.switch("int_divide") == "true" and \
                x.dtype.name.startswith("int") and y.dtype.name.startswith("int"):
            # paddle.divide of integers divides truly, in float32 (Paddle 3)
            x, y = _cast(x, "float32"), _cast(y, "float32")
        return binary(op_type, x, y, name=name)
    layer.__name__ = op_type
    layer.__doc__ = "%s with numpy broadcasting." % op_type
    return layer


def _fluid_binary(op_type):
    def layer(x, y, axis=-1, act=None, name=None):
        for arg, v in (("x", x), ("y", y)):
            check_variable(v, arg, op_type)
            if mode.dynamic and isinstance(v, Tensor):
                # 1.8.5's and 2.0's dygraph branch runs the op unchecked
                _check_eager_kernel(op_type, arg, v)
            elif v.dtype.name not in _FLUID_BINARY_DTYPES:
                raise TypeError("%s: the data type of %s must be one of %s, got %s"
                                % (op_type, arg, list(_FLUID_BINARY_DTYPES), v.dtype.name))
        return binary(op_type, x, y, axis=axis, act=act, name=name)
    layer.__name__ = op_type
    layer.__doc__ = "%s with Paddle's `axis` broadcasting, then `act`." % op_type
    return layer


def pow(x, y=1.0, name=None):
    """x ** y: a scalar y is the `pow` op, a Variable y is elementwise_pow; anything else
    is a TypeError in 3.3.1's words."""
    if isinstance(y, (int, float)):
        return unary("pow", x, {"factor": float(y)}, name)
    if not isinstance(y, Variable):
        raise TypeError("pow: y must be scalar type, but received: %s " % type(y))
    return binary("elementwise_pow", x, y, name=name)


def fluid_pow(x, factor=1.0, name=None):
    """x ** factor; `factor` a number or a 1-element float32 Variable (run time)."""
    if isinstance(factor, Variable):
        return append_op_out("pow", {"X": [x], "FactorTensor": [factor]}, {"factor": 1.0},
                             name)
    return unary("pow", x, {"factor": float(factor)}, name)


# -- elementwise unary
def _paddle_unary(op_type):
    def layer(x, name=None):
        return unary(op_type, x, None, name)
    layer.__name__ = op_type
    layer.__doc__ = "elementwise %s" % op_type
    return layer


def fluid_sign(x):
    """fluid.layers.sign: elementwise sign of a float Variable, or of a numpy array, which
    is assigned first (Paddle 1.8's and 2.0's fluid layer)."""
    if isinstance(x, np.ndarray):
        x = assign(x)
    check_dtype(x, "x", "sign", ("float16", "float32", "float64"))
    return unary("sign", x)


def scale(x, scale=1.0, bias=0.0, bias_after_scale=True, act=None, name=None):
    """`scale` a number, or a [1] Variable (the op's ScaleTensor)."""
    check_variable(x, "x", "scale")
    inputs = {"X": [x]}
    if isinstance(scale, Variable):
        inputs["ScaleTensor"], scale = [scale], 1.0
    out = append_op_out("scale", inputs, {"scale": real_arg("scale", "scale", scale),
                                          "bias": real_arg("scale", "bias", bias),
                                          "bias_after_scale": bias_after_scale}, name)
    return LayerHelper("scale").append_activation(out, act)


def cos_sim(X, Y):
    """The cosine similarity of each row of X [N, D] with Y's matching row (or Y's one
    row): [N, 1], carrying X's LoD (op cos_sim)."""
    check_variable(X, "X", "cos_sim")
    check_variable(Y, "Y", "cos_sim")
    helper = LayerHelper("cos_sim")
    out, x_norm, y_norm = (helper.create_variable_for_type_inference(X.dtype)
                           for _ in range(3))
    helper.append_op(type="cos_sim", inputs={"X": [X], "Y": [Y]},
                     outputs={"Out": [out], "XNorm": [x_norm], "YNorm": [y_norm]})
    return out


def clip(x, min=None, max=None, name=None):
    """Limit x to [min, max]; a missing bound is unbounded. A bound may be a 1-element
    tensor (the op's Min / Max input, read at run time)."""
    inputs, attrs = {"X": [x]}, {}
    for slot, bound, unbounded in (("Min", min, float("-inf")), ("Max", max, float("inf"))):
        if bound is None or isinstance(bound, (int, float, np.number)):
            attrs[slot.lower()] = unbounded if bound is None else float(bound)
        else:
            check_variable(bound, slot.lower(), "clip")
            inputs[slot], attrs[slot.lower()] = [bound], unbounded
    if len(inputs) == 1:
        return unary("clip", x, attrs, name)
    check_variable(x, "x", "clip")
    return append_op_out("clip", inputs, attrs, name)


def stanh(x, scale_a=0.67, scale_b=1.7159, name=None):
    return unary("stanh", x, {"scale_a": float(scale_a), "scale_b": float(scale_b)}, name)


def cast(x, dtype):
    check_variable(x, "x", "cast")
    return _cast(x, dtype)


# -- comparisons and logic: bool outputs that stop gradients
def _bool_out(op_type, inputs, attrs, name, out, layer_type=None, out_dtype="bool"):
    """Append op_type (no gradient) writing into `out` when given (fluid's cond=/out=),
    else a new var of `out_dtype`."""
    for slot, v in inputs.items():
        check_variable(v[0], slot.lower(), op_type)
    check_variables(op_type, out=out)
    if out is None:
        return append_op_out(op_type, inputs, attrs, name, out_dtype=out_dtype,
                             stop_gradient=True, layer_type=layer_type)
    LayerHelper(op_type, name=name).append_op(type=op_type, inputs=inputs,
                                              outputs={"Out": [out]}, attrs=attrs)
    return out


def _paddle_compare(op_type):
    def layer(x, y, name=None):
        if op_type == "equal" and isinstance(y, (bool, int, float)) and \
                versions.switch("equal_number_y") == "full" and isinstance(x, Variable):
            y = fill_constant([], x.dtype, y)      # Paddle 3: a 0-D constant of x's dtype
        return _bool_out(op_type, {"X": [x], "Y": [y]}, {"axis": -1}, name, None)
    layer.__name__ = op_type
    layer.__doc__ = "elementwise %s (bool), numpy broadcasting" % op_type
    return layer


def _fluid_compare(op_type):
    def layer(x, y, cond=None, name=None, force_cpu=None):
        return _bool_out(op_type, {"X": [x], "Y": [y]}, {"axis": -1}, name, cond)
    layer.__name__ = op_type
    layer.__doc__ = "elementwise %s (bool); writes into `cond` when given" % op_type
    return layer


def fluid_less_than(x, y, force_cpu=None, cond=None, name=None):
    if force_cpu is not None:
        warn_force_cpu("less_than")
    return _bool_out("less_than", {"X": [x], "Y": [y]}, {"axis": -1}, name, cond)


def _logical(op_type):
    def layer(x, y, out=None, name=None):
        return _bool_out(op_type, {"X": [x], "Y": [y]}, {}, name, out)
    layer.__name__ = op_type
    layer.__doc__ = "elementwise %s of bool tensors; writes into `out` when given" % op_type
    return layer


def logical_not(x, out=None, name=None):
    return _bool_out("logical_not", {"X": [x]}, {}, name, out)


BITWISE_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64")


def _bitwise_out(op_type, inputs, name, out):
    """A bitwise op: static operands of BITWISE_DTYPES (a TypeError naming the argument,
    as Paddle 3's check), the result of x's dtype."""
    for arg, v in inputs.items():
        check_static_dtype(v[0], arg.lower(), op_type, BITWISE_DTYPES)
    return _bool_out(op_type, inputs, {}, name, out, out_dtype=inputs["X"][0].dtype)


def _bitwise(op_type):
    def layer(x, y, out=None, name=None):
        return _bitwise_out(op_type, {"X": [x], "Y": [y]}, name, out)
    layer.__name__ = op_type
    layer.__doc__ = ("elementwise %s of integer or bool tensors (broadcast); writes into "
                     "`out` when given" % op_type)
    return layer


def bitwise_not(x, out=None, name=None):
    return _bitwise_out("bitwise_not", {"X": [x]}, name, out)


def equal_all(x, y, name=None):
    """True (0-D bool) when x and y have one shape and equal elements."""
    return _bool_out("equal_all", {"X": [x], "Y": [y]}, {}, name, None)


def _bool_test(op_type):
    def layer(x, name=None):
        return _bool_out(op_type, {"X": [x]}, {}, name, None)
    layer.__name__ = op_type
    return layer


# -- matrix products
def matmul(x, y, transpose_x=False, transpose_y=False, name=None):
    """paddle.matmul (matmul_v2)."""
    return append_op_out("matmul_v2", {"X": [x], "Y": [y]},
                         {"trans_x": transpose_x, "trans_y": transpose_y}, name)


def mm(input, mat2, name=None):
    return append_op_out("matmul_v2", {"X": [input], "Y": [mat2]},
                         {"trans_x": False, "trans_y": False}, name, layer_type="mm")


def bmm(x, y, name=None):
    """Batched [b, m, k] x [b, k, n]. The shapes are checked first, as Paddle 2.0 checks
    them, so that arrays of wrong shapes are a ValueError in static mode too (its
    test_bmm_op passes ndarrays)."""
    x_shape, y_shape = list(np.shape(x)), list(np.shape(y))
    if not len(x_shape) == len(y_shape) == 3:
        raise ValueError("bmm: x and y must be 3-D, got shapes %s and %s" % (x_shape, y_shape))
    for what, a, b in (("x's last dim and y's second", x_shape[2], y_shape[1]),
                       ("the batch sizes", x_shape[0], y_shape[0])):
        if a >= 0 and b >= 0 and a != b:
            raise ValueError("bmm: %s must be equal, got shapes %s and %s"
                             % (what, x_shape, y_shape))
    return append_op_out("bmm", {"X": [x], "Y": [y]}, {}, name)


def dot(x, y, name=None):
    return append_op_out("dot", {"X": [x], "Y": [y]}, {}, name)


def fluid_matmul(x, y, transpose_x=False, transpose_y=False, alpha=1.0, name=None):
    return append_op_out("matmul", {"X": [x], "Y": [y]},
                         {"transpose_X": transpose_x, "transpose_Y": transpose_y,
                          "alpha": float(alpha)}, name)


def fluid_mul(x, y, x_num_col_dims=1, y_num_col_dims=1, name=None):
    return append_op_out("mul", {"X": [x], "Y": [y]},
                         {"x_num_col_dims": x_num_col_dims, "y_num_col_dims": y_num_col_dims},
                         name)


# -- sums of lists
def add_n(inputs, name=None):
    inputs = inputs if isinstance(inputs, (list, tuple)) else [inputs]
    return append_op_out("sum", {"X": list(inputs)}, {}, name)


def sums(input, out=None):
    """fluid.layers.sums: the sum of `input`, written into `out` when given (e.g. a
    persistable accumulator summed with itself, as 1.8's evaluators do)."""
    if out is None:
        return add_n(input)
    check_variable(out, "out", "sums")
    LayerHelper("sum").append_op(type="sum", inputs={"X": list(input)},
                                 outputs={"Out": [out]})
    return out


def fluid_sum(x):
    return add_n(x)


_UNARY = ["exp", "log", "sqrt", "rsqrt", "square", "abs", "sign", "sin", "cos", "tan", "asin",
          "acos", "atan", "sinh", "cosh", "floor", "ceil", "round", "reciprocal", "erf"]
_PADDLE_ONLY_UNARY = ["log2", "log10", "log1p"]
_BINARY = {"add": "elementwise_add", "subtract": "elementwise_sub",
           "multiply": "elementwise_mul", "divide": "elementwise_div",
           "maximum": "elementwise_max", "minimum": "elementwise_min",
           "floor_divide": "elementwise_floordiv", "remainder": "elementwise_mod",
           "mod": "elementwise_mod", "floor_mod": "elementwise_mod"}
_COMPARE = ["less_than", "less_equal", "greater_than", "greater_equal", "equal", "not_equal"]
_LOGICAL = ["logical_and", "logical_or", "logical_xor"]
_BITWISE = ["bitwise_and", "bitwise_or", "bitwise_xor"]
_REDUCE = ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod",
           "reduce_all", "reduce_any"]

def allclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    """A tolerance given as a Variable (3.3.1's PIR allclose takes a Value; Paddle 3's
    op tests pass the Rtol / Atol tensors) feeds the op's Rtol / Atol input."""
    inputs, attrs = {"Input": [x], "Other": [y]}, {"equal_nan": bool(equal_nan)}
    for attr, value in (("rtol", rtol), ("atol", atol)):
        if isinstance(value, Variable):
            inputs[attr.capitalize()] = [value]
        else:
            attrs[attr] = str(float(value))
    return append_op_out("allclose", inputs, attrs, name, out_dtype="bool",
                         stop_gradient=True)


def broadcast_shape(x_shape, y_shape):
    """The shape x_shape and y_shape broadcast to, by Paddle's rule (its compile-time
    one: an unknown dim, -1, with a dim > 1 is that dim, with 1 or -1 stays -1); a
    ValueError when two dims > 1 differ."""
    n = max(len(x_shape), len(y_shape))
    xs = [1] * (n - len(x_shape)) + list(x_shape)
    ys = [1] * (n - len(y_shape)) + list(y_shape)
    out = []
    for i, (a, b) in enumerate(zip(xs, ys)):
        if a != b and a > 1 and b > 1:
            raise ValueError("broadcast_shape: %s and %s do not broadcast: dim %d of the "
                             "aligned shapes is %d and %d" % (list(x_shape), list(y_shape),
                                                              i, a, b))
        out.append(max(a, b) if a > 1 or b > 1 or a == b == 1 else -1)
    return out


EXPORTS = {
    "paddle": dict(
        {"broadcast_shape": broadcast_shape, "mean": mean, "sum": paddle_sum, "prod": prod,
         "logsumexp": logsumexp,
         "max": _paddle_reduce("reduce_max", "max", REDUCE_DTYPES),
         "min": _paddle_reduce("reduce_min", "min", REDUCE_DTYPES),
         "all": _paddle_reduce("reduce_all", "all"), "any": _paddle_reduce("reduce_any", "any"),
         "matmul": matmul, "mm": mm, "bmm": bmm, "dot": dot, "scale": scale, "pow": pow,
         "clip": clip, "stanh": stanh, "cast": cast, "add_n": add_n,
         "logical_not": logical_not, "equal_all": equal_all, "allclose": allclose,
         "bitwise_not": bitwise_not,
         "isfinite": _bool_test("isfinite_v2"), "isinf": _bool_test("isinf_v2"),
         "isnan": _bool_test("isnan_v2")},
        **{n: _paddle_unary(n) for n in _UNARY + _PADDLE_ONLY_UNARY},
        **{n: _paddle_binary(t) for n, t in _BINARY.items()},
        **{n: _paddle_compare(n) for n in _COMPARE},
        **{n: _logical(n) for n in _LOGICAL},
        **{n: _bitwise(n) for n in _BITWISE}),
    "fluid.layers": dict(
        {"mean": fluid_mean, "matmul": fluid_matmul, "mul": fluid_mul, "scale": scale,
         "cos_sim": cos_sim,
         "pow": fluid_pow, "clip": clip, "stanh": stanh, "cast": cast, "sums": sums,
         "sum": fluid_sum, "logical_not": logical_not, "less_than": fluid_less_than,
         "isfinite": _bool_test("isfinite"), "has_inf": _bool_test("isinf"),
         "has_nan": _bool_test("isnan"), "sign": fluid_sign},
        **{n: _paddle_unary(n) for n in _UNARY if n != "sign"},
        **{t: _fluid_binary(t) for t in list(_BINARY.values()) + ["elementwise_pow"]},
        **{n: _fluid_compare(n) for n in _COMPARE if n != "less_than"},
        **{n: _logical(n) for n in _LOGICAL},
        **{t: _fluid_reduce(t) for t in _REDUCE}),
}
