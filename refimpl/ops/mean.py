"""mean: the average of all elements, one number (scalar_shape(): [1] in Paddle 1.8 / 2.0,
0-D in 3)."""
import numpy as np

from ._common import COMPLEX, FLOATS, rand
from .registry import OpDef, Sample, register


@register
class Mean(OpDef):
    type = "mean"
    inputs = ("X",)
    outputs = ("Out",)
    scalar_outputs = ("Out",)
    grad_inputs = ("X", "Out@GRAD")

    def infer_shape(self, ctx):
        ctx.check_dtype("X", FLOATS + COMPLEX)
        ctx.set_output("Out", (), ctx.input_dtype("X"))

    @staticmethod
    def forward(x):
        return np.array(x.mean(), dtype=x.dtype)

    @staticmethod
    def backward(x, dout):
        return np.full(x.shape, dout.reshape(-1)[0] / max(x.size, 1), dtype=x.dtype)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 4)})
        yield Sample({"X": rand(rng, 5)})
