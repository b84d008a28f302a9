"""unfold (im2col): X [N, C, H, W] -> Y [N, C kh kw, L], L the number of sliding-block
positions; row c kh kw + i kw + j of block l holds x[c, h_l s_h - p_top + i d_h,
w_l s_w - p_left + j d_w] (0 outside). The gradient is col2im (overlaps add up)."""
import numpy as np

from ..geometry import conv_out_size
from ._common import FLOATS, rand
from .conv_nd import patches, scatter
from .registry import OpDef, Sample, register


def _pads(paddings):
    """Paddle's [top, left, bottom, right] -> [(top, bottom), (left, right)]."""
    top, left, bottom, right = paddings
    return [(top, bottom), (left, right)]


@register
class Unfold(OpDef):
    type = "unfold"
    inputs = ("X",)
    outputs = ("Y",)
    attrs = {"kernel_sizes": [1, 1], "strides": [1, 1], "paddings": [0, 0, 0, 0],
             "dilations": [1, 1]}
    grad_inputs = ("X", "Y@GRAD")

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        ctx.check_dtype("X", FLOATS)
        ctx.expect(len(x.shape) == 4, "X %r must be [N, C, H, W], got %s"
                   % (x.name, list(x.shape)))
        (kh, kw), (sh, sw) = ctx.attr("kernel_sizes"), ctx.attr("strides")
        (dh, dw), (pt, pl, pb, pr) = ctx.attr("dilations"), ctx.attr("paddings")
        n, c, h, w = x.shape
        blocks = -1
        if h >= 0 and w >= 0:
            ho = conv_out_size(h, kh, sh, pt, pb, dh)
            wo = conv_out_size(w, kw, sw, pl, pr, dw)
            ctx.expect(ho > 0 and wo > 0, "kernel %s (dilations %s) does not fit X %r %s with "
                       "paddings %s" % ([kh, kw], [dh, dw], x.name, list(x.shape),
                                        [pt, pl, pb, pr]))
            blocks = ho * wo
        ctx.set_output("Y", (n, c * kh * kw if c >= 0 else -1, blocks), x.dtype)

    @staticmethod
    def forward(x, kernel_sizes=(1, 1), strides=(1, 1), paddings=(0, 0, 0, 0),
                dilations=(1, 1)):
        cols = patches(x, kernel_sizes, strides, _pads(paddings), dilations)
        n, c, ho, wo, kh, kw = cols.shape
        return np.ascontiguousarray(cols.transpose(0, 1, 4, 5, 2, 3)).reshape(
            n, c * kh * kw, ho * wo)

    @staticmethod
    def backward(x, dy, kernel_sizes=(1, 1), strides=(1, 1), paddings=(0, 0, 0, 0),
                 dilations=(1, 1)):
        n, c, h, w = x.shape
        kh, kw = kernel_sizes
        pads = _pads(paddings)
        ho, wo = (conv_out_size(size, k, s, lo, hi, d) for size, k, s, (lo, hi), d
                  in zip((h, w), kernel_sizes, strides, pads, dilations))
        cols = dy.reshape(n, c, kh, kw, ho, wo).transpose(0, 1, 4, 5, 2, 3)
        return scatter(cols, x.shape[2:], strides, pads, dilations)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 2, 2, 4, 5)}, {"kernel_sizes": [2, 3], "strides": [1, 1],
                                                 "paddings": [0, 0, 0, 0], "dilations": [1, 1]},
                     name="plain")
        yield Sample({"X": rand(rng, 1, 3, 5, 5)},
                     {"kernel_sizes": [3, 2], "strides": [2, 1], "paddings": [1, 0, 1, 2],
                      "dilations": [1, 2]}, name="strided_padded_dilated")
