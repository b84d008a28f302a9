"""polygon_box_transform (EAST text detection): geometry maps of offsets to absolute
coordinates. Input [N, 2k, H, W] holds k (x, y) offset pairs per cell; the output's even
channels are 4 * w - in, odd channels 4 * h - in (the maps are at 1/4 resolution). No
gradient, as in Paddle."""
import numpy as np

from ._common import FLOATS
from .registry import OpDef, Sample, register


@register
class PolygonBoxTransform(OpDef):
    type = "polygon_box_transform"
    inputs = ("Input",)
    outputs = ("Output",)
    attrs = {}

    def infer_shape(self, ctx):
        ctx.check_dtype("Input", FLOATS)
        x = ctx.input_var("Input")
        ctx.expect(len(x.shape) == 4, "Input %r must be 4-D NCHW, got %s"
                   % (x.name, list(x.shape)))
        ctx.expect(x.shape[1] < 0 or x.shape[1] % 2 == 0,
                   "Input %r must have an even number of channels (x, y pairs), got %d"
                   % (x.name, x.shape[1]))
        ctx.same_as("Input", "Output")

    @staticmethod
    def forward(x):
        _, _, h, w = x.shape
        out = np.empty_like(x)
        out[:, 0::2] = 4 * np.arange(w)[None, None, None, :] - x[:, 0::2]
        out[:, 1::2] = 4 * np.arange(h)[None, None, :, None] - x[:, 1::2]
        return out

    def samples(self, rng):
        yield Sample({"Input": rng.uniform(-5, 5, (2, 4, 3, 5))})
