"""affine_channel: Out = X * Scale + Bias per channel (axis 1 for NCHW, last for NHWC)."""
from ._common import rand
from .registry import OpDef, Sample, register


def _channel_view(x, layout):
    """Shape that lines a [C] vector up with X's channel axis."""
    shape = [1] * x.ndim
    shape[1 if layout == "NCHW" else x.ndim - 1] = -1
    return shape


@register
class AffineChannel(OpDef):
    type = "affine_channel"
    inputs = ("X", "Scale", "Bias")
    outputs = ("Out",)
    attrs = {"data_layout": "NCHW"}
    grad_inputs = ("X", "Scale", "Out@GRAD")

    def infer_shape(self, ctx):
        shape = ctx.input_shape("X")
        layout = ctx.attr("data_layout")
        ctx.expect(layout in ("NCHW", "NHWC", "AnyLayout"),
                   "data_layout must be NCHW or NHWC, got %r" % layout)
        ctx.expect(len(shape) >= 2, "input X must be at least 2-D, got shape %s" % list(shape))
        channels = shape[1 if layout != "NHWC" else -1]
        for slot in ("Scale", "Bias"):
            got = ctx.input_shape(slot)
            ctx.expect(len(got) == 1 and (channels < 0 or got[0] in (-1, channels)),
                       "input %s must have shape [%d] (X's channels), got %s"
                       % (slot, channels, list(got)))
        ctx.same_as("X", "Out")

    @staticmethod
    def forward(x, scale, bias, data_layout="NCHW"):
        view = _channel_view(x, data_layout)
        return (x * scale.reshape(view) + bias.reshape(view)).astype(x.dtype)

    @staticmethod
    def backward(x, scale, dout, data_layout="NCHW"):
        view = _channel_view(x, data_layout)
        axes = tuple(i for i, d in enumerate(view) if d == 1)
        return (dout * scale.reshape(view), (dout * x).sum(axis=axes),
                dout.sum(axis=axes))

    def samples(self, rng):
        yield Sample({"X": rand(rng, 2, 3, 4, 2), "Scale": rand(rng, 3), "Bias": rand(rng, 3)},
                     {"data_layout": "NCHW"})   # Paddle's default is AnyLayout
        yield Sample({"X": rand(rng, 2, 4, 3), "Scale": rand(rng, 3), "Bias": rand(rng, 3)},
                     {"data_layout": "NHWC"})
