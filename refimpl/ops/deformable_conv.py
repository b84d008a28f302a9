"""deformable_conv (v2, modulated) and deformable_conv_v1: a convolution whose kernel taps
read the input at learned fractional positions (fluid.layers.deformable_conv).

Input [N, C, H, W], Filter [M, C / groups, kh, kw], Offset [N, 2 * dg * kh * kw, Ho, Wo]
(for deformable group g and tap k = i * kw + j: channel 2 * (g * kh * kw + k) is the row
shift, the next one the column shift), Mask [N, dg * kh * kw, Ho, Wo] (v2 only). Tap (i, j)
of output (ho, wo) reads input channel c (of deformable group g = c // (C / dg)) at
    y = ho * stride_h - pad_h + i * dilation_h + dy,  x = wo * stride_w - pad_w + j * dilation_w + dx
by bilinear interpolation (corners outside the image read 0; a point with y <= -1, y >= H,
x <= -1 or x >= W reads 0 and has no gradient), times the mask (v2). The sampled columns
are then convolved with Filter as a grouped 1x1-per-tap convolution."""
import numpy as np

from ._common import rand
from .registry import OpDef, Sample, register

ATTRS = {"strides": [1, 1], "paddings": [0, 0], "dilations": [1, 1], "groups": 1,
         "deformable_groups": 1, "im2col_step": 64}


def out_size(size, kernel, stride, pad, dilation):
    return (size + 2 * pad - (dilation * (kernel - 1) + 1)) // stride + 1


