"""Linear algebra and statistics layers of the Paddle 2.0 API: trace, kron, cross, mv,
addmm, inverse, cholesky, norm, dist, allclose, std, var, median, histogram. norm's p-norms,
std, var and median are composed from existing ops (abs, pow, reduce_*, argsort, slice), so
their gradients come from those ops."""
import numpy as np

from ..ops.manip_ops import _FIRST_DIM_OF_3
from . import creation, math, tensor
from .common import append_op_out, as_list, check_variable, unary


def trace(x, offset=0, axis1=0, axis2=1, name=None):
    check_variable(x, "x", "trace")
    return append_op_out("trace", {"Input": [x]}, {"offset": int(offset), "axis1": int(axis1),
                                                   "axis2": int(axis2)}, name)


def kron(x, y, name=None):
    return append_op_out("kron", {"X": [x], "Y": [y]}, {}, name)


def cross(x, y, axis=None, name=None):
    return append_op_out("cross", {"X": [x], "Y": [y]},
                         {"dim": _FIRST_DIM_OF_3 if axis is None else int(axis)}, name)


def mv(x, vec, name=None):
    return append_op_out("mv", {"X": [x], "Vec": [vec]}, {}, name)


def addmm(input, x, y, beta=1.0, alpha=1.0, name=None):
    """beta * input + alpha * (x @ y)."""
    return append_op_out("addmm", {"Input": [input], "X": [x], "Y": [y]},
                         {"Alpha": float(alpha), "Beta": float(beta)}, name)


def inverse(x, name=None):
    check_variable(x, "x", "inverse")
    return append_op_out("inverse", {"Input": [x]}, {}, name, out_slot="Output")


def cholesky(x, upper=False, name=None):
    return unary("cholesky", x, {"upper": bool(upper)}, name)


def dist(x, y, p=2):
    return append_op_out("dist", {"X": [x], "Y": [y]}, {"p": float(p)})


def allclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    return append_op_out("allclose", {"Input": [x], "Other": [y]},
                         {"rtol": str(float(rtol)), "atol": str(float(atol)),
                          "equal_nan": bool(equal_nan)}, name, out_dtype="bool",
                         stop_gradient=True)


def histogram(input, bins=100, min=0, max=0):
    return append_op_out("histogram", {"X": [input]}, {"bins": int(bins), "min": min,
                                                       "max": max},
                         out_dtype="int64", stop_gradient=True)


def _reduce_axes(x, axis):
    """Paddle's axis argument as a list of non-negative dims (None: all dims)."""
    nd = len(x.shape)
    axes = list(range(nd)) if axis is None else [int(a) for a in as_list(axis)]
    for a in axes:
        if not -nd <= a < nd:
            raise ValueError("axis %d is out of range for %r of rank %d" % (a, x.name, nd))
    return sorted(a % nd for a in axes)


def norm(x, p="fro", axis=None, keepdim=False, name=None):
    """'fro': sqrt of the sum of squares (the frobenius_norm op) over `axis` (None: all).
    A number p: the vector p-norm over `axis` (None: all elements): (sum |x|^p)^(1/p);
    inf / -inf: max / min |x|; 0: the count of nonzeros."""
    check_variable(x, "x", "norm")
    axes = _reduce_axes(x, axis)
    if p == "fro":
        if axis is not None and len(axes) > 2:
            raise ValueError("norm: p='fro' takes at most 2 axes, got %s" % list(axis))
        return unary("frobenius_norm", x, {"dim": axes, "keep_dim": keepdim,
                                           "reduce_all": axis is None}, name)
    if isinstance(p, str):
        raise ValueError("norm: p must be 'fro' or a number, got %r" % p)
    p = float(p)
    if p == 0:
        nonzero = math._paddle_compare("not_equal")(x, creation.zeros_like(x))
        return math._reduce("reduce_sum", math.cast(nonzero, x.dtype), axes, keepdim, name)
    magnitude = _abs(x)
    if np.isinf(p):
        return math._reduce("reduce_max" if p > 0 else "reduce_min", magnitude, axes,
                            keepdim, name)
    total = math._reduce("reduce_sum", math.pow(magnitude, p), axes, keepdim, None)
    return math.pow(total, 1.0 / p, name)


_abs = math._paddle_unary("abs")


def _count(x, axes, layer):
    """How many elements each reduction over `axes` sees; those dims must be known."""
    dims = [x.shape[a] for a in axes]
    if any(d < 0 for d in dims):
        raise ValueError("%s: the reduced dims %s of %r must be known at build time, got shape "
                         "%s" % (layer, axes, x.name, list(x.shape)))
    return int(np.prod(dims))


def var(x, axis=None, unbiased=True, keepdim=False, name=None):
    """mean of squared deviations from the mean over `axis` (None: all), divided by n - 1
    instead of n when unbiased."""
    check_variable(x, "x", "var")
    axes = _reduce_axes(x, axis)
    n = _count(x, axes, "var")
    deviation = math.EXPORTS["paddle"]["subtract"](x, math.mean(x, axes, keepdim=True))
    total = math._reduce("reduce_sum", math._paddle_unary("square")(deviation), axes, keepdim,
                         None)
    return math.scale(total, 1.0 / max(n - (1 if unbiased else 0), 1), name=name)


def std(x, axis=None, unbiased=True, keepdim=False, name=None):
    return math._paddle_unary("sqrt")(var(x, axis, unbiased, keepdim), name)


def median(x, axis=None, keepdim=False, name=None):
    """The middle of the sorted values along `axis` (None: of all elements); for an even
    count the mean of the two middle ones. Differentiable through argsort and slice."""
    check_variable(x, "x", "median")
    source = x
    if axis is None:
        x, axis = tensor.reshape(x, [-1]), 0
    axis = _reduce_axes(x, axis)[0]
    n = _count(x, [axis], "median")
    ordered = tensor.fluid_argsort(x, axis)[0]
    start = (n - 1) // 2
    middle = tensor.slice(ordered, [axis], [start], [n // 2 + 1])
    out = math.mean(middle, axis, keepdim=True)
    if keepdim:
        return tensor.reshape(out, [1] * len(source.shape)) if x is not source else out
    return tensor.squeeze(out, [axis], name)


EXPORTS = {
    "paddle": {"trace": trace, "kron": kron, "cross": cross, "mv": mv, "addmm": addmm,
               "inverse": inverse, "cholesky": cholesky, "dist": dist, "allclose": allclose,
               "histogram": histogram, "norm": norm, "var": var, "std": std,
               "median": median},
}
