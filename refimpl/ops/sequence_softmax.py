"""sequence_softmax: softmax over each sequence's elements (X is [total] or [total, 1])."""
import numpy as np

from ._common import rand
from ._sequence import lengths_of, ragged_lengths, segments
from .registry import OpDef, Sample, register, share_lod


@register
class SequenceSoftmax(OpDef):
    type = "sequence_softmax"
    inputs = ("X", "XLength")
    outputs = ("Out",)
    attrs = {"use_cudnn": False}
    no_grad = ("XLength",)
    grad_inputs = ("XLength", "Out", "Out@GRAD")
    lod_lengths = {"XLength": "X|Out"}
    lod_outputs = {"Out": share_lod("X")}

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        # the width 1 of each step is checked when the op runs, as Paddle 1.8.5 (whose
        # test_layers builds it on an fc output [-1, 20])
        ctx.expect(len(x.shape) in (1, 2), "input X %r: expected shape [total] or "
                   "[total, 1], got %s" % (x.name, list(x.shape)))
        ctx.same_as("X", "Out")

    @staticmethod
    def forward(x, length, use_cudnn=False):
        if x.size != len(x):
            raise ValueError("sequence_softmax: each time step of X must be one value "
                             "(shape [total] or [total, 1]), got shape %s" % (list(x.shape),))
        lens = lengths_of(length, len(x), "sequence_softmax")
        out = np.empty_like(x)
        for s, e in segments(lens):
            z = np.exp(x[s:e] - x[s:e].max()) if e > s else x[s:e]
            out[s:e] = z / z.sum() if e > s else z
        return out

    @staticmethod
    def backward(length, out, dout, use_cudnn=False):
        lens = lengths_of(length, len(out), "sequence_softmax_grad")
        dx = np.empty_like(out)
        for s, e in segments(lens):
            y, g = out[s:e], dout[s:e]
            dx[s:e] = y * (g - (y * g).sum())
        return dx

    def samples(self, rng):
        lens = ragged_lengths(rng)
        yield Sample({"X": rand(rng, int(lens.sum()), 1), "XLength": lens})
        yield Sample({"X": rand(rng, 6), "XLength": np.array([3, 1, 2], np.int64)})
