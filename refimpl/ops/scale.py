"""scale: Out = scale * X + bias (bias_after_scale) or scale * (X + bias); the [1] tensor
ScaleTensor, when given, is the scale (Paddle 1.8's `fluid.layers.scale(x, scale=var)`)."""
import numpy as np

from ._common import rand
from .registry import OpDef, Sample, register, share_lod


@register
class Scale(OpDef):
    type = "scale"
    lod_outputs = {"Out": share_lod("X")}
    inputs = ("X", "ScaleTensor?")
    outputs = ("Out",)
    attrs = {"scale": 1.0, "bias": 0.0, "bias_after_scale": True}
    eager_double_attrs = ("scale", "bias")      # Paddle 3's eager scale: Scalars
    grad_inputs = ("ScaleTensor", "Out@GRAD")
    no_grad = ("ScaleTensor",)

    def infer_shape(self, ctx):
        ctx.same_as("X", "Out")

    @staticmethod
    def forward(x, scale_tensor=None, scale=1.0, bias=0.0, bias_after_scale=True):
        dt = x.dtype
        scale = tensor_scale(scale_tensor, scale)
        if bias_after_scale:
            return (x * dt.type(scale) + dt.type(bias)).astype(dt, copy=False)
        return ((x + dt.type(bias)) * dt.type(scale)).astype(dt, copy=False)

    @staticmethod
    def backward(scale_tensor, dout, scale=1.0, bias=0.0, bias_after_scale=True):
        scale = tensor_scale(scale_tensor, scale)
        return (dout * dout.dtype.type(scale)).astype(dout.dtype, copy=False)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 4)}, {"scale": 2.5, "bias": 0.5})
        yield Sample({"X": rand(rng, 3, 4)}, {"scale": -1.0, "bias": 1.0,
                                               "bias_after_scale": False})
        yield Sample({"X": rand(rng, 3, 4), "ScaleTensor": np.array([-2.5])}, {"bias": 0.5},
                     name="scale_tensor")


def tensor_scale(scale_tensor, scale):
    """The scale: ScaleTensor's number when given (float() reads it from a GPU too), else
    the attribute."""
    return scale if scale_tensor is None else float(scale_tensor.reshape(-1)[0])
