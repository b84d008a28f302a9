"""Paddle 3's order statistics: kthvalue, mode, nanmedian (their own ops,
refimpl/ops/order_statistics.py), msort (a sort along axis 0), and quantile / nanquantile,
composed as 3.3.1 composes them: the reduced dims sorted (NaN last), the two neighbours of
position q * (n - 1) picked (index_sample) and interpolated, so the gradient goes to
those two."""
import numpy as np

from . import creation, indexing, math, tensor
from .common import append_op_out, check_dtype, paddle_api
from .reductions import NAN_DTYPES, not_nan

PICK_DTYPES = ("float32", "float64", "int32", "int64")
INTERPOLATIONS = ("linear", "lower", "higher", "nearest", "midpoint")


def kthvalue(x, k, axis=None, keepdim=False, name=None):
    """(values, int64 indices) of the k-th smallest along `axis` (None: the last)."""
    check_dtype(x, "x", "kthvalue", PICK_DTYPES)
    attrs = {"k": int(k), "axis": -1 if axis is None else int(axis), "keepdim": bool(keepdim)}
    return append_op_out("kthvalue", {"X": [x]}, attrs, name,
                         extra_outputs=[("Indices", "int64")])


def mode(x, axis=-1, keepdim=False, name=None):
    """(values, int64 indices) of the most frequent value along `axis`."""
    check_dtype(x, "x", "mode", PICK_DTYPES)
    return append_op_out("mode", {"X": [x]}, {"axis": int(axis), "keepdim": bool(keepdim)},
                         name, extra_outputs=[("Indices", "int64")])


def msort(input, name=None):
    """input sorted along axis 0."""
    return indexing.sort(input, axis=0, name=name)


def _check_mode(mode):
    if mode not in ("avg", "min"):
        raise ValueError("Mode %s is not supported. Must be avg or min." % (mode,))


def nanmedian(x, axis=None, keepdim=False, mode="avg", name=None):
    """The median of the non-NaN values over `axis` (None: all; an int or a list). mode
    'avg': the mean of the two middle values; 'min': (the lower one, its int64 index
    within the reduced dims, -1 where all are NaN)."""
    check_dtype(x, "x", "nanmedian", NAN_DTYPES)
    _check_mode(mode)
    axes = [] if axis is None else _axes(x, axis, "nanmedian")
    if axis is not None and not axes:
        raise ValueError("nanmedian: Axis list should not be empty.")
    out, index = append_op_out("nanmedian", {"X": [x]}, {"axis": axes, "keepdim":
                                                         bool(keepdim), "mode": mode},
                               name, extra_outputs=[("MedianIndex", "int64")])
    if not keepdim:     # the op keeps the reduced dims (3.3.1's kernel)
        reduced = set(axes or range(len(x.shape)))
        shape = [d for i, d in enumerate(x.shape) if i not in reduced]
        out = tensor.reshape(out, shape)
        index = tensor.reshape(index, shape) if mode == "min" else index
    return out if mode == "avg" else (out, index)


def _axes(x, axis, layer):
    """axis (an int or a list of them) as distinct dims of x in [0, rank)."""
    nd = max(len(x.shape), 1)
    listed = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    if not all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) and
               -nd <= a < nd for a in listed):
        raise ValueError("%s: Axis should be None, int, or a list, element should in range "
                         "[-rank(x), rank(x)), got %r for x of rank %d"
                         % (layer, axis, len(x.shape)))
    axes = [int(a) % nd for a in listed]
    if len(set(axes)) != len(axes):
        raise ValueError("%s: axis %r repeats a dim" % (layer, axis))
    return axes


def _q_values(q):
    values = q.numpy().reshape(-1).tolist() if hasattr(q, "numpy") else q
    many = isinstance(values, (list, tuple)) or getattr(q, "ndim", 0) > 0
    values = [float(v) for v in (values if isinstance(values, (list, tuple)) else [values])]
    if not values:
        raise ValueError("q should not be empty")
    if any(not 0 <= v <= 1 for v in values):
        raise ValueError("q should be in range [0, 1], got %s" % values)
    return values, many


