"""uniform_random: U(min, max) of `shape`; a nonzero seed gives the same values every run."""
from ..framework.random import rng_for
from .registry import OpDef, register


@register
class UniformRandom(OpDef):
    type = "uniform_random"
    inputs = ()
    outputs = ("Out",)
    attrs = {"shape": [1], "min": -1.0, "max": 1.0, "seed": 0, "dtype": "float32"}

    def infer_shape(self, ctx):
        ctx.expect(ctx.attr("min") <= ctx.attr("max"),
                   "min %s must be <= max %s" % (ctx.attr("min"), ctx.attr("max")))
        ctx.set_output("Out", tuple(ctx.attr("shape")), ctx.attr("dtype"))

    @staticmethod
    def forward(shape=(1,), min=-1.0, max=1.0, seed=0, dtype="float32"):
        return rng_for(seed).uniform(min, max, size=tuple(shape)).astype(dtype)
