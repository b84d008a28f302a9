"""clip: X limited to [min, max]; the gradient passes where X is inside."""
import numpy as np

from ._common import rand
from .registry import OpDef, Sample, register


@register
class Clip(OpDef):
    type = "clip"
    inputs = ("X",)
    outputs = ("Out",)
    attrs = {"min": -1.0, "max": 1.0}
    grad_inputs = ("X", "Out@GRAD")

    def infer_shape(self, ctx):
        ctx.expect(ctx.attr("min") <= ctx.attr("max"),
                   "min %s must be <= max %s" % (ctx.attr("min"), ctx.attr("max")))
        ctx.same_as("X", "Out")

    @staticmethod
    def forward(x, min=-1.0, max=1.0):
        return np.clip(x, min, max).astype(x.dtype)

    @staticmethod
    def backward(x, dout, min=-1.0, max=1.0):
        return dout * ((x > min) & (x < max))

    def samples(self, rng):
        x = rand(rng, 4, 5)
        x[np.abs(np.abs(x) - 0.5) < 0.05] = 0.2
        yield Sample({"X": x}, {"min": -0.5, "max": 0.5})
