"""renorm: each slice of X along `axis` whose p-norm exceeds max_norm scaled down to
max_norm (Paddle 3's paddle.renorm)."""
import numpy as np

from ._common import rand
from .registry import OpDef, Sample, register

# the kernel divides by the norm plus this (3.3.1 measured: the scale max_norm / (n + 1e-7))
_EPSILON = 1e-7


def _norms(x, p, axis):
    others = tuple(d for d in range(x.ndim) if d != axis % x.ndim)
    return np.sum(np.abs(x) ** p, axis=others, keepdims=True) ** (1.0 / p), others


@register
class Renorm(OpDef):
    type = "renorm"
    inputs = ("X",)
    outputs = ("Out",)
    attrs = {"p": 2.0, "axis": -1, "max_norm": 1.0}
    grad_inputs = ("X", "Out@GRAD")

    def infer_shape(self, ctx):
        ctx.check_dtype("X", ("float32", "float64"))
        ctx.check_axis("X", ctx.attr("axis"))
        ctx.same_as("X", "Out")

    @staticmethod
    def forward(x, p=2.0, axis=-1, max_norm=1.0):
        norms, _ = _norms(x, p, axis)
        scale = np.where(norms > max_norm, max_norm / (norms + _EPSILON), 1.0)
        return (x * scale).astype(x.dtype)

    @staticmethod
    def backward(x, dout, p=2.0, axis=-1, max_norm=1.0):
        norms, others = _norms(x, p, axis)
        over = norms > max_norm
        scale = np.where(over, max_norm / (norms + _EPSILON), 1.0)
        # d(x c / (n + e)) = c dx / (n + e) - c x / (n + e)^2 dn, dn = sign(x) |x|^(p-1) / n^(p-1)
        dnorm = np.sum(dout * x, axis=others, keepdims=True) * max_norm / (norms + _EPSILON) ** 2
        shrink = np.where(over, dnorm * np.sign(x) * np.abs(x) ** (p - 1) /
                          np.where(over, norms, 1) ** (p - 1), 0)
        return (dout * scale - shrink).astype(x.dtype)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 4, low=0.2, high=2.0)}, {"axis": 1, "max_norm": 1.5})
        yield Sample({"X": rand(rng, 2, 3, 2)}, {"p": 3.0, "axis": 0, "max_norm": 0.8})
