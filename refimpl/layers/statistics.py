"""Statistics layers of the Paddle 2.0 API: histogram, var, std, median. var, std and
median are composed from existing ops (reduce_*, square, sqrt, argsort, slice), so their
gradients come from those ops."""
import numpy as np

from .. import versions
from . import math, tensor
from .common import append_op_out, check_dtype, check_variable, reduce_axes


HISTOGRAM_DTYPES = ("int32", "int64", "float32", "float64")


def histogram(input, bins=100, min=0, max=0):
    """Counts in `bins` bins over [min, max] (the histogram op); input of HISTOGRAM_DTYPES,
    as 2.0 and 3.3.1 check (bool refused, measured on 3.3.1)."""
    check_dtype(input, "input", "histogram", HISTOGRAM_DTYPES)
    if int(bins) < 1 and versions.switch("histogram_bins_error") == "IndexError":
        raise IndexError("histogram: bins must be >= 1, got %d" % int(bins))
    return append_op_out("histogram", {"X": [input]}, {"bins": int(bins), "min": min,
                                                       "max": max},
                         out_dtype="int64", stop_gradient=True)


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
    axes = reduce_axes(x, axis)
    n = _count(x, axes, "var")
    deviation = math.EXPORTS["paddle"]["subtract"](x, math.mean(x, axes, keepdim=True))
    total = math._reduce("reduce_sum", math._paddle_unary("square")(deviation), axes, keepdim,
                         None)
    return math.scale(total, 1.0 / max(n - (1 if unbiased else 0), 1), name=name)


def std(x, axis=None, unbiased=True, keepdim=False, name=None):
    return math._paddle_unary("sqrt")(var(x, axis, unbiased, keepdim), name)


def median(x, axis=None, keepdim=False, mode="avg", name=None):
    """The middle of the sorted values along `axis` (None: of all elements, a one-number
    result); for an even count (mode 'avg') the mean of the two middle ones. float64 stays
    float64, anything else gives float32 (Paddle 2.0 casts the middle values).
    Differentiable through argsort and slice. Paddle 3's mode 'min': the lower middle one in
    x's dtype, with its int64 index when `axis` is given (the kthvalue op); under 2.0
    (switch `median_mode`) the fourth argument is `name`, as 2.0's signature has it."""
    check_variable(x, "x", "median")
    if not versions.switch("median_mode"):
        mode, name = "avg", name if mode == "avg" else mode
    if mode not in ("avg", "min"):
        raise ValueError("median: Mode %s is not supported. Must be avg or min." % (mode,))
    if mode == "min":
        return _lower_median(x, axis, keepdim, name)
    source = x
    if axis is None:
        x, axis = tensor.reshape(x, [-1]), 0
    elif not isinstance(axis, (int, np.integer)) or not -len(x.shape) <= axis < len(x.shape):
        raise ValueError("median: axis must be None or an int in [-%d, %d) for x %r of rank "
                         "%d, got %r" % (len(x.shape), len(x.shape), x.name, len(x.shape),
                                         axis))
    axis = reduce_axes(x, axis)[0]
    n = _count(x, [axis], "median")
    ordered = tensor.fluid_argsort(x, axis)[0]
    start = (n - 1) // 2
    middle = tensor.slice(ordered, [axis], [start], [n // 2 + 1])
    middle = math.cast(middle, "float64" if x.dtype.name == "float64" else "float32")
    out = math.mean(middle, axis, keepdim=True)
    if x is not source:
        shape = [1] * len(source.shape) if keepdim else list(versions.switch("scalar_shape"))
        return tensor.reshape(out, shape, name=name)
    return out if keepdim else tensor.squeeze(out, [axis], name)


def _lower_median(x, axis, keepdim, name):
    """(value, index) of the lower middle element along `axis`; the value alone for
    axis None (of all elements), as 3.3.1."""
    whole = axis is None
    flat = tensor.reshape(x, [-1]) if whole else x
    axis = 0 if whole else reduce_axes(x, axis)[0]
    n = _count(flat, [axis], "median")
    value, index = append_op_out("kthvalue", {"X": [flat]},
                                 {"k": (n + 1) // 2, "axis": axis, "keepdim": bool(keepdim)},
                                 name, extra_outputs=[("Indices", "int64")])
    if whole:
        shape = [1] * len(x.shape) if keepdim else list(versions.switch("scalar_shape"))
        return tensor.reshape(value, shape)
    return value, index


EXPORTS = {
    "paddle": {"histogram": histogram, "var": var, "std": std, "median": median},
}
