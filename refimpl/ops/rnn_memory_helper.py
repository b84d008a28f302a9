"""rnn_memory_helper: Out = X, the copy Paddle 1.8's recurrent op puts between a memory and
the step that reads it. Its grad op passes Out@GRAD on, or gives zeros of X's shape when
Out has no gradient (specs/ops/rnn.md)."""
import numpy as np

from ._common import rand
from .registry import OpDef, Sample, register, share_lod


@register
class RnnMemoryHelper(OpDef):
    type = "rnn_memory_helper"
    inputs = ("X",)
    outputs = ("Out",)
    attrs = {"dtype": -1}
    lod_outputs = {"Out": share_lod("X")}
    grad_inputs = ("X", "Out", "Out@GRAD")

    def infer_shape(self, ctx):
        ctx.same_as("X", "Out")

    @staticmethod
    def forward(x, dtype=-1):
        return x.copy()

    @staticmethod
    def backward(x, out, dout, dtype=-1):
        return np.zeros_like(x) if dout is None else dout.copy()

    def samples(self, rng):
        yield Sample({"X": rand(rng, 2, 3)}, {})