def _rows(layer, x, axis):
    """x's reduced dims moved last and flattened: ([N, M] rows, the kept dims, their shape
    with keepdim)."""
    nd = len(x.shape)
    axes = sorted(range(nd) if axis is None else _axes(x, axis, layer))
    kept = [d for d in range(nd) if d not in axes]
    moved = tensor.transpose(x, kept + axes) if nd else x
    rows = tensor.reshape(moved, [-1, int(np.prod([x.shape[a] for a in axes]))])
    return rows, [x.shape[d] for d in kept], [1 if d in axes else x.shape[d]
                                              for d in range(nd)]


def _interpolated(interpolation, low, high, position, low_at):
    """The value between the sorted neighbours `low` (at floor(position)) and `high`."""
    if interpolation in ("lower", "nearest"):       # nearest: position already rounded
        return low
    if interpolation == "higher":
        return high
    if interpolation == "midpoint":
        return math.scale(paddle_api("add")(low, high), 0.5)
    return paddle_api("add")(low, paddle_api("multiply")(
        paddle_api("subtract")(high, low), paddle_api("subtract")(position, low_at)))


def _quantile(layer, x, q, axis, keepdim, interpolation, ignore_nan):
    check_dtype(x, "x", layer, ("float32", "float64"))
    if interpolation not in INTERPOLATIONS:
        raise ValueError("%s: interpolation must be one of %s, got %r"
                         % (layer, list(INTERPOLATIONS), interpolation))
    values, many = _q_values(q)
    rows, shape, kept_shape = _rows(layer, x, axis)
    ordered = indexing.sort(rows, axis=1)
    size = rows.shape[1]
    # NaN sorts last: the largest is NaN where a slice holds one (all: nanquantile picks it)
    largest = tensor.slice(ordered, [1], [size - 1], [size])
    count = (paddle_api("sum")(not_nan(rows), 1, x.dtype.name, True) if ignore_nan else
             paddle_api("full_like")(largest, size))
    last = paddle_api("maximum")(math.scale(count, 1.0, -1.0), paddle_api("zeros_like")(count))
    results = []
    for v in values:
        # q exactly in float64, as 3.3.1's
        position = paddle_api("multiply")(last, creation.exact_constant(
            np.full([1, 1], v, x.dtype.name)))
        if interpolation == "nearest":
            position = paddle_api("round")(position)
        low_at = paddle_api("floor")(position)
        low = indexing.index_sample(ordered, math.cast(low_at, "int64"))
        high = indexing.index_sample(ordered, math.cast(paddle_api("ceil")(position), "int64"))
        picked = _interpolated(interpolation, low, high, position, low_at)
        if not ignore_nan:
            picked = paddle_api("where")(paddle_api("isnan")(largest), largest, picked)
        results.append(tensor.reshape(picked, kept_shape if keepdim else shape))
    return tensor.stack(results, 0) if many else results[0]


def quantile(x, q, axis=None, keepdim=False, interpolation="linear", name=None):
    """The q-quantile(s) over `axis` (None: all; an int or a list) by `interpolation`
    between the sorted neighbours; NaN where a slice holds NaN. Several q: stacked first."""
    return _quantile("quantile", x, q, axis, keepdim, interpolation, False)


def nanquantile(x, q, axis=None, keepdim=False, interpolation="linear", name=None):
    """quantile of the non-NaN values (NaN where a slice holds none)."""
    return _quantile("nanquantile", x, q, axis, keepdim, interpolation, True)


EXPORTS = {
    "paddle": {"kthvalue": kthvalue, "mode": mode, "msort": msort, "nanmedian": nanmedian,
               "quantile": quantile, "nanquantile": nanquantile},
}
