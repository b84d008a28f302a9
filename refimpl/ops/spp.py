"""spp: spatial pyramid pooling (Paddle's spp op). Level i (of pyramid_height) pools X
[N, C, H, W] into 2^i x 2^i bins: kernel = stride = ceil(H / 2^i) (W likewise), padding
(kernel 2^i - H + 1) / 2 (integer division), max or exclusive average pooling (pool2d's
rules). Each level's [N, C, bins, bins] is flattened per sample; Out concatenates the
levels: [N, C (4^pyramid_height - 1) / 3]. The gradient is pool2d's, summed over levels."""
import numpy as np

from ._common import rand
from .pool2d import Pool2D
from .registry import OpDef, Sample, register


def _levels(shape, pyramid_height):
    """(bins, pool2d attrs) of each level."""
    h, w = shape[2:]
    for i in range(pyramid_height):
        bins = 2 ** i
        kh, kw = -(-h // bins), -(-w // bins)
        yield bins, {"ksize": [kh, kw], "strides": [kh, kw],
                     "paddings": [(kh * bins - h + 1) // 2, (kw * bins - w + 1) // 2]}


@register
class Spp(OpDef):
    type = "spp"
    inputs = ("X",)
    outputs = ("Out",)
    attrs = {"pyramid_height": 1, "pooling_type": "max"}
    grad_inputs = ("X", "Out@GRAD")

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        ctx.expect(len(x.shape) == 4, "X %r must be 4-D [N, C, H, W], got shape %s"
                   % (x.name, list(x.shape)))
        height = ctx.attr("pyramid_height")
        ctx.expect(height >= 1, "pyramid_height must be >= 1, got %d" % height)
        ctx.expect(ctx.attr("pooling_type") in ("max", "avg"), "pooling_type must be 'max' "
                   "or 'avg', got %r" % (ctx.attr("pooling_type"),))
        c = x.shape[1]
        ctx.set_output("Out", [x.shape[0], c * (4 ** height - 1) // 3 if c >= 0 else -1],
                       x.dtype)

    @staticmethod
    def forward(x, pyramid_height=1, pooling_type="max"):
        n = x.shape[0]
        return np.concatenate([
            Pool2D.forward(x, pooling_type, **attrs).reshape(n, -1)
            for _, attrs in _levels(x.shape, pyramid_height)], axis=1)

    @staticmethod
    def backward(x, dout, pyramid_height=1, pooling_type="max"):
        n, c = x.shape[:2]
        dx, start = np.zeros_like(x), 0
        for bins, attrs in _levels(x.shape, pyramid_height):
            width = c * bins * bins
            part = dout[:, start:start + width].reshape(n, c, bins, bins)
            dx += Pool2D.backward(x, None, part, pooling_type, **attrs)
            start += width
        return dx

    def samples(self, rng):
        # no window wholly in the padding (its max, -FLT_MAX, defeats finite differences)
        for shape, height in (((2, 2, 8, 8), 3), ((2, 2, 6, 5), 2)):
            distinct = rng.permutation(int(np.prod(shape))).reshape(shape) / 10.0
            yield Sample({"X": distinct}, {"pyramid_height": height, "pooling_type": "max"})
        yield Sample({"X": rand(rng, 2, 3, 6, 5)}, {"pyramid_height": 2, "pooling_type": "avg"})
