"""The methods, properties and operators of a Paddle 2.0 Tensor, in one table.

Paddle 2.0 patches its tensor functions onto the static Variable (and the dygraph Tensor)
as methods: `x.sum()` is `paddle.sum(x)`, `x.reshape([2, 3])` is `paddle.reshape(x, [2,
3])`. refimpl keeps that list here, with the Python operators, indexing and the few
properties (`T`, `size`, ...), and `attach(cls)` puts them on a class: the static
Variable at import, and any other tensor class (an eager Tensor) the same way, so both
have the same method set (specs/tensor_methods.md).
"""
import numpy as np

from .framework import math_patch, unique_name
from .framework.dtypes import to_numpy_dtype
from .layers import exports, subscript
from .layers.common import in_place, in_place_broadcast

__all__ = ["FUNCTION_METHODS", "LINALG_METHODS", "methods", "attach"]

# paddle.<name>(x, ...) is also x.<name>(...): the tensor functions of the Paddle 2.0 API
# index that Paddle patches onto Variable (paddle.tensor's linalg, math, logic,
# manipulation, search, stat and attribute modules), plus 2.0's remainder/floor_mod
FUNCTION_METHODS = (
    "abs", "acos", "add", "add_n", "addmm", "all", "allclose", "any", "argmax", "argmin",
    "argsort", "asin", "atan", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor",
    "bmm", "broadcast_to", "cast", "ceil", "cholesky", "chunk", "clip", "concat", "conj",
    "cos", "cosh", "cross", "cumsum", "diag", "dist", "divide", "dot", "equal", "equal_all",
    "erf", "exp", "expand", "expand_as", "flatten", "flip", "floor", "floor_divide",
    "floor_mod", "gather", "gather_nd", "greater_equal", "greater_than", "histogram", "imag",
    "increment", "index_sample", "index_select", "inverse", "is_empty", "is_tensor",
    "isfinite", "isinf", "isnan", "kron", "less_equal", "less_than", "log", "log10", "log1p",
    "log2", "logical_and", "logical_not", "logical_or", "logical_xor", "logsumexp",
    "masked_select", "matmul", "max", "maximum", "mean", "median", "min", "minimum", "mm",
    "mod", "multinomial", "multiplex", "multiply", "mv", "nonzero", "norm", "not_equal",
    "numel", "pow", "prod", "rank", "real", "reciprocal", "remainder", "reshape", "reshape_",
    "reverse", "roll", "round", "rsqrt", "scale", "scatter", "scatter_", "scatter_nd",
    "scatter_nd_add", "shard_index", "sign", "sin", "sinh", "slice", "softmax", "sort", "split", "sqrt",
    "square", "squeeze", "squeeze_", "stack", "stanh", "std", "strided_slice", "subtract",
    "sum", "t", "tan", "tanh", "tanh_", "tile", "topk", "trace", "transpose", "tril", "triu",
    "unbind", "unique", "unsqueeze", "unsqueeze_", "unstack", "var", "where",
    # Paddle 3's (3.3.1's Tensor methods of the tensor functions added since 2.0)
    "angle", "as_complex", "as_real", "inner", "outer", "polar", "renorm", "renorm_",
    "tensordot", "view_as_complex", "view_as_real",
)

# x.<name>(...) is paddle.linalg.<name>(x, ...) (3.3.1's Tensor methods of paddle.linalg's
# functions that the paddle namespace does not hold)
LINALG_METHODS = (
    "cholesky_inverse", "cholesky_solve", "cond", "eig", "eigvals", "eigvalsh",
    "householder_product", "lstsq", "lu", "lu_unpack", "matrix_power", "multi_dot", "ormqr",
    "pca_lowrank", "pinv", "qr", "slogdet", "solve", "svd_lowrank",
    "corrcoef", "cov",      # (s19stats' functions)
)

# Paddle 3's statistics, scans and searches as methods (3.3.1's Tensor has them; x.cov /
# x.corrcoef are paddle.linalg's functions, not paddle's)
STATISTICS_METHODS = (
    "amax", "amin", "argwhere", "bincount", "bucketize", "cdist", "count_nonzero", "cummax",
    "cummin", "cumprod", "cumprod_", "cumulative_trapezoid", "diff", "histogram_bin_edges",
    "histogramdd", "kthvalue", "logcumsumexp", "mode", "msort", "nanmean", "nanmedian",
    "nanquantile", "nansum", "quantile", "reduce_as", "trapezoid", "unique_consecutive",
)


# x.<name>_(...) is x.<name>(...) in place (Paddle 3's in-place methods, 3.3.1's names):
# on an eager Tensor the tensor itself becomes the result (one more in-place version; a
# leaf that needs a gradient is refused), in static mode the out-of-place op is built
# (layers.common.in_place). Unary ones keep x's shape; for the binary ones the broadcast
# shape must be x's (layers.common.in_place_broadcast).
INPLACE_UNARY = (
    "abs", "acos", "asin", "atan", "bitwise_not", "cast", "ceil", "clip", "cos", "cosh",
    "exp", "floor", "log", "log10", "log1p", "log2", "logical_not", "reciprocal", "round",
    "rsqrt", "scale", "sin", "sinh", "sqrt", "square", "tan",
)
INPLACE_BINARY = (
    "add", "bitwise_and", "bitwise_or", "bitwise_xor", "divide", "equal", "floor_divide",
    "floor_mod", "greater_equal", "greater_than", "less_equal", "less_than", "logical_and",
    "logical_or", "logical_xor", "mod", "multiply", "not_equal", "pow", "remainder",
    "subtract",
)


