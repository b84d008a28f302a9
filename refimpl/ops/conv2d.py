"""conv2d and depthwise_conv2d (NCHW; NHWC is transposed in and out).

Reference: im2col through numpy stride tricks, then one matmul per group. Shapes:
Input [N, C, H, W], Filter [M, C/groups, kh, kw], Output [N, M, Ho, Wo] with
Ho = (H + pad_top + pad_bottom - (dilation*(kh-1)+1)) // stride + 1.
"""
import numpy as np

from .._kernels.geometry import conv_out_size, normalize_padding
from ._common import FLOATS, rand
from .registry import OpDef, Sample, register


def im2col(x, kh, kw, stride, pads, dilation):
    """[N, C, Ho, Wo, kh, kw] view-based patches of the zero-padded input."""
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[1]), (pads[2], pads[3])))
    n, c, h, w = xp.shape
    ho = (h - (dilation[0] * (kh - 1) + 1)) // stride[0] + 1
    wo = (w - (dilation[1] * (kw - 1) + 1)) // stride[1] + 1
    sn, sc, sh, sw = xp.strides
    return np.lib.stride_tricks.as_strided(
        xp, (n, c, ho, wo, kh, kw),
        (sn, sc, sh * stride[0], sw * stride[1], sh * dilation[0], sw * dilation[1]),
        writeable=False)


def col2im(cols, x_shape, stride, pads, dilation):
    """Adjoint of im2col: scatter-add [N, C, Ho, Wo, kh, kw] patches back to [N, C, H, W]."""
    n, c, h, w = x_shape
    _, _, ho, wo, kh, kw = cols.shape
    xp = np.zeros((n, c, h + pads[0] + pads[1], w + pads[2] + pads[3]), cols.dtype)
    for i in range(kh):
        for j in range(kw):
            r, s = i * dilation[0], j * dilation[1]
            xp[:, :, r:r + stride[0] * ho:stride[0], s:s + stride[1] * wo:stride[1]] += \
                cols[:, :, :, :, i, j]
    return xp[:, :, pads[0]:pads[0] + h, pads[2]:pads[2] + w]


def _nchw(x, data_format):
    return x.transpose(0, 3, 1, 2) if data_format == "NHWC" else x


def _back(y, data_format):
    return np.ascontiguousarray(y.transpose(0, 2, 3, 1)) if data_format == "NHWC" else y


def _group_patches(x, f, strides, paddings, padding_algorithm, groups, dilations,
                   data_format):
    """(pads, Ho, Wo, one patch matrix [N*Ho*Wo, C/groups*kh*kw] per group): the im2col
    that the forward computes and the backward needs again."""
    x = _nchw(x, data_format)
    pads = normalize_padding(paddings, padding_algorithm, x.shape[2:], f.shape[2:], strides,
                             dilations)
    cols = im2col(x, f.shape[2], f.shape[3], strides, pads, dilations)
    n, c, ho, wo, kh, kw = cols.shape
    cg = c // groups
    return pads, ho, wo, [cols[:, g * cg:(g + 1) * cg].transpose(0, 2, 3, 1, 4, 5).reshape(
        n * ho * wo, cg * kh * kw) for g in range(groups)]


