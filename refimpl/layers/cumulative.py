"""Paddle 3's running reductions and differences along an axis: logcumsumexp, cummax,
cummin, cumprod (their own ops, refimpl/ops/cumulative.py), and diff, trapezoid,
cumulative_trapezoid composed from slices, sums and cumsums (as 3.3.1 composes them)."""
import numpy as np

from ..framework.dtypes import get_dtype
from ..framework.program import Variable
from . import math, tensor
from .common import append_op_out, check_dtype, check_variable, in_place, paddle_api

SCAN_DTYPES = ("float16", "float32", "float64", "int32", "int64")
EXTREME_DTYPES = ("float32", "float64", "int32", "int64")


def _along(x, axis):
    """(x, axis) for a scan: axis None scans the flattened x."""
    return (tensor.reshape(x, [-1]), 0) if axis is None else (x, int(axis))


def logcumsumexp(x, axis=None, dtype=None, name=None):
    """log(cumsum(exp(x))) along `axis` (None: of the flattened x), in `dtype` when given;
    integers compute in float32 (3.3.1 casts them)."""
    check_dtype(x, "x", "logcumsumexp", SCAN_DTYPES)
    if dtype is not None:
        x = math.cast(x, dtype)
    elif x.dtype.name.startswith("int"):
        x = math.cast(x, "float32")
    attrs = {"axis": -1 if axis is None else int(axis), "flatten": axis is None}
    return append_op_out("logcumsumexp", {"X": [x]}, attrs, name)


def _extreme(op_type):
    def scan(x, axis=None, dtype="int64", name=None):
        check_dtype(x, "x", op_type, EXTREME_DTYPES)
        x, axis = _along(x, axis)
        index_dtype = get_dtype(dtype)
        if index_dtype.name not in ("int32", "int64"):
            raise ValueError("%s: dtype of the indices must be int32 or int64, got %s"
                             % (op_type, index_dtype.name))
        return append_op_out(op_type, {"x": [x]}, {"axis": axis, "dtype": int(index_dtype)},
                             name, out_slot="out",
                             extra_outputs=[("indices", index_dtype.name)])
    scan.__name__ = op_type
    scan.__doc__ = ("paddle.%s: (values, indices) of the running %s along `axis` (None: "
                    "of the flattened x); indices of `dtype`." % (op_type, op_type[3:]))
    return scan


cummax = _extreme("cummax")
cummin = _extreme("cummin")


def cumprod(x, dim=None, dtype=None, name=None):
    """The running product along `dim` (None: of the flattened x), in `dtype` when given."""
    check_dtype(x, "x", "cumprod", SCAN_DTYPES + ("complex64", "complex128"))
    if dtype is not None:
        x = math.cast(x, dtype)
    x, dim = _along(x, dim)
    return append_op_out("cumprod", {"X": [x]}, {"dim": dim}, name)


def diff(x, n=1, axis=-1, prepend=None, append=None, name=None):
    """The n-th forward difference along `axis` after putting `prepend` before and `append`
    after x there; bool x: XOR of neighbours."""
    check_variable(x, "x", "diff")
    if not x.shape:
        raise ValueError("diff: expects x to be at least one-dimensional, got a 0-D %r"
                         % x.name)
    axis = int(axis) % len(x.shape)
    parts = [v for v in (prepend, x, append) if v is not None]
    if len(parts) > 1:
        x = tensor.concat(parts, axis)
    step = paddle_api("logical_xor" if x.dtype.name == "bool" else "subtract")
    for _ in range(int(n)):
        x = step(tensor.slice(x, [axis], [1], [2 ** 62]), tensor.slice(x, [axis], [0], [-1]))
    return x


def _intervals(layer, y, x, dx, axis):
    """The trapezoid areas between neighbours of y along `axis`: spacing x's differences
    (x 1-D along the axis, or y's shape), else dx (default 1)."""
    check_dtype(y, "y", layer, ("float16", "float32", "float64"))
    if x is not None and dx is not None:
        raise ValueError("%s: not permitted to specify both x and dx input args" % layer)
    axis = int(axis) % len(y.shape)
    heights = paddle_api("add")(tensor.slice(y, [axis], [1], [2 ** 62]),
                                tensor.slice(y, [axis], [0], [-1]))
    if isinstance(dx, Variable):
        if len(dx.shape) > 1 or int(np.prod(dx.shape)) != 1:
            raise ValueError("%s: dx must be a number or a one-element Tensor, got shape %s"
                             % (layer, list(dx.shape)))
        return paddle_api("multiply")(math.scale(heights, 0.5),
                                      math.cast(tensor.reshape(dx, []), y.dtype.name))
    if x is None:
        return math.scale(heights, 0.5 * (1.0 if dx is None else float(dx)))
    check_dtype(x, "x", layer, ("float16", "float32", "float64"))
    if len(x.shape) not in (1, len(y.shape)):
        raise ValueError("%s: x must be 1-D or of y's rank %d, got shape %s"
                         % (layer, len(y.shape), list(x.shape)))
    widths = diff(x, axis=-1 if len(x.shape) == 1 else axis)
    if len(x.shape) == 1:
        widths = tensor.reshape(widths, [-1] + [1] * (len(y.shape) - 1 - axis))
    return math.scale(paddle_api("multiply")(heights, widths), 0.5)


def trapezoid(y, x=None, dx=None, axis=-1, name=None):
    """The integral of y along `axis` by the trapezoid rule."""
    return paddle_api("sum")(_intervals("trapezoid", y, x, dx, axis), axis, name=name)


def cumulative_trapezoid(y, x=None, dx=None, axis=-1, name=None):
    """The running integral of y along `axis` by the trapezoid rule (one fewer element)."""
    return paddle_api("cumsum")(_intervals("cumulative_trapezoid", y, x, dx, axis), axis,
                                name=name)


EXPORTS = {
    "paddle": {"logcumsumexp": logcumsumexp, "cummax": cummax, "cummin": cummin,
               "cumprod": cumprod, "cumprod_": in_place(cumprod, "cumprod_"), "diff": diff,
               "trapezoid": trapezoid, "cumulative_trapezoid": cumulative_trapezoid},
}
