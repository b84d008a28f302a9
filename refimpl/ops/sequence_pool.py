"""sequence_pool: one row per sequence (SUM, AVERAGE, SQRT, MAX, LAST, FIRST); an empty
sequence gives pad_value (and no gradient). MaxIndex (the row each MAX came from) is
produced for MAX pooling only, as Paddle leaves it unset for the others."""
import numpy as np

from ._common import rand
from ._sequence import lengths_of, ragged_lengths, segments
from .registry import OpDef, Sample, pool_lod, register

POOL_TYPES = ("AVERAGE", "SUM", "SQRT", "MAX", "LAST", "FIRST")


@register
class SequencePool(OpDef):
    type = "sequence_pool"
    inputs = ("X", "XLength")
    outputs = ("Out", "MaxIndex")
    attrs = {"pooltype": "AVERAGE", "is_test": False, "pad_value": 0.0}
    no_grad = ("XLength",)
    grad_inputs = ("X", "XLength", "MaxIndex?", "Out@GRAD")
    lod_lengths = {"XLength": "X"}
    lod_outputs = {"Out": pool_lod("X")}

    def infer_shape(self, ctx):
        ctx.expect(ctx.attr("pooltype") in POOL_TYPES, "pooltype must be one of %s, got %r"
                   % (list(POOL_TYPES), ctx.attr("pooltype")))
        x = ctx.input_var("X")
        shape = (-1,) + tuple(x.shape[1:])
        ctx.set_output("Out", shape, x.dtype)
        ctx.set_output("MaxIndex", shape, "int32")

    @staticmethod
    def forward(x, length, pooltype="AVERAGE", is_test=False, pad_value=0.0):
        lens = lengths_of(length, len(x), "sequence_pool")
        out = np.full((len(lens),) + x.shape[1:], pad_value, x.dtype)
        max_index = np.full(out.shape, -1, np.int32)
        for i, (s, e) in enumerate(segments(lens)):
            if e == s:
                continue
            rows = x[s:e]
            if pooltype == "MAX":
                max_index[i] = s + rows.argmax(axis=0)
                out[i] = rows.max(axis=0)
            elif pooltype in ("FIRST", "LAST"):
                out[i] = rows[0] if pooltype == "FIRST" else rows[-1]
            else:
                out[i] = rows.sum(axis=0) / _divisor(pooltype, e - s)
        return out, (max_index if pooltype == "MAX" else None)

    @staticmethod
    def backward(x, length, max_index, dout, pooltype="AVERAGE", is_test=False,
                 pad_value=0.0):
        lens = lengths_of(length, len(x), "sequence_pool_grad")
        dx = np.zeros_like(x)
        for i, (s, e) in enumerate(segments(lens)):
            if e == s:
                continue
            if pooltype == "MAX":
                np.put_along_axis(dx, max_index[i][None].astype(np.int64), dout[i][None], 0)
            elif pooltype == "FIRST":
                dx[s] = dout[i]
            elif pooltype == "LAST":
                dx[e - 1] = dout[i]
            else:
                dx[s:e] = dout[i] / _divisor(pooltype, e - s)
        return dx

    def samples(self, rng):
        for pooltype in POOL_TYPES:
            lens = ragged_lengths(rng)
            lens[0] += max(len(lens) - lens.sum(), 0)   # Paddle wants rows >= sequences
            yield Sample({"X": rand(rng, int(lens.sum()), 2, 3), "XLength": lens},
                         {"pooltype": pooltype, "pad_value": 0.5}, name=pooltype)
        # Paddle 1.8.5 registers float32 kernels only (no finite-difference gradient
        # check in float32)
        lens = np.array([2, 0, 3], np.int64)
        for pooltype in ("AVERAGE", "MAX"):
            yield Sample({"X": rand(rng, 5, 3).astype(np.float32), "XLength": lens},
                         {"pooltype": pooltype, "pad_value": 0.5}, grad=False,
                         name=pooltype + "_float32")


def _divisor(pooltype, n):
    return {"SUM": 1.0, "AVERAGE": float(n), "SQRT": np.sqrt(n)}[pooltype]