def sample_points(x, offset, filter_shape, strides, paddings, dilations, deformable_groups):
    """The fractional (y, x) every tap reads, per input channel: two [N, C, K, Ho, Wo]."""
    n, c = x.shape[:2]
    kh, kw = filter_shape[2:]
    ho, wo = offset.shape[2:]
    off = offset.reshape(n, deformable_groups, kh * kw, 2, ho, wo)
    # channel c uses its deformable group's offsets
    off = np.repeat(off, c // deformable_groups, axis=1)
    tap_y = (np.arange(kh) * dilations[0]).repeat(kw)
    tap_x = np.tile(np.arange(kw) * dilations[1], kh)
    base_y = tap_y[:, None, None] + (np.arange(ho) * strides[0] - paddings[0])[None, :, None]
    base_x = tap_x[:, None, None] + (np.arange(wo) * strides[1] - paddings[1])[None, None, :]
    # the integer tap grid in offset's dtype: int64 + float32 would make float64 points
    return (base_y.astype(offset.dtype) + off[:, :, :, 0],
            base_x.astype(offset.dtype) + off[:, :, :, 1])


def bilinear_corners(x, py, px):
    """The four corners of each point: [(weight, dweight/dy, dweight/dx, index, valid)],
    plus the mask of points inside (-1, H) x (-1, W) (others read 0)."""
    height, width = x.shape[2:]
    inside = (py > -1) & (py < height) & (px > -1) & (px < width)
    y0, x0 = np.floor(py), np.floor(px)
    ly, lx = py - y0, px - x0
    corners = []
    for cy, wy, dwy in ((y0, 1 - ly, -1.0), (y0 + 1, ly, 1.0)):
        for cx, wx, dwx in ((x0, 1 - lx, -1.0), (x0 + 1, lx, 1.0)):
            valid = inside & (cy >= 0) & (cy < height) & (cx >= 0) & (cx < width)
            index = (np.clip(cy, 0, height - 1).astype(np.int64),
                     np.clip(cx, 0, width - 1).astype(np.int64))
            corners.append((wy * wx, dwy * wx, wy * dwx, index, valid))
    return corners


def _gather(x, index):
    """x[n, c, y, x] at per-point (y, x) indices of shape [N, C, K, Ho, Wo]."""
    n, c = x.shape[:2]
    batch = np.arange(n)[:, None, None, None, None]
    chan = np.arange(c)[None, :, None, None, None]
    return x[batch, chan, index[0], index[1]]


def sample(x, corners):
    """Bilinear values at the points: [N, C, K, Ho, Wo]."""
    return sum(np.where(valid, w * _gather(x, idx), 0) for w, _, _, idx, valid in corners)


def grouped_conv(cols, weight, groups):
    """cols [N, C, K, Ho, Wo] (the sampled taps) times Filter [M, C/g, kh, kw] -> [N, M, Ho, Wo]."""
    n, c, k, ho, wo = cols.shape
    m = weight.shape[0]
    cols = cols.reshape(n, groups, (c // groups) * k, ho * wo)
    w = weight.reshape(groups, m // groups, -1)
    return np.einsum("gmr,ngrl->ngml", w, cols).reshape(n, m, ho, wo)


def check_im2col_step(batch, step, op):
    step = min(step, batch)
    if step <= 0 or batch % step:
        raise ValueError("%s: the batch size %d must be a multiple of im2col_step %d"
                         % (op, batch, step))


def deformable_forward(x, offset, mask, weight, attrs, op):
    check_im2col_step(x.shape[0], attrs["im2col_step"], op)
    check_offset_and_mask(x, offset, mask, weight, attrs, op)
    py, px = sample_points(x, offset, weight.shape, attrs["strides"], attrs["paddings"],
                           attrs["dilations"], attrs["deformable_groups"])
    corners = bilinear_corners(x, py, px)
    values = sample(x, corners)
    mask_c = None
    if mask is not None:
        n, c = x.shape[:2]
        dg = attrs["deformable_groups"]
        mask_c = np.repeat(mask.reshape(n, dg, -1, *mask.shape[2:]), c // dg, axis=1)
    cols = values if mask_c is None else values * mask_c
    return grouped_conv(cols, weight, attrs["groups"]), (corners, values, mask_c, cols)


def deformable_backward(x, offset, mask, weight, dout, attrs, op):
    """(dInput, dOffset, dMask or None, dFilter)."""
    _, (corners, values, mask_c, cols) = deformable_forward(x, offset, mask, weight, attrs, op)
    n, c, k, ho, wo = cols.shape
    groups, dg = attrs["groups"], attrs["deformable_groups"]
    m = weight.shape[0]
    dout_g = dout.reshape(n, groups, m // groups, ho * wo)
    cols_g = cols.reshape(n, groups, (c // groups) * k, ho * wo)
    dweight = np.einsum("ngml,ngrl->gmr", dout_g, cols_g).reshape(weight.shape)
    w = weight.reshape(groups, m // groups, -1)
    dcols = np.einsum("gmr,ngml->ngrl", w, dout_g).reshape(cols.shape)
    dvalues = dcols if mask_c is None else dcols * mask_c

    def per_group(a):  # sum a per-channel [N, C, K, Ho, Wo] over each deformable group
        return a.reshape(n, dg, c // dg, k, ho, wo).sum(2)

    dmask = None if mask is None else per_group(dcols * values).reshape(mask.shape)
    dx = np.zeros_like(x)
    dy_pt, dx_pt = np.zeros_like(values), np.zeros_like(values)
    batch = np.broadcast_to(np.arange(n)[:, None, None, None, None], values.shape)
    chan = np.broadcast_to(np.arange(c)[None, :, None, None, None], values.shape)
    for wgt, dwy, dwx, idx, valid in corners:
        corner = np.where(valid, _gather(x, idx), 0)
        dy_pt += dwy * corner
        dx_pt += dwx * corner
        np.add.at(dx, (batch[valid], chan[valid], idx[0][valid], idx[1][valid]),
                  (dvalues * wgt)[valid])
    doffset = np.stack([per_group(dvalues * dy_pt), per_group(dvalues * dx_pt)], axis=3)
    return dx, doffset.reshape(offset.shape), dmask, dweight


def infer_deformable(ctx, modulated):
    x, offset, w = ctx.input_var("Input"), ctx.input_var("Offset"), ctx.input_var("Filter")
    for v, slot in ((x, "Input"), (offset, "Offset"), (w, "Filter")):
        ctx.expect(len(v.shape) == 4, "input %s %r: expected 4-D, got %s"
                   % (slot, v.name, list(v.shape)))
    for attr in ("strides", "paddings", "dilations"):
        ctx.expect(len(ctx.attr(attr)) == 2, "attr %s: expected 2 values, got %s"
                   % (attr, ctx.attr(attr)))
    groups, dg = ctx.attr("groups"), ctx.attr("deformable_groups")
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    ctx.expect(groups > 0 and dg > 0, "attrs groups / deformable_groups must be positive, "
               "got %d / %d" % (groups, dg))
    if c >= 0:
        ctx.expect(c % groups == 0 and cg * groups == c, "input Filter %r: expected [M, C/groups"
                   "=%d, kh, kw] for Input channels %d, groups %d, got %s"
                   % (w.name, c // groups, c, groups, list(w.shape)))
        ctx.expect(c % dg == 0, "input Input %r: channels %d not divisible by "
                   "deformable_groups %d" % (x.name, c, dg))
    ctx.expect(m % groups == 0, "input Filter %r: %d filters not divisible by groups %d"
               % (w.name, m, groups))
    s, p, d = ctx.attr("strides"), ctx.attr("paddings"), ctx.attr("dilations")
    ho = out_size(h, kh, s[0], p[0], d[0]) if h >= 0 else -1
    wo = out_size(wd, kw, s[1], p[1], d[1]) if wd >= 0 else -1
    ctx.expect(ho != 0 and wo != 0 and ho >= -1 and wo >= -1,
               "input Input %r: spatial size %s too small for the kernel" % (x.name, [h, wd]))
    # Offset and Mask are checked when the op runs (check_offset_and_mask), as Paddle's
    # InferShape checks them only at run time (2.0's test_deformable_conv_op builds with a
    # 4-channel Offset for a 1 x 1 kernel)
    ctx.set_output("Output", (n, m, ho, wo), x.dtype)


def check_offset_and_mask(x, offset, mask, weight, attrs, op):
    """Offset [N, 2 * deformable_groups * kh * kw, Ho, Wo], Mask (modulated) [N,
    deformable_groups * kh * kw, Ho, Wo]: a ValueError naming `op` otherwise."""
    dg, (kh, kw) = attrs["deformable_groups"], weight.shape[2:]
    s, p, d = attrs["strides"], attrs["paddings"], attrs["dilations"]
    ho, wo = (out_size(x.shape[2 + i], weight.shape[2 + i], s[i], p[i], d[i]) for i in (0, 1))
    for slot, value, channels in (("Offset", offset, 2 * dg * kh * kw),
                                  ("Mask", mask, dg * kh * kw)):
        expected = (x.shape[0], channels, ho, wo)
        if value is not None and tuple(value.shape) != expected:
            raise ValueError("%s: input %s: expected %s (%sdeformable_groups * kh * kw "
                             "channels), got %s" % (op, slot, list(expected),
                                                    "2 * " if slot == "Offset" else "",
                                                    list(value.shape)))


def _samples(rng, modulated):
    # offsets are fractional shifts kept clear of integer grid points (where bilinear
    # interpolation has kinks); some taps land partly or wholly outside the image
    def offsets(n, channels, ho, wo):
        frac = rng.uniform(0.2, 0.8, (n, channels, ho, wo))
        return frac + rng.randint(-2, 2, (n, channels, ho, wo))

    # Paddle's grad kernels are right with im2col_step 1 only (1.8.5 and 3.3.1, measured):
    # the first cases use it, the last (several images per step) documents the rest
    cases = [((2, 2, 4, 4), (3, 2, 2, 2), {"im2col_step": 1}),
             ((1, 4, 5, 4), (4, 2, 3, 3), {"paddings": [1, 1], "groups": 2,
                                            "deformable_groups": 2, "strides": [2, 1],
                                            "im2col_step": 1}),
             ((1, 2, 6, 6), (2, 2, 2, 2), {"dilations": [2, 2], "im2col_step": 1}),
             ((2, 2, 4, 4), (3, 2, 2, 2), {"im2col_step": 2})]
    for xs, ws, attrs in cases:
        a = dict(ATTRS, **attrs)
        ho = out_size(xs[2], ws[2], a["strides"][0], a["paddings"][0], a["dilations"][0])
        wo = out_size(xs[3], ws[3], a["strides"][1], a["paddings"][1], a["dilations"][1])
        taps = a["deformable_groups"] * ws[2] * ws[3]
        inputs = {"Input": rand(rng, *xs), "Offset": offsets(xs[0], 2 * taps, ho, wo),
                  "Filter": rand(rng, *ws)}
        if modulated:
            inputs["Mask"] = rng.uniform(0.1, 1.0, (xs[0], taps, ho, wo))
        yield Sample(inputs, attrs)


@register
class DeformableConv(OpDef):
    type = "deformable_conv"
    inputs = ("Input", "Offset", "Mask", "Filter")
    outputs = ("Output",)
    attrs = ATTRS
    grad_inputs = ("Input", "Offset", "Mask", "Filter", "Output@GRAD")

    def infer_shape(self, ctx):
        infer_deformable(ctx, True)

    @staticmethod
    def forward(x, offset, mask, weight, **attrs):
        return deformable_forward(x, offset, mask, weight, attrs, "deformable_conv")[0]

    @staticmethod
    def backward(x, offset, mask, weight, dout, **attrs):
        return deformable_backward(x, offset, mask, weight, dout, attrs, "deformable_conv")

    def samples(self, rng):
        return _samples(rng, True)


@register
class DeformableConvV1(OpDef):
    type = "deformable_conv_v1"
    inputs = ("Input", "Offset", "Filter")
    outputs = ("Output",)
    attrs = ATTRS
    grad_inputs = ("Input", "Offset", "Filter", "Output@GRAD")

    def infer_shape(self, ctx):
        infer_deformable(ctx, False)

    @staticmethod
    def forward(x, offset, weight, **attrs):
        return deformable_forward(x, offset, None, weight, attrs, "deformable_conv_v1")[0]

    @staticmethod
    def backward(x, offset, weight, dout, **attrs):
        dx, doffset, _, dweight = deformable_backward(x, offset, None, weight, dout, attrs,
                                                      "deformable_conv_v1")
        return dx, doffset, dweight

    def samples(self, rng):
        return _samples(rng, False)
