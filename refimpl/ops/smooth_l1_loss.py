"""smooth_l1_loss (fluid.layers.smooth_l1): per-row sum of a smooth L1 of the weighted
difference d = InsideWeight (X - Y): 0.5 (sigma d)^2 where |d| < 1/sigma^2, else
|d| - 0.5/sigma^2, times OutsideWeight. Diff keeps d for the gradient."""
import numpy as np

from ._common import rand
from .pointwise_loss import check_same_shape
from .registry import OpDef, Sample, register


@register
class SmoothL1Loss(OpDef):
    type = "smooth_l1_loss"
    inputs = ("X", "Y", "InsideWeight?", "OutsideWeight?")
    outputs = ("Diff", "Out")
    attrs = {"sigma": 1.0}
    no_grad = ("InsideWeight", "OutsideWeight")
    grad_inputs = ("InsideWeight?", "OutsideWeight?", "Diff", "Out@GRAD")

    def infer_shape(self, ctx):
        x = check_same_shape(ctx, "X", "Y")
        for slot in ("InsideWeight", "OutsideWeight"):
            if ctx.has_input(slot):
                check_same_shape(ctx, "X", slot)
        ctx.set_output("Diff", x.shape, x.dtype)
        ctx.set_output("Out", (x.shape[0], 1), x.dtype)

    @staticmethod
    def forward(x, y, inside, outside, sigma=1.0):
        d = (x - y) if inside is None else (x - y) * inside
        s2 = sigma * sigma
        val = np.where(np.abs(d) < 1 / s2, 0.5 * s2 * d * d, np.abs(d) - 0.5 / s2)
        if outside is not None:
            val = val * outside
        return d, val.reshape(len(x), -1).sum(1, keepdims=True).astype(x.dtype)

    @staticmethod
    def backward(inside, outside, d, dout, sigma=1.0):
        s2 = sigma * sigma
        g = np.where(np.abs(d) < 1 / s2, s2 * d, np.sign(d))
        g = g * dout.reshape((-1,) + (1,) * (d.ndim - 1))
        for w in (inside, outside):
            if w is not None:
                g = g * w
        return g, -g

    def samples(self, rng):
        x, y = rand(rng, 3, 4, low=-2, high=2), rand(rng, 3, 4, low=-2, high=2)
        yield Sample({"X": x, "Y": y}, name="plain")
        inside, outside = rand(rng, 3, 4, low=0.5, high=1.5), rand(rng, 3, 4, low=0.5, high=2)
        d = (x - y) * inside
        x[np.abs(np.abs(d) - 0.25) < 0.03] += 0.1  # away from the kink at 1/sigma^2
        yield Sample({"X": x, "Y": y, "InsideWeight": inside, "OutsideWeight": outside},
                     {"sigma": 2.0}, name="weighted")
