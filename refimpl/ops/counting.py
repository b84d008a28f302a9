"""Counting ops of Paddle 3 (no gradient): bincount (how often each non-negative integer
occurs, or the sum of its weights), searchsorted (where values would go in sorted rows)
and unique_consecutive (runs of equal elements or slices collapsed to one)."""
import numpy as np

from ..framework.dtypes import convert_dtype
from ..framework.errors import OpRuntimeError
from .registry import OpDef, Sample, register


@register
class Bincount(OpDef):
    """Out[i] = the count of i in X (1-D, integers >= 0), or the sum of the Weights where X
    is i; at least `minlength` long. Weights float32 give float32, other weights float64,
    none int64 (3.3.1)."""
    type = "bincount"
    inputs = ("X", "Weights?")
    outputs = ("Out",)
    attrs = {"minlength": 0}
    no_grad = ("X", "Weights")

    def infer_shape(self, ctx):
        ctx.check_dtype("X", ("int32", "int64"))
        x = ctx.input_var("X")
        ctx.expect(len(x.shape) == 1, "X %r must be 1-D, got shape %s" % (x.name,
                                                                          list(x.shape)))
        ctx.expect(ctx.attr("minlength") >= 0, "minlength must be >= 0, got %d"
                   % ctx.attr("minlength"))
        dtype = "int64"
        if ctx.has_input("Weights"):
            w = ctx.input_var("Weights")
            ctx.expect(len(w.shape) == 1 and -1 in (w.shape[0], x.shape[0]) or
                       list(w.shape) == list(x.shape), "Weights %r %s must have the shape %s "
                       "of X %r" % (w.name, list(w.shape), list(x.shape), x.name))
            dtype = _weighted_dtype(ctx.input_dtype("Weights"))
        ctx.set_output("Out", [-1], dtype)

    @staticmethod
    def forward(x, weights=None, minlength=0):
        if x.size and x.min() < 0:
            raise ValueError("bincount: X must hold integers >= 0, got %d" % x.min())
        if weights is None:
            return np.bincount(x, minlength=minlength).astype(np.int64)
        return np.bincount(x, weights, minlength).astype(_weighted_dtype(weights.dtype))

    def samples(self, rng):
        x = np.array([1, 3, 3, 0, 5, 1, 1], np.int64)
        yield Sample({"X": x}, grad=False)
        yield Sample({"X": x, "Weights": rng.rand(7)}, {"minlength": 8}, grad=False,
                     name="weights")


def _weighted_dtype(dtype):
    return "float32" if getattr(dtype, "name", str(dtype)) == "float32" else "float64"


@register
class Searchsorted(OpDef):
    """Out: for each of Values, the index in its row of SortedSequence (the same leading
    dims, or 1-D for all) where it would go: before equal elements, after them with
    `right`. A NaN value goes after everything (3.3.1). int64, int32 with out_int32."""
    type = "searchsorted"
    inputs = ("SortedSequence", "Values")
    outputs = ("Out",)
    attrs = {"out_int32": False, "right": False}
    no_grad = ("SortedSequence", "Values")

    def infer_shape(self, ctx):
        ctx.check_dtype("SortedSequence", ("float32", "float64", "int32", "int64"))
        seq, values = ctx.input_var("SortedSequence"), ctx.input_var("Values")
        ctx.expect(len(seq.shape) == 1 or list(seq.shape[:-1]) == list(values.shape[:-1]),
                   "SortedSequence %r %s must be 1-D or have the leading dims of Values %r %s"
                   % (seq.name, list(seq.shape), values.name, list(values.shape)),
                   OpRuntimeError)
        ctx.expect(not ctx.attr("out_int32") or seq.shape[-1] < 2 ** 31,
                   "SortedSequence %r holds %d elements a row: more than out_int32 can index"
                   % (seq.name, seq.shape[-1]), OpRuntimeError)
        ctx.set_output("Out", values.shape, "int32" if ctx.attr("out_int32") else "int64")

    @staticmethod
    def forward(seq, values, out_int32=False, right=False):
        side = "right" if right else "left"
        rows = seq.reshape(-1, seq.shape[-1])
        wanted = values.reshape(len(rows) if seq.ndim > 1 else 1, -1)
        if seq.ndim == 1:
            rows = np.broadcast_to(rows, (len(wanted), rows.shape[-1]))
        out = np.stack([np.where(np.isnan(v) if v.dtype.kind == "f" else False, len(r),
                                 np.searchsorted(r, v, side)) for r, v in zip(rows, wanted)])
        return out.reshape(values.shape).astype(np.int32 if out_int32 else np.int64)

    def samples(self, rng):
        seq = np.sort(rng.rand(2, 5), -1)
        yield Sample({"SortedSequence": seq, "Values": rng.rand(2, 3)}, grad=False)
        yield Sample({"SortedSequence": seq[0], "Values": np.append(seq[0, 1:3], 2.0)},
                     {"right": True, "out_int32": True}, grad=False, name="1d_right")


@register
class UniqueConsecutive(OpDef):
    """Out: X with each run of equal consecutive elements (of the flattened X when `axis`
    is empty) or equal consecutive slices along axis[0] kept once; Index: for each element
    or slice of X, its run; Counts: each run's length (both of `dtype`, a dtype code)."""
    type = "unique_consecutive"
    inputs = ("X",)
    outputs = ("Out", "Index", "Counts")
    attrs = {"return_inverse": False, "return_counts": False, "axis": [], "dtype": 3}
    no_grad = ("X",)

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        axis = ctx.attr("axis")
        index_dtype = convert_dtype(ctx.attr("dtype"))
        ctx.expect(index_dtype in ("int32", "int64"), "dtype must be int32 or int64, got %s"
                   % index_dtype)
        if axis:
            a = ctx.check_axis("X", axis[0])
            shape, n = list(x.shape), x.shape[a]
            shape[a] = -1
        else:
            shape = [-1]
            n = int(np.prod(x.shape)) if all(d >= 0 for d in x.shape) else -1
        ctx.set_output("Out", shape, x.dtype)
        ctx.set_output("Index", [n], index_dtype)
        ctx.set_output("Counts", [-1], index_dtype)

    @staticmethod
    def forward(x, return_inverse=False, return_counts=False, axis=(), dtype=3):
        axis = axis[0] % x.ndim if len(axis) else None
        items = x.reshape(-1) if axis is None else np.moveaxis(x, axis, 0)
        flat = items.reshape(len(items), int(np.prod(items.shape[1:])))
        starts = np.ones(len(items), bool)
        starts[1:] = (flat[1:] != flat[:-1]).any(-1)
        out = items[starts] if axis is None else np.moveaxis(items[starts], 0, axis)
        index = np.cumsum(starts) - 1
        counts = np.diff(np.append(np.flatnonzero(starts), len(items)))
        dtype = convert_dtype(dtype)
        return np.ascontiguousarray(out), index.astype(dtype), counts.astype(dtype)

    def samples(self, rng):
        # dtype given: 3.3.1's op defaults to float32 indices, which its kernel refuses
        yield Sample({"X": np.array([1, 1, 2, 2, 2, 3, 1, 1], np.int64)},
                     {"return_inverse": True, "return_counts": True, "dtype": 3}, grad=False)
        yield Sample({"X": np.array([[1., 1.], [1., 1.], [2., 3.], [1., 1.]])},
                     {"return_inverse": True, "return_counts": True, "axis": [0],
                      "dtype": 2}, grad=False, name="axis0")
