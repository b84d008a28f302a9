"""Ops behind gradient clipping: squared_l2_norm (ClipGradByGlobalNorm sums them) and
clip_by_norm (ClipGradByNorm); l1_norm, squared_l2_norm's L1 sibling (Paddle 1.8's
ctr_metric_bundle sums absolute errors with it)."""
import numpy as np

from ._common import rand
from .registry import OpDef, Sample, register


class _SumNorm(OpDef):
    """Out = [sum(f(X))], one number of X's dtype."""
    inputs = ("X",)
    outputs = ("Out",)
    grad_inputs = ("X", "Out@GRAD")

    def infer_shape(self, ctx):
        ctx.set_output("Out", [1], ctx.input_var("X").dtype)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 4)})


@register
class SquaredL2Norm(_SumNorm):
    """Out = [sum(X^2)]"""
    type = "squared_l2_norm"

    @staticmethod
    def forward(x):
        return np.array([np.sum(x * x)], dtype=x.dtype)

    @staticmethod
    def backward(x, dout):
        return (2 * dout.reshape(-1)[0] * x).astype(x.dtype)


@register
class L1Norm(_SumNorm):
    """Out = [sum(|X|)]; the grad is sign(X) Out@GRAD (0 at 0, as Paddle's)."""
    type = "l1_norm"

    @staticmethod
    def forward(x):
        return np.array([np.sum(np.abs(x))], dtype=x.dtype)

    @staticmethod
    def backward(x, dout):
        return (np.sign(x) * dout.reshape(-1)[0]).astype(x.dtype)


@register
class ClipByNorm(OpDef):
    """Out = X * max_norm / ||X|| when the L2 norm ||X|| exceeds max_norm, else X.
    No gradient (Paddle registers none: it only rescales gradients)."""
    type = "clip_by_norm"
    inputs = ("X",)
    outputs = ("Out",)
    attrs = {"max_norm": 1.0}

    def infer_shape(self, ctx):
        if ctx.attr("max_norm") <= 0:
            ctx.fail("max_norm must be > 0, got %s" % ctx.attr("max_norm"))
        ctx.same_as("X", "Out")

    @staticmethod
    def forward(x, max_norm=1.0):
        norm = np.sqrt(np.sum(x * x))
        if norm <= max_norm:
            return x.copy()
        return x * x.dtype.type(max_norm / norm)

    def samples(self, rng):
        # norm about 2: one case each side; float32, the only dtype of Paddle's CPU kernel
        x = rand(rng, 3, 4).astype(np.float32)
        yield Sample({"X": x}, {"max_norm": 0.5}, grad=False)
        yield Sample({"X": x}, {"max_norm": 10.0}, grad=False)
