"""relu: max(x, 0). Its grad needs only Out (not X), so X can be freed early."""
import numpy as np

from ._common import FLOATS, rand
from .registry import OpDef, Sample, register, share_lod


@register
class Relu(OpDef):
    type = "relu"
    inputs = ("X",)
    outputs = ("Out",)
    grad_inputs = ("Out", "Out@GRAD")
    lod_outputs = {"Out": share_lod("X")}      # as every activation

    def infer_shape(self, ctx):
        ctx.check_dtype("X", FLOATS)
        ctx.same_as("X", "Out")

    @staticmethod
    def forward(x):
        return np.maximum(x, 0, dtype=x.dtype)

    @staticmethod
    def backward(out, dout):
        return dout * (out > 0)

    def samples(self, rng):
        # keep inputs away from the kink at 0 so finite differences are valid
        x = rand(rng, 4, 5)
        x[np.abs(x) < 0.05] = 0.3
        yield Sample({"X": x})
