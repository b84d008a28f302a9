"""Paddle 3's binning and searching: bincount, searchsorted, unique_consecutive (their own
ops, refimpl/ops/counting.py), bucketize (searchsorted of a 1-D sequence), argwhere
(nonzero), histogram_bin_edges (linspace over the range) and histogramdd (composed of
those: each point's bin along each dim, counted by bincount)."""
import numpy as np

from ..framework.dtypes import get_dtype
from . import creation, indexing, math, tensor
from ..dygraph.tensor import Tensor
from ..framework.program import Variable
from .common import append_op_out, check_dtype, check_variable, paddle_api

SEARCH_DTYPES = ("float32", "float64", "int32", "int64")


def bincount(x, weights=None, minlength=0, name=None):
    """How often each integer >= 0 occurs in the 1-D x (int64), or the sum of the weights
    where it does (float32 weights: float32, others float64); at least minlength long."""
    if isinstance(x, type(None)) or not x.dtype.name.startswith("int"):
        check_variable(x, "x", "bincount")
        raise TypeError("bincount: elements in x should all be integers, got %s"
                        % x.dtype.name)
    if isinstance(minlength, Variable):
        if not isinstance(minlength, Tensor):
            raise TypeError("bincount: a static Variable minlength (%r) is not supported; "
                            "pass an int" % minlength.name)
        minlength = int(minlength.numpy().reshape(-1)[0])
    inputs = {"X": [x]}
    dtype = "int64"
    if weights is not None:
        check_variable(weights, "weights", "bincount")
        inputs["Weights"] = [weights]
        dtype = "float32" if weights.dtype.name == "float32" else "float64"
    return append_op_out("bincount", inputs, {"minlength": int(minlength)}, name,
                         out_dtype=dtype, stop_gradient=True)


def searchsorted(sorted_sequence, values, out_int32=False, right=False, name=None, *,
                 side=None, sorter=None):
    """Where each of `values` would go in its row of `sorted_sequence` (1-D: one row for
    all): before equal elements, after them with right=True or side='right'. `sorter`:
    indices sorting a 1-D sequence."""
    check_dtype(sorted_sequence, "sorted_sequence", "searchsorted", SEARCH_DTYPES)
    check_dtype(values, "values", "searchsorted", SEARCH_DTYPES)
    if side is not None:
        if side not in ("left", "right") or (right and side == "left"):
            raise ValueError("searchsorted: side must be 'left' or 'right' (and agree with "
                             "right=%s), got %r" % (right, side))
        right = side == "right"
    if sorter is not None:
        if len(sorted_sequence.shape) != 1:
            raise ValueError("searchsorted: sorter needs a 1-D sorted_sequence, got shape %s"
                             % list(sorted_sequence.shape))
        sorted_sequence = tensor.gather(sorted_sequence, sorter)
    return append_op_out("searchsorted", {"SortedSequence": [sorted_sequence],
                                          "Values": [values]},
                         {"out_int32": bool(out_int32), "right": bool(right)}, name,
                         out_dtype="int32" if out_int32 else "int64", stop_gradient=True)


def bucketize(x, sorted_sequence, out_int32=False, right=False, name=None):
    """The bucket of each element of x among the boundaries in the 1-D sorted_sequence."""
    # x no Tensor: 3.3.1's ValueError; sorted_sequence None: an AttributeError, as 3.3.1's
    if not isinstance(x, Variable):
        raise ValueError("bucketize: x must be a Tensor, got %s" % type(x).__name__)
    if len(sorted_sequence.shape) != 1:
        raise ValueError("bucketize: sorted_sequence tensor must be 1 dimension, but got dim "
                         "%d" % len(sorted_sequence.shape))
    return searchsorted(sorted_sequence, x, out_int32, right, name)


def unique_consecutive(x, return_inverse=False, return_counts=False, axis=None,
                       dtype="int64", name=None):
    """x with runs of equal consecutive elements (axis None: of the flattened x) or slices
    along `axis` kept once; with the run of each element (return_inverse) and each run's
    length (return_counts), of `dtype`."""
    check_dtype(x, "x", "unique_consecutive", SEARCH_DTYPES)
    index_dtype = get_dtype(dtype)
    attrs = {"return_inverse": bool(return_inverse), "return_counts": bool(return_counts),
             "axis": [] if axis is None else [int(axis)], "dtype": int(index_dtype)}
    out, index, counts = append_op_out(
        "unique_consecutive", {"X": [x]}, attrs, name, stop_gradient=True,
        extra_outputs=[("Index", index_dtype.name), ("Counts", index_dtype.name)])
    wanted = [v for v, want in ((index, return_inverse), (counts, return_counts)) if want]
    return tuple([out] + wanted) if wanted else out


def argwhere(input):
    """[N, rank] int64 coordinates of the nonzero elements (x of rank >= 1)."""
    check_variable(input, "input", "argwhere")
    if not input.shape:
        raise ValueError("argwhere: input must have rank >= 1, got a 0-D %r" % input.name)
    return indexing.nonzero(input)


