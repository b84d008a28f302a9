"""scale: Out = scale * X + bias (bias_after_scale) or scale * (X + bias)."""
import numpy as np

from ._common import rand
from .registry import OpDef, Sample, register, share_lod


@register
class Scale(OpDef):
    type = "scale"
    lod_outputs = {"Out": share_lod("X")}
    inputs = ("X",)
    outputs = ("Out",)
    attrs = {"scale": 1.0, "bias": 0.0, "bias_after_scale": True}
    grad_inputs = ("Out@GRAD",)

    def infer_shape(self, ctx):
        ctx.same_as("X", "Out")

    @staticmethod
    def forward(x, scale=1.0, bias=0.0, bias_after_scale=True):
        dt = x.dtype
        if bias_after_scale:
            return (x * dt.type(scale) + dt.type(bias)).astype(dt, copy=False)
        return ((x + dt.type(bias)) * dt.type(scale)).astype(dt, copy=False)

    @staticmethod
    def forward_out(x, scale=1.0, bias=0.0, bias_after_scale=True, alloc=None):
        t = x.dtype.type
        out = alloc(x.shape, x.dtype)
        if bias_after_scale:
            return np.add(np.multiply(x, t(scale), out=out), t(bias), out=out)
        return np.multiply(np.add(x, t(bias), out=out), t(scale), out=out)

    @staticmethod
    def forward_inplace(x, scale=1.0, bias=0.0, bias_after_scale=True):
        return Scale.forward_out(x, scale, bias, bias_after_scale, alloc=lambda *_: x)

    @staticmethod
    def backward(dout, scale=1.0, bias=0.0, bias_after_scale=True):
        return (dout * dout.dtype.type(scale)).astype(dout.dtype, copy=False)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 4)}, {"scale": 2.5, "bias": 0.5})
        yield Sample({"X": rand(rng, 3, 4)}, {"scale": -1.0, "bias": 1.0,
                                               "bias_after_scale": False})
