"""label_smooth: (1 - epsilon) X + epsilon PriorDist (uniform 1/C when no PriorDist),
over the last axis of size C."""
import numpy as np

from ._common import FLOATS, rand
from .registry import OpDef, Sample, register, share_lod


@register
class LabelSmooth(OpDef):
    type = "label_smooth"
    lod_outputs = {"Out": share_lod("X")}
    inputs = ("X", "PriorDist?")
    outputs = ("Out",)
    attrs = {"epsilon": 0.0}
    no_grad = ("PriorDist",)
    grad_inputs = ("Out@GRAD",)

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        ctx.check_dtype("X", FLOATS)
        prior = ctx.input_var("PriorDist")
        if prior is not None and x.shape[-1] >= 0:
            n = 1
            for d in prior.shape:
                n *= d
            ctx.expect(n == x.shape[-1], "PriorDist %r %s must have C=%d elements (X %r %s)"
                       % (prior.name, list(prior.shape), x.shape[-1], x.name, list(x.shape)))
        ctx.same_as("X", "Out")

    # Paddle's kernels work out 1 - epsilon and epsilon / C in float32 (1.8.5 and 3.3.1
    # measured in float64); epsilon * PriorDist in the input's dtype
    @staticmethod
    def forward(x, prior, epsilon=0.0):
        t, eps = x.dtype.type, np.float32(epsilon)
        smooth = t(eps / np.float32(x.shape[-1])) if prior is None else \
            t(epsilon) * prior.reshape(-1)
        return (t(np.float32(1) - eps) * x + smooth).astype(x.dtype)

    @staticmethod
    def backward(dout, epsilon=0.0):
        return dout.dtype.type(np.float32(1) - np.float32(epsilon)) * dout

    def samples(self, rng):
        one_hot = np.eye(4)[rng.randint(0, 4, 3)]
        yield Sample({"X": one_hot}, {"epsilon": 0.1}, name="uniform")
        prior = rand(rng, 1, 4, low=0, high=1)
        yield Sample({"X": one_hot, "PriorDist": prior / prior.sum()}, {"epsilon": 0.2},
                     name="prior")