def _range_of(x, dtype="float32"):
    """(low, high) of x as [1] tensors of `dtype`, widened by 0.5 where they are equal."""
    low = tensor.reshape(math.cast(paddle_api("min")(x), dtype), [1])
    high = tensor.reshape(math.cast(paddle_api("max")(x), dtype), [1])
    same = paddle_api("equal")(low, high)
    return (paddle_api("where")(same, math.scale(low, 1.0, -0.5), low),
            paddle_api("where")(same, math.scale(high, 1.0, 0.5), high))


def histogram_bin_edges(input, bins=100, min=0.0, max=0.0, name=None):
    """The bins + 1 float32 edges of paddle.histogram's bins: over [min, max], or over
    input's range when both are 0 (widened by 0.5 each way when all are equal)."""
    check_dtype(input, "input", "histogram_bin_edges", SEARCH_DTYPES)
    if max < min:
        raise ValueError("histogram_bin_edges: max must be larger than min in range "
                         "parameter, got min=%s max=%s" % (min, max))
    if min == max == 0:
        low, high = _range_of(input)
    else:
        low, high = (float(min), float(max)) if min != max else (min - 0.5, max + 0.5)
    return creation.linspace(low, high, int(bins) + 1, "float32", name)


def _dims_bins(bins, d):
    if isinstance(bins, (list, tuple)):
        for i, b in enumerate(bins):
            if not isinstance(b, (int, np.integer)):
                raise ValueError("histogramdd: the type of %d-th element in bins list must "
                                 "be int, got %s" % (i, type(b).__name__))
        if len(bins) != d:
            raise ValueError("histogramdd: bins holds %d numbers for %d dims" % (len(bins), d))
        return [int(b) for b in bins]
    return [int(bins)] * d


def histogramdd(x, bins=10, ranges=None, density=False, weights=None, name=None):
    """(hist, edges): the D-dim histogram of the points x [..., D] with bins[i] equal bins
    along dim i over ranges [lo0, hi0, lo1, hi1, ...] (default: the points' range), points
    outside left out, the last bin closed; `weights` summed instead of counts; density:
    divided by the total and each bin's volume. Composed: each point's bin along each dim
    (searchsorted in the edges), one flat bin number, bincount."""
    check_dtype(x, "x", "histogramdd", ("float32", "float64"))
    d = x.shape[-1]
    counts = _dims_bins(bins, d)
    if ranges is not None and len(ranges) != 2 * d:
        raise ValueError("histogramdd: ranges must hold %d numbers (a low and a high per "
                         "dim), got %d" % (2 * d, len(ranges)))
    points = tensor.reshape(x, [-1, d])
    flat, inside, edges = None, None, []
    for i, n in enumerate(counts):
        column = tensor.reshape(tensor.slice(points, [1], [i], [i + 1]), [-1])
        low, high = (_range_of(column, x.dtype.name) if ranges is None else
                     (float(ranges[2 * i]), float(ranges[2 * i + 1])))
        edge = creation.linspace(low, high, n + 1, x.dtype.name)
        edges.append(edge)
        at = math.scale(searchsorted(edge, column, right=True), 1.0, -1.0)
        last = paddle_api("equal")(column, tensor.slice(edge, [0], [n], [n + 1]))
        at = paddle_api("where")(last, paddle_api("full_like")(at, n - 1), at)
        ok = paddle_api("logical_and")(paddle_api("greater_equal")(at, paddle_api(
            "zeros_like")(at)), paddle_api("less_than")(at, paddle_api("full_like")(at, n)))
        inside = ok if inside is None else paddle_api("logical_and")(inside, ok)
        flat = at if flat is None else paddle_api("add")(math.scale(flat, float(n)), at)
    weight = math.cast(inside, x.dtype.name)
    if weights is not None:
        weight = paddle_api("multiply")(weight, tensor.reshape(weights, [-1]))
    flat = paddle_api("where")(inside, flat, paddle_api("zeros_like")(flat))
    hist = tensor.reshape(bincount(flat, weight, int(np.prod(counts))), counts)
    if density:
        volume = None
        for i, edge in enumerate(edges):
            width = paddle_api("diff")(edge)
            shape = [1] * d
            shape[i] = -1
            width = tensor.reshape(width, shape)
            volume = width if volume is None else paddle_api("multiply")(volume, width)
        hist = paddle_api("divide")(hist, paddle_api("multiply")(
            volume, paddle_api("sum")(hist)))
    return hist, edges


EXPORTS = {
    "paddle": {"bincount": bincount, "searchsorted": searchsorted, "bucketize": bucketize,
               "unique_consecutive": unique_consecutive, "argwhere": argwhere,
               "histogram_bin_edges": histogram_bin_edges, "histogramdd": histogramdd},
}
