"""row_conv: lookahead convolution over time (Paddle 1.8's op, from Deep Speech 2).
out[t] = sum_k x[t + k] * Filter[k] (elementwise over the D features, k = 0 ..
future_context_size), where t + k stays inside t's sequence. X is a LoD tensor [T, D]
(sequences by its LoD) or a dense [B, T, D] (each row a sequence)."""
import numpy as np

from ._common import rand
from ._sequence import lengths_of, segments
from .registry import OpDef, Sample, register, share_lod


def _sequences(x, length):
    """[(start, end)] row ranges of the sequences of x viewed as [rows, D]."""
    if x.ndim == 3:
        return [(b * x.shape[1], (b + 1) * x.shape[1]) for b in range(x.shape[0])]
    lens = np.array([len(x)]) if length is None else lengths_of(length, len(x), "row_conv")
    return segments(lens)


@register
class RowConv(OpDef):
    type = "row_conv"
    inputs = ("X", "Filter", "XLength?")
    outputs = ("Out",)
    no_grad = ("XLength",)
    grad_inputs = ("X", "Filter", "XLength?", "Out@GRAD")
    lod_lengths = {"XLength": "X|Out"}
    lod_outputs = {"Out": share_lod("X")}

    def infer_shape(self, ctx):
        x, w = ctx.input_var("X"), ctx.input_var("Filter")
        ctx.expect(len(x.shape) in (2, 3), "input X %r: expected [T, D] (LoD) or [B, T, D], "
                   "got %s" % (x.name, list(x.shape)))
        ctx.expect(len(w.shape) == 2 and w.shape[1] in (x.shape[-1], -1),
                   "Filter %r must be [future_context_size + 1, %s], got %s"
                   % (w.name, x.shape[-1], list(w.shape)))
        ctx.same_as("X", "Out")

    @staticmethod
    def forward(x, filter, length=None):
        rows, w = x.reshape(-1, x.shape[-1]), filter
        out = np.zeros_like(rows)
        for s, e in _sequences(x, length):
            for k in range(min(len(w), e - s)):
                out[s:e - k] += rows[s + k:e] * w[k]
        return out.reshape(x.shape)

    @staticmethod
    def backward(x, filter, length, dout):
        rows, grad = x.reshape(-1, x.shape[-1]), dout.reshape(-1, x.shape[-1])
        dx, dw = np.zeros_like(rows), np.zeros_like(filter)
        for s, e in _sequences(x, length):
            for k in range(min(len(filter), e - s)):
                dx[s + k:e] += grad[s:e - k] * filter[k]
                dw[k] += (grad[s:e - k] * rows[s + k:e]).sum(axis=0)
        return dx.reshape(x.shape), dw

    def samples(self, rng):
        yield Sample({"X": rand(rng, 7, 4), "Filter": rand(rng, 3, 4),
                      "XLength": np.array([2, 4, 1], np.int64)})
        yield Sample({"X": rand(rng, 2, 5, 3), "Filter": rand(rng, 2, 3)})
