"""segment_pool (Paddle 2.0): pools the rows of X by their sorted segment ids. Out has
max(SegmentIds) + 1 rows (known when the op runs); row s pools the rows of X whose id is s
by `pooltype` SUM, MEAN, MAX or MIN, and a segment no row has stays 0. SummedIds (MEAN)
holds each segment's row count, [segments, 1] in X's dtype. Gradient: SUM hands each row
its segment's Out@GRAD, MEAN that divided by the count, MAX / MIN to every row equal to
its segment's result (ties all get it, as Paddle's kernel does)."""
import numpy as np

from ._common import FLOATS, rand
from .registry import OpDef, Sample, register

POOLTYPES = ("SUM", "MEAN", "MAX", "MIN")


def _segments(ids):
    return int(ids[-1]) + 1 if len(ids) else 0


def _counts(ids, segments, dtype):
    return np.bincount(ids, minlength=segments).astype(dtype)


@register
class SegmentPool(OpDef):
    type = "segment_pool"
    inputs = ("X", "SegmentIds")
    outputs = ("Out", "SummedIds?")
    attrs = {"pooltype": "SUM"}
    no_grad = ("SegmentIds",)
    grad_inputs = ("X", "SegmentIds", "Out", "Out@GRAD")

    def infer_shape(self, ctx):
        x, ids = ctx.input_var("X"), ctx.input_var("SegmentIds")
        ctx.check_dtype("X", FLOATS)
        ctx.check_dtype("SegmentIds", ("int32", "int64"))
        pooltype = ctx.attr("pooltype")
        ctx.expect(pooltype in POOLTYPES, "pooltype must be one of %s, got %r"
                   % (list(POOLTYPES), pooltype))
        ctx.expect(len(ids.shape) == 1, "SegmentIds %r must be 1-D, got shape %s"
                   % (ids.name, list(ids.shape)))
        ctx.expect(x.shape[0] < 0 or ids.shape[0] < 0 or x.shape[0] == ids.shape[0],
                   "SegmentIds %r has %d ids for the %d rows of X %r"
                   % (ids.name, ids.shape[0], x.shape[0], x.name))
        ctx.set_output("Out", [-1] + list(x.shape[1:]), x.dtype)
        if ctx.has_output("SummedIds"):
            ctx.set_output("SummedIds", [-1, 1], x.dtype)

    @staticmethod
    def forward(x, ids, pooltype="SUM"):
        ids = ids.astype(np.int64)
        if len(ids) and np.any(np.diff(ids) < 0):
            raise ValueError("segment_pool: SegmentIds must be sorted, got %s" % ids)
        segments = _segments(ids)
        counts = _counts(ids, segments, x.dtype)
        out = np.zeros((segments,) + x.shape[1:], x.dtype)
        if pooltype in ("SUM", "MEAN"):
            np.add.at(out, ids, x)
            if pooltype == "MEAN":
                shape = (-1,) + (1,) * (x.ndim - 1)
                out /= np.maximum(counts, 1).reshape(shape)
        else:
            starts = np.flatnonzero(np.r_[True, np.diff(ids) != 0]) if len(ids) else []
            reduce = np.maximum if pooltype == "MAX" else np.minimum
            out[ids[starts]] = reduce.reduceat(x, starts, axis=0)
        return out, counts.reshape(-1, 1)

    @staticmethod
    def backward(x, ids, out, dout, pooltype="SUM"):
        ids = ids.astype(np.int64)
        dx = dout[ids]
        if pooltype == "MEAN":
            counts = _counts(ids, _segments(ids), x.dtype)
            return dx / counts[ids].reshape((-1,) + (1,) * (x.ndim - 1))
        if pooltype in ("MAX", "MIN"):
            return np.where(x == out[ids], dx, 0).astype(x.dtype)
        return dx

    def samples(self, rng):
        ids = np.array([0, 0, 1, 3, 3, 3], "int64")     # segment 2 has no row
        for pooltype in POOLTYPES:
            # distinct values: MAX / MIN's finite differences are valid away from ties
            yield Sample({"X": rng.permutation(18).reshape(6, 3) / 7.0, "SegmentIds": ids},
                         {"pooltype": pooltype}, name=pooltype.lower())
        yield Sample({"X": rand(rng, 5, 2), "SegmentIds": np.array([0, 1, 1, 2, 2], "int32")},
                     {"pooltype": "MEAN"}, name="int32_ids")
