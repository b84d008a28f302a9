"""uniform_random: U(min, max) of `shape` (or the ShapeTensor / ShapeTensorList given when
it runs); a nonzero seed gives the same values every run. diag_num > 0 then sets the
flat elements i (diag_step + 1), i < diag_num, to diag_val (Paddle 1.8's initializer of
identity-like weights)."""
import numpy as np

from ..framework.random import uniform
from ._common import runtime_ints
from .creation import _RuntimeShapeRandom
from .registry import register


@register
class UniformRandom(_RuntimeShapeRandom):
    type = "uniform_random"
    attrs = {"shape": [1], "min": -1.0, "max": 1.0, "seed": 0, "dtype": "float32",
             "diag_num": 0, "diag_step": 0, "diag_val": 1.0}

    def infer_shape(self, ctx):
        ctx.expect(ctx.attr("min") <= ctx.attr("max"),
                   "min %s must be <= max %s" % (ctx.attr("min"), ctx.attr("max")))
        super().infer_shape(ctx)

    @staticmethod
    def forward(shape_tensor=None, shape_list=None, shape=(1,), min=-1.0, max=1.0, seed=0,
                dtype="float32", diag_num=0, diag_step=0, diag_val=1.0):
        shape = tuple(runtime_ints(shape_tensor, shape_list, shape))
        out = uniform(seed, min, max, shape, dtype)
        if diag_num > 0:
            flat = out.reshape(-1)
            flat[np.arange(diag_num) * (diag_step + 1)] = diag_val
        return out