def _binary(op_type, reverse=False):
    def operator(self, other):
        return math_patch.binary_op(self, other, op_type, reverse)
    operator.__name__ = op_type
    return operator


# Python operators. == and != build equal / not_equal as in Paddle, appended when the
# result is used as a Variable; as a truth value it is Python's identity (the framework
# keeps Variables in lists): math_patch.PendingComparison, specs/tensor_methods.md
_OPERATORS = {
    "__add__": _binary("elementwise_add"), "__radd__": _binary("elementwise_add", True),
    "__sub__": _binary("elementwise_sub"), "__rsub__": _binary("elementwise_sub", True),
    "__mul__": _binary("elementwise_mul"), "__rmul__": _binary("elementwise_mul", True),
    "__truediv__": _binary("elementwise_div"),
    "__rtruediv__": _binary("elementwise_div", True),
    "__pow__": _binary("elementwise_pow"), "__rpow__": _binary("elementwise_pow", True),
    "__floordiv__": _binary("elementwise_floordiv"),
    "__rfloordiv__": _binary("elementwise_floordiv", True),
    "__mod__": _binary("elementwise_mod"), "__rmod__": _binary("elementwise_mod", True),
    "__matmul__": _binary("matmul_v2"), "__rmatmul__": _binary("matmul_v2", True),
    "__lt__": _binary("less_than"), "__le__": _binary("less_equal"),
    "__gt__": _binary("greater_than"), "__ge__": _binary("greater_equal"),
    "__eq__": lambda self, other: math_patch.equality(self, other, "equal"),
    "__ne__": lambda self, other: math_patch.equality(self, other, "not_equal"),
    "__neg__": lambda self: math_patch.scale(self, -1.0),
    # Paddle 3's bitwise operators (paddle.bitwise_*: integer or bool tensors)
    "__and__": lambda self, other: _paddle()["bitwise_and"](self, other),
    "__or__": lambda self, other: _paddle()["bitwise_or"](self, other),
    "__xor__": lambda self, other: _paddle()["bitwise_xor"](self, other),
    "__invert__": lambda self: _paddle()["bitwise_not"](self),
    "__getitem__": subscript.getitem,
    "__setitem__": subscript.setitem,
    "__iter__": subscript.iterate,
}


def _transposed(self):
    """x.T: the axes reversed (a 1-D tensor comes back as it is, as in Paddle)."""
    if len(self.shape) <= 1:
        return self
    return _paddle()["transpose"](self, list(range(len(self.shape)))[::-1])


def _size(self):
    """x.size: the number of elements, as an int64 tensor (paddle.numel)."""
    return _paddle()["numel"](self)


def _matrix_transposed(self):
    """x.mT (Paddle 3): the last two dims swapped (paddle.matrix_transpose)."""
    return _paddle()["matrix_transpose"](self)


_PROPERTIES = {"T": _transposed, "mT": _matrix_transposed, "size": _size}


def _dim(self):
    return len(self.shape)


def _clone(self):
    """x.clone() of a static Variable (Paddle 2.0): a new variable of x's block holding x's
    value through an assign op, so gradients flow back to x; it keeps x's persistable and
    stop_gradient."""
    out = self.block.create_var(name=unique_name.generate(self.name + "_clone"),
                                dtype=self.dtype, persistable=self.persistable,
                                stop_gradient=self.stop_gradient)
    return _paddle()["assign"](self, out)


def _element_size(self):
    """x.element_size() (Paddle 3): the bytes of one element of x's dtype."""
    return np.dtype(to_numpy_dtype(self.dtype)).itemsize


_PLAIN = {
    "astype": math_patch.cast,
    "clone": _clone,
    "dim": _dim,
    "element_size": _element_size,
    "ndimension": _dim,
}

_paddle_functions = None


def _paddle():
    global _paddle_functions
    if _paddle_functions is None:
        _paddle_functions = exports("paddle")
    return _paddle_functions


def methods():
    """{name: function or property} that a Paddle 2.0 tensor class has."""
    functions = _paddle()
    table = {name: functions[name] for name in FUNCTION_METHODS + STATISTICS_METHODS}
    linalg = exports("linalg")
    table.update({name: linalg[name] for name in LINALG_METHODS})
    table["__abs__"] = functions["abs"]
    # numpy hands `array op x` and `np.float64(2) * x` to x's reflected operator (which
    # gives a tensor, as Paddle 2.0's __array_ufunc__ = None does) instead of computing
    # on x's array
    table["__array_priority__"] = 1000
    table.update({name + "_": in_place(functions[name], name + "_") for name in INPLACE_UNARY})
    table.update({name + "_": in_place_broadcast(functions[name], name + "_")
                  for name in INPLACE_BINARY})
    table.update(_OPERATORS)
    table.update(_PLAIN)
    # the methods layer modules declare (Paddle 3's: x.acosh(), x.lerp_(y), x.float(), ...)
    table.update(exports("Tensor"))
    table.update({name: property(getter) for name, getter in _PROPERTIES.items()})
    return table


def attach(cls):
    """Give `cls` every method of the table that it does not define itself (as Paddle's
    patching skips names a class already has, e.g. Variable.shape)."""
    for name, member in methods().items():
        if name not in vars(cls) and not any(name in vars(base) for base in cls.__mro__[1:]
                                             if base is not object):
            setattr(cls, name, member)
