"""mean: the average of all elements, one number (scalar_shape(): [1] in Paddle 1.8 / 2.0,
0-D in 3)."""
import numpy as np

from ..xp import array_module
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
        if type(x) is np.ndarray and x.size and x.dtype.char in "fd":
            # what x.mean() computes (the same sum, divided in x's dtype) without its
            # Python-level wrapper, a few us on a small loss
            return np.asarray(np.add.reduce(x, axis=None) / x.size, x.dtype)
        return array_module(x).asarray(x.mean(), dtype=x.dtype)

    @staticmethod
    def backward(x, dout):
        dx = array_module(x).empty(x.shape, dtype=x.dtype)
        dx[...] = dout.reshape(-1)[0] / max(x.size, 1)
        return dx

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 4)})
        yield Sample({"X": rand(rng, 5)})
