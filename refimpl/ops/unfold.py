"""unfold (im2col): X [N, C, H, W] -> Y [N, C kh kw, L], L the number of sliding-block
positions; row c kh kw + i kw + j of block l holds x[c, h_l s_h - p_top + i d_h,
w_l s_w - p_left + j d_w] (0 outside). The gradient is col2im (overlaps add up).

fold (Paddle 3, col2im): the adjoint of unfold, X [N, C kh kw, L] -> Y [N, C, H, W] for
output_sizes [H, W]; each block's values add into the cells it covers (padding cells are
dropped). L must be the number of blocks unfold finds in [H, W]. Its gradient is unfold."""
import numpy as np

from ..geometry import conv_out_size
from ._common import COMPLEX, FLOATS, rand
from .conv_nd import patches, scatter
from .registry import OpDef, Sample, register


def _pads(paddings):
    """Paddle's [top, left, bottom, right] -> [(top, bottom), (left, right)]."""
    top, left, bottom, right = paddings
    return [(top, bottom), (left, right)]


def _blocks(size, kernel_sizes, strides, paddings, dilations):
    """The number of sliding-block positions along each of the two dims of `size`."""
    return [conv_out_size(d, k, s, lo, hi, dl) for d, k, s, (lo, hi), dl
            in zip(size, kernel_sizes, strides, _pads(paddings), dilations)]


def col2im(cols, channels, size, kernel_sizes, strides, paddings, dilations):
    """[N, C kh kw, L] blocks added into [N, C, *size] (unfold's adjoint)."""
    kh, kw = kernel_sizes
    ho, wo = _blocks(size, kernel_sizes, strides, paddings, dilations)
    blocks = cols.reshape(len(cols), channels, kh, kw, ho, wo).transpose(0, 1, 4, 5, 2, 3)
    return scatter(blocks, tuple(size), strides, _pads(paddings), dilations)


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
        return col2im(dy, x.shape[1], x.shape[2:], kernel_sizes, strides, paddings, dilations)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 2, 2, 4, 5)}, {"kernel_sizes": [2, 3], "strides": [1, 1],
                                                 "paddings": [0, 0, 0, 0], "dilations": [1, 1]},
                     name="plain")
        yield Sample({"X": rand(rng, 1, 3, 5, 5)},
                     {"kernel_sizes": [3, 2], "strides": [2, 1], "paddings": [1, 0, 1, 2],
                      "dilations": [1, 2]}, name="strided_padded_dilated")


@register
class Fold(OpDef):
    type = "fold"
    inputs = ("X",)
    outputs = ("Y",)
    attrs = {"output_sizes": [1, 1], "kernel_sizes": [1, 1], "strides": [1, 1],
             "paddings": [0, 0, 0, 0], "dilations": [1, 1]}
    grad_inputs = ("X", "Y@GRAD")

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        ctx.check_dtype("X", ("float32", "float64") + COMPLEX)   # 3.3.1's kernels
        ctx.expect(len(x.shape) == 3, "X %r must be [N, C kh kw, L], got %s"
                   % (x.name, list(x.shape)))
        ctx.check_positive("kernel_sizes", "strides", "dilations", "output_sizes")
        attrs = {k: ctx.attr(k) for k in self.attrs}
        kh, kw = attrs["kernel_sizes"]
        n, ckk, length = x.shape
        ctx.expect(ckk < 0 or ckk % (kh * kw) == 0, "dim 1 of X %r %s must be divisible by "
                   "kh kw = %d" % (x.name, list(x.shape), kh * kw))
        blocks = _blocks(attrs["output_sizes"], attrs["kernel_sizes"], attrs["strides"],
                         attrs["paddings"], attrs["dilations"])
        ctx.expect(min(blocks) > 0, "kernel %s (dilations %s) does not fit output_sizes %s "
                   "with paddings %s" % (attrs["kernel_sizes"], attrs["dilations"],
                                         attrs["output_sizes"], attrs["paddings"]))
        ctx.expect(length < 0 or length == blocks[0] * blocks[1], "dim 2 of X %r %s must be "
                   "the %d x %d = %d blocks of output_sizes %s"
                   % (x.name, list(x.shape), blocks[0], blocks[1], blocks[0] * blocks[1],
                      attrs["output_sizes"]))
        ctx.set_output("Y", [n, ckk // (kh * kw) if ckk >= 0 else -1]
                       + list(attrs["output_sizes"]), x.dtype)

    @staticmethod
    def forward(x, output_sizes=(1, 1), kernel_sizes=(1, 1), strides=(1, 1),
                paddings=(0, 0, 0, 0), dilations=(1, 1)):
        channels = x.shape[1] // (kernel_sizes[0] * kernel_sizes[1])
        return col2im(x, channels, output_sizes, kernel_sizes, strides, paddings, dilations)

    @staticmethod
    def backward(x, dy, output_sizes=(1, 1), kernel_sizes=(1, 1), strides=(1, 1),
                 paddings=(0, 0, 0, 0), dilations=(1, 1)):
        return Unfold.forward(dy, kernel_sizes, strides, paddings, dilations)

    def samples(self, rng):
        # every attr spelled out (3.3.1's op has no defaults for them); 3.3.1's fold takes
        # paddings with top == bottom and left == right only (specs/ops/functional_vision.md)
        yield Sample({"X": rand(rng, 2, 8, 6)},
                     {"output_sizes": [3, 4], "kernel_sizes": [2, 2], "strides": [1, 1],
                      "paddings": [0, 0, 0, 0], "dilations": [1, 1]}, name="plain")
        yield Sample({"X": rand(rng, 1, 6, 15)},
                     {"output_sizes": [5, 5], "kernel_sizes": [3, 2], "strides": [2, 1],
                      "paddings": [1, 1, 1, 1], "dilations": [1, 2]},
                     name="strided_padded_dilated")
