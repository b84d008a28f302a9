"""Rearrangements of channels and pixels (each a fixed permutation of elements, so the
gradient is the inverse permutation of Out@GRAD):
  pixel_shuffle    [N, C r^2, H, W] -> [N, C, H r, W r]; out[c, h r + i, w r + j] =
                   x[c r^2 + i r + j, h, w]
  space_to_depth   [N, C, H, W] -> [N, C b^2, H/b, W/b], C divisible by b^2: Paddle
                   1.8.5's kernel (darknet's reorg) builds y[c, h b + i, w b + j] =
                   x[(i b + j) C/b^2 + c, h, w] of shape [N, C/b^2, H b, W b] and reads
                   its buffer as the output shape
  shuffle_channel  [N, C, H, W], C = g m: channel k m + q goes to q g + k
  pixel_unshuffle  (Paddle 3) the inverse of pixel_shuffle: [N, C, H, W] ->
                   [N, C r^2, H/r, W/r]; out[c r^2 + i r + j, h, w] = x[c, h r + i, w r + j]
  channel_shuffle  (Paddle 3) shuffle_channel with a data_format (NCHW / NHWC)
"""
import numpy as np

from ._common import FLOATS, channels_first, channels_last, rand
from .registry import OpDef, Sample, register


class _Permutation(OpDef):
    inputs = ("X",)
    outputs = ("Out",)
    grad_inputs = ("Out@GRAD",)

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        ctx.check_dtype("X", FLOATS)
        ctx.expect(len(x.shape) == 4, "X %r must be 4-D, got %s" % (x.name, list(x.shape)))
        attrs = {k: ctx.attr(k) for k in self.attrs}
        ctx.set_output("Out", self.out_shape(ctx, x, **attrs), x.dtype)

    def forward(self, x, **attrs):
        return self.permute(x, **attrs)

    def backward(self, dout, **attrs):
        # apply the permutation to element indices, then invert it
        n = dout.size
        in_shape = self.in_shape(dout.shape, **attrs)
        moved = self.permute(np.arange(n).reshape(in_shape), **attrs).ravel()
        grad = np.empty(n, dout.dtype)
        grad[moved] = dout.ravel()
        return grad.reshape(in_shape)


def _divisible(ctx, x, what, size, factor):
    ctx.expect(size < 0 or size % factor == 0, "%s of X %r %s (%d) must be divisible by %d"
               % (what, x.name, list(x.shape), size, factor))


def _known(d, f):
    return d * f if d >= 0 else -1


def _layout(shape, data_format):
    """(n, c, h, w) of a 4-D shape in data_format."""
    n, a, b, d = shape
    return (n, d, a, b) if data_format == "NHWC" else (n, a, b, d)


def _in_layout(n, c, h, w, data_format):
    return (n, h, w, c) if data_format == "NHWC" else (n, c, h, w)


@register
class PixelShuffle(_Permutation):
    type = "pixel_shuffle"
    attrs = {"upscale_factor": 1, "data_format": "NCHW"}

    def out_shape(self, ctx, x, upscale_factor=1, data_format="NCHW"):
        r = upscale_factor
        n, c, h, w = _layout(x.shape, data_format)
        _divisible(ctx, x, "the channels", c, r * r)
        return _in_layout(n, c // (r * r) if c >= 0 else -1, _known(h, r), _known(w, r),
                          data_format)

    @staticmethod
    def in_shape(out_shape, upscale_factor=1, data_format="NCHW"):
        r = upscale_factor
        n, c, h, w = _layout(out_shape, data_format)
        return _in_layout(n, c * r * r, h // r, w // r, data_format)

    @staticmethod
    def permute(x, upscale_factor=1, data_format="NCHW"):
        r = upscale_factor
        if data_format == "NHWC":
            x = x.transpose(0, 3, 1, 2)
        n, c, h, w = x.shape
        out = x.reshape(n, c // (r * r), r, r, h, w).transpose(0, 1, 4, 2, 5, 3)
        out = out.reshape(n, c // (r * r), h * r, w * r)
        return np.ascontiguousarray(out.transpose(0, 2, 3, 1) if data_format == "NHWC" else out)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 2, 8, 2, 3)}, {"upscale_factor": 2})
        yield Sample({"X": rand(rng, 1, 2, 3, 9)}, {"upscale_factor": 3, "data_format": "NHWC"},
                     name="nhwc")


