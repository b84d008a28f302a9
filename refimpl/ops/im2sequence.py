"""im2sequence (fluid.layers.im2sequence, Paddle 1.8): each image of X [N, C, H, W] becomes
a sequence of its kh x kw patches, one row [C * kh * kw] (channel, then patch row, then
patch column) per window position, windows in row-major order:
    Out[(i, j), (c, a, b)] = Xpad[c, i * sh + a, j * sw + b]
Xpad: the image with paddings [up, left, down, right] of zeros (and zeros past its end).
The windows per image: oh = (h + up + down - kh) // sh + 1, ow likewise, with (h, w) the
image's size, or with Y [N, 2] (its real size, float, rows when N > 1 only, as Paddle
1.8.5 ignores Y for one image) ceil(real / out_stride). Out's LoD (OutLength, no program
variable) counts each image's oh * ow rows. The gradient is the adjoint: every patch
entry adds back to its pixel (no gradient to Y)."""
import numpy as np

from ._common import rand
from .registry import OpDef, Sample, lengths_lod, register


def window_counts(x_shape, real_size, kernels, strides, paddings, out_stride):
    """[(oh, ow)] per image."""
    n, _, h, w = x_shape
    if real_size is None or n == 1:
        sizes = [(h, w)] * n
    else:
        real = np.asarray(real_size).reshape(n, 2).astype(np.int64)
        sizes = [tuple(-(-real[i] // np.asarray(out_stride))) for i in range(n)]
    return [((sh_ + paddings[0] + paddings[2] - kernels[0]) // strides[0] + 1,
             (sw_ + paddings[1] + paddings[3] - kernels[1]) // strides[1] + 1)
            for sh_, sw_ in sizes]


def _padded_extent(image_hw, counts, kernels, strides, paddings):
    """(rows, cols) of a zero-padded image that every window of `counts` fits in."""
    oh, ow = counts
    return (max(image_hw[0] + paddings[0], (oh - 1) * strides[0] + kernels[0]),
            max(image_hw[1] + paddings[1], (ow - 1) * strides[1] + kernels[1]))


def _window_slices(counts, kernels, strides):
    """(a, b, rows slice, cols slice): the pixels patch entry (a, b) reads in every window."""
    (oh, ow), (sh, sw) = counts, strides
    for a in range(kernels[0]):
        for b in range(kernels[1]):
            yield a, b, slice(a, a + sh * (oh - 1) + 1, sh), slice(b, b + sw * (ow - 1) + 1, sw)


@register
class Im2Sequence(OpDef):
    type = "im2sequence"
    inputs = ("X", "Y?")
    outputs = ("Out", "OutLength")
    attrs = {"kernels": [1, 1], "strides": [1, 1], "paddings": [0, 0, 0, 0],
             "out_stride": [1, 1]}
    lod_outputs = {"Out": lengths_lod("OutLength")}
    no_grad = ("Y",)
    grad_inputs = ("X", "Y?", "Out@GRAD")

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        ctx.check_dtype("X", ("float32", "float64"))
        ctx.expect(len(x.shape) == 4, "input X %r: expected images [N, C, H, W], got %s"
                   % (x.name, list(x.shape)))
        for name, size in (("kernels", 2), ("strides", 2), ("paddings", 4),
                           ("out_stride", 2)):
            ctx.expect(len(ctx.attr(name)) == size, "%s must have %d values, got %s"
                       % (name, size, ctx.attr(name)))
        ctx.expect(min(ctx.attr("kernels")) > 0 and min(ctx.attr("strides")) > 0 and
                   min(ctx.attr("out_stride")) > 0 and min(ctx.attr("paddings")) >= 0,
                   "kernels, strides and out_stride must be positive and paddings >= 0, got "
                   "%s, %s, %s, %s" % (ctx.attr("kernels"), ctx.attr("strides"),
                                       ctx.attr("out_stride"), ctx.attr("paddings")))
        n, c, h, w = x.shape
        kh, kw = ctx.attr("kernels")
        rows = -1
        if not ctx.has_input("Y") and min(n, h, w) >= 0:
            (oh, ow), = window_counts((1, c, h, w), None, ctx.attr("kernels"),
                                      ctx.attr("strides"), ctx.attr("paddings"), (1, 1))
            ctx.expect(oh > 0 and ow > 0, "input X %r of %d x %d is smaller than the "
                       "window %s with paddings %s" % (x.name, h, w, [kh, kw],
                                                       ctx.attr("paddings")))
            rows = n * oh * ow
        ctx.set_output("Out", (rows, c * kh * kw if c >= 0 else -1), x.dtype)
        ctx.set_output("OutLength", (n,), "int64")

    @staticmethod
    def forward(x, y=None, kernels=(1, 1), strides=(1, 1), paddings=(0, 0, 0, 0),
                out_stride=(1, 1)):
        counts = window_counts(x.shape, y, kernels, strides, paddings, out_stride)
        if any(oh <= 0 or ow <= 0 for oh, ow in counts):
            raise ValueError("im2sequence: an image is smaller than the window %s with "
                             "paddings %s (windows per image %s)"
                             % (list(kernels), list(paddings), counts))
        rows = []
        for image, (oh, ow) in zip(x, counts):
            extent = _padded_extent(image.shape[1:], (oh, ow), kernels, strides, paddings)
            padded = np.zeros((len(image),) + extent, x.dtype)
            h, w = min(image.shape[1], extent[0] - paddings[0]), \
                min(image.shape[2], extent[1] - paddings[1])
            padded[:, paddings[0]:paddings[0] + h, paddings[1]:paddings[1] + w] = \
                image[:, :h, :w]
            patches = np.zeros((oh, ow, len(image)) + tuple(kernels), x.dtype)
            for a, b, r, c in _window_slices((oh, ow), kernels, strides):
                patches[:, :, :, a, b] = padded[:, r, c].transpose(1, 2, 0)
            rows.append(patches.reshape(oh * ow, -1))
        return (np.concatenate(rows).reshape(-1, x.shape[1] * kernels[0] * kernels[1]),
                np.array([oh * ow for oh, ow in counts], np.int64))

    @staticmethod
    def backward(x, y, dout, kernels=(1, 1), strides=(1, 1), paddings=(0, 0, 0, 0),
                 out_stride=(1, 1)):
        counts = window_counts(x.shape, y, kernels, strides, paddings, out_stride)
        dx = np.zeros_like(x)
        start = 0
        for image, (oh, ow) in enumerate(counts):
            extent = _padded_extent(x.shape[2:], (oh, ow), kernels, strides, paddings)
            dpadded = np.zeros((x.shape[1],) + extent, dout.dtype)
            patches = dout[start:start + oh * ow].reshape((oh, ow, x.shape[1]) + tuple(kernels))
            start += oh * ow
            for a, b, r, c in _window_slices((oh, ow), kernels, strides):
                dpadded[:, r, c] += patches[:, :, :, a, b].transpose(2, 0, 1)
            h, w = min(x.shape[2], extent[0] - paddings[0]), \
                min(x.shape[3], extent[1] - paddings[1])
            dx[image, :, :h, :w] = dpadded[:, paddings[0]:paddings[0] + h,
                                           paddings[1]:paddings[1] + w]
        return dx

    def samples(self, rng):
        yield Sample({"X": rand(rng, 2, 2, 4, 5)},
                     {"kernels": [2, 3], "strides": [2, 1], "paddings": [1, 0, 2, 1]})
        yield Sample({"X": rand(rng, 1, 3, 3, 3)}, {"kernels": [2, 2]})
        # real sizes: image 0 is cut to 2 x 3 windows' worth, image 1 reads zeros past X
        yield Sample({"X": rand(rng, 2, 1, 3, 4),
                      "Y": np.array([[4.0, 6.0], [9.0, 8.0]], np.float32)},
                     {"kernels": [2, 2], "paddings": [0, 1, 0, 1], "out_stride": [2, 2]})
        # the same in float32: Paddle (1.8.5, 3.3.1) casts Y to X's dtype, then reads it as
        # float, so only a float32 X runs with Y there (no finite-difference check in float32)
        yield Sample({"X": rand(rng, 2, 1, 3, 4).astype(np.float32),
                      "Y": np.array([[4.0, 6.0], [9.0, 8.0]], np.float32)},
                     {"kernels": [2, 2], "paddings": [0, 1, 0, 1], "out_stride": [2, 2]},
                     grad=False, name="real_sizes_float32")
