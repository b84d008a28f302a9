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

    @staticmethod
    def forward(x, prior, epsilon=0.0):
        smooth = 1.0 / x.shape[-1] if prior is None else prior.reshape(-1)
        return ((1 - epsilon) * x + epsilon * smooth).astype(x.dtype)

    @staticmethod
    def backward(dout, epsilon=0.0):
        return (1 - epsilon) * dout

    def samples(self, rng):
        one_hot = np.eye(4)[rng.randint(0, 4, 3)]
        yield Sample({"X": one_hot}, {"epsilon": 0.1}, name="uniform")
        prior = rand(rng, 1, 4, low=0, high=1)
        yield Sample({"X": one_hot, "PriorDist": prior / prior.sum()}, {"epsilon": 0.2},
                     name="prior")