@register
class SpaceToDepth(_Permutation):
    type = "space_to_depth"
    attrs = {"blocksize": 2}

    def out_shape(self, ctx, x, blocksize=2):
        b = blocksize
        n, c, h, w = x.shape
        _divisible(ctx, x, "the channels", c, b * b)
        _divisible(ctx, x, "the height", h, b)
        _divisible(ctx, x, "the width", w, b)
        return (n, _known(c, b * b), h // b if h >= 0 else -1, w // b if w >= 0 else -1)

    @staticmethod
    def in_shape(out_shape, blocksize=2):
        n, c, h, w = out_shape
        b = blocksize
        return n, c // (b * b), h * b, w * b

    @staticmethod
    def permute(x, blocksize=2):
        b = blocksize
        n, c, h, w = x.shape
        y = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
        return np.ascontiguousarray(y).reshape(n, c * b * b, h // b, w // b)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 2, 8, 4, 6)}, {"blocksize": 2})


@register
class ShuffleChannel(_Permutation):
    type = "shuffle_channel"
    attrs = {"group": 1}

    def out_shape(self, ctx, x, group=1):
        _divisible(ctx, x, "the channels", x.shape[1], group)
        return tuple(x.shape)

    @staticmethod
    def in_shape(out_shape, group=1):
        return out_shape

    @staticmethod
    def permute(x, group=1):
        n, c, h, w = x.shape
        return np.ascontiguousarray(
            x.reshape(n, group, c // group, h, w).transpose(0, 2, 1, 3, 4).reshape(x.shape))

    def samples(self, rng):
        yield Sample({"X": rand(rng, 2, 6, 2, 3)}, {"group": 3})
        # Paddle's kernels copy sizeof(int) bytes per element, mangling float64, and its
        # grad kernel applies the forward permutation instead of its inverse
        # (specs/ops/functional_vision.md): a float32 case, forward only
        yield Sample({"X": rand(rng, 2, 6, 2, 3).astype("float32")}, {"group": 2},
                     grad=False, name="float32")


@register
class PixelUnshuffle(_Permutation):
    type = "pixel_unshuffle"
    attrs = {"downscale_factor": 1, "data_format": "NCHW"}

    def out_shape(self, ctx, x, downscale_factor=1, data_format="NCHW"):
        r = downscale_factor
        ctx.expect(r > 0, "downscale_factor must be positive, got %d" % r)
        n, c, h, w = _layout(x.shape, data_format)
        _divisible(ctx, x, "the height", h, r)
        _divisible(ctx, x, "the width", w, r)
        return _in_layout(n, _known(c, r * r), h // r if h >= 0 else -1,
                          w // r if w >= 0 else -1, data_format)

    @staticmethod
    def in_shape(out_shape, downscale_factor=1, data_format="NCHW"):
        r = downscale_factor
        n, c, h, w = _layout(out_shape, data_format)
        return _in_layout(n, c // (r * r), h * r, w * r, data_format)

    @staticmethod
    def permute(x, downscale_factor=1, data_format="NCHW"):
        r = downscale_factor
        x = channels_first(x, data_format)
        n, c, h, w = x.shape
        out = x.reshape(n, c, h // r, r, w // r, r).transpose(0, 1, 3, 5, 2, 4)
        return channels_last(np.ascontiguousarray(out).reshape(n, c * r * r, h // r, w // r),
                             data_format)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 2, 2, 4, 6)}, {"downscale_factor": 2})
        yield Sample({"X": rand(rng, 1, 3, 6, 3)}, {"downscale_factor": 3,
                                                    "data_format": "NHWC"}, name="nhwc")


@register
class ChannelShuffle(_Permutation):
    type = "channel_shuffle"
    attrs = {"groups": 1, "data_format": "NCHW"}

    def out_shape(self, ctx, x, groups=1, data_format="NCHW"):
        ctx.expect(groups > 0, "groups must be positive, got %d" % groups)
        _divisible(ctx, x, "the channels", _layout(x.shape, data_format)[1], groups)
        return tuple(x.shape)

    @staticmethod
    def in_shape(out_shape, groups=1, data_format="NCHW"):
        return out_shape

    @staticmethod
    def permute(x, groups=1, data_format="NCHW"):
        return channels_last(ShuffleChannel.permute(channels_first(x, data_format), groups),
                             data_format)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 2, 6, 2, 3)}, {"groups": 3})
        yield Sample({"X": rand(rng, 1, 2, 3, 4)}, {"groups": 2, "data_format": "NHWC"},
                     name="nhwc")