class _Conv(OpDef):
    inputs = ("Input", "Filter")
    outputs = ("Output",)
    attrs = {"strides": [1, 1], "paddings": [0, 0], "padding_algorithm": "EXPLICIT",
             "groups": 1, "dilations": [1, 1], "data_format": "NCHW", "use_cudnn": False}
    grad_inputs = ("Input", "Filter", "Output@GRAD")
    partial_grads = True
    saves_for_grad = True   # the im2col patches, which the backward needs again
    kernels = {"forward": "im2col:conv2d_forward", "backward": "im2col:conv2d_backward"}
    tolerances = {"float32": (1e-4, 1e-4), "float64": (1e-7, 1e-9)}

    def infer_shape(self, ctx):
        x, f = ctx.input_var("Input"), ctx.input_var("Filter")
        ctx.check_dtype("Input", FLOATS)
        ctx.expect(len(x.shape) == 4, "Input %r must be 4-D [N, C, H, W], got %s"
                   % (x.name, list(x.shape)))
        ctx.expect(len(f.shape) == 4, "Filter %r must be 4-D, got %s" % (f.name, list(f.shape)))
        nhwc = ctx.attr("data_format") == "NHWC"
        n, c, h, w = (x.shape[0], x.shape[3], x.shape[1], x.shape[2]) if nhwc else x.shape
        groups = ctx.attr("groups") or 1
        if c >= 0 and f.shape[1] * groups != c:
            ctx.fail("Filter %r %s expects %d input channels (x groups=%d), Input %r has %d"
                     % (f.name, list(f.shape), f.shape[1] * groups, groups, x.name, c))
        ctx.expect(f.shape[0] % groups == 0, "Filter %r has %d output channels, not divisible "
                   "by groups=%d" % (f.name, f.shape[0], groups))
        strides, dil = ctx.attr("strides"), ctx.attr("dilations")
        pads = normalize_padding(ctx.attr("paddings"), ctx.attr("padding_algorithm"),
                                 (h, w), f.shape[2:], strides, dil)
        ho = conv_out_size(h, f.shape[2], strides[0], pads[0], pads[1], dil[0]) if h >= 0 else -1
        wo = conv_out_size(w, f.shape[3], strides[1], pads[2], pads[3], dil[1]) if w >= 0 else -1
        if (h >= 0 and ho <= 0) or (w >= 0 and wo <= 0):
            ctx.fail("Input %r spatial size %s is too small for filter %s" %
                     (x.name, [h, w], list(f.shape[2:])))
        out = [n, ho, wo, f.shape[0]] if nhwc else [n, f.shape[0], ho, wo]
        ctx.set_output("Output", out, x.dtype)

    @staticmethod
    def forward(x, f, strides=(1, 1), paddings=(0, 0), padding_algorithm="EXPLICIT", groups=1,
                dilations=(1, 1), data_format="NCHW", use_cudnn=False, saved=None):
        groups = groups or 1
        found = _group_patches(x, f, strides, paddings, padding_algorithm, groups, dilations,
                               data_format)
        if saved is not None:
            saved.put(x, found)
        _, ho, wo, patches = found
        n, mg = x.shape[0], f.shape[0] // groups
        out = np.empty((n, f.shape[0], ho, wo), x.dtype)
        for g, patch in enumerate(patches):
            wg = f[g * mg:(g + 1) * mg].reshape(mg, -1)
            out[:, g * mg:(g + 1) * mg] = (patch @ wg.T).reshape(n, ho, wo, mg).transpose(
                0, 3, 1, 2)
        return _back(out, data_format)

    @staticmethod
    def backward(x, f, dy, strides=(1, 1), paddings=(0, 0), padding_algorithm="EXPLICIT",
                 groups=1, dilations=(1, 1), data_format="NCHW", use_cudnn=False,
                 need=(True, True), saved=None):
        groups = groups or 1
        found = saved.take(x) if saved is not None else None
        pads, ho, wo, patches = found or _group_patches(x, f, strides, paddings, padding_algorithm,
                                                groups, dilations, data_format)
        x, dy = _nchw(x, data_format), _nchw(dy, data_format)
        n, c = x.shape[:2]
        kh, kw = f.shape[2:]
        cg, mg = c // groups, f.shape[0] // groups
        dcols = np.empty((n, c, ho, wo, kh, kw), x.dtype)
        df = np.empty_like(f)
        for g, patch in enumerate(patches):
            d = dy[:, g * mg:(g + 1) * mg].transpose(0, 2, 3, 1).reshape(n * ho * wo, mg)
            wg = f[g * mg:(g + 1) * mg].reshape(mg, -1)
            df[g * mg:(g + 1) * mg] = (d.T @ patch).reshape(mg, cg, kh, kw)
            dcols[:, g * cg:(g + 1) * cg] = (d @ wg).reshape(n, ho, wo, cg, kh, kw).transpose(
                0, 3, 1, 2, 4, 5)
        if not need[0]:
            return None, df
        dx = col2im(dcols, x.shape, strides, pads, dilations)
        return _back(np.ascontiguousarray(dx), data_format), df

    def samples(self, rng):
        yield Sample({"Input": rand(rng, 2, 3, 6, 5), "Filter": rand(rng, 4, 3, 3, 2)})
        yield Sample({"Input": rand(rng, 1, 4, 7, 7), "Filter": rand(rng, 4, 2, 3, 3)},
                     {"strides": [2, 1], "paddings": [1, 2], "groups": 2, "dilations": [1, 2]})
        yield Sample({"Input": rand(rng, 1, 5, 5, 2), "Filter": rand(rng, 3, 2, 2, 2)},
                     {"data_format": "NHWC", "padding_algorithm": "SAME"})


@register
class Conv2D(_Conv):
    type = "conv2d"


@register
class DepthwiseConv2D(_Conv):
    """conv2d with groups == channels (its own type so passes can find it)."""
    type = "depthwise_conv2d"

    def samples(self, rng):
        yield Sample({"Input": rand(rng, 2, 3, 5, 5), "Filter": rand(rng, 3, 1, 3, 3)},
                     {"groups": 3, "paddings": [1, 1]})
