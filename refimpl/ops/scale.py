"""scale: Out = scale * X + bias (bias_after_scale) or scale * (X + bias)."""
from ._common import rand
from .registry import OpDef, Sample, register


@register
class Scale(OpDef):
    type = "scale"
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
    def backward(dout, scale=1.0, bias=0.0, bias_after_scale=True):
        return (dout * dout.dtype.type(scale)).astype(dout.dtype, copy=False)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 4)}, {"scale": 2.5, "bias": 0.5})
        yield Sample({"X": rand(rng, 3, 4)}, {"scale": -1.0, "bias": 1.0,
                                               "bias_after_scale": False})
