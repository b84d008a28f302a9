"""pool2d: max or average pooling over kh x kw windows (NCHW; NHWC transposed).

Max: the gradient goes to the first maximum of each window (row-major). Avg with
exclusive=True divides by the number of real (non-padding) cells; False by the window's
cells inside the padded input (Paddle 2.0, 3) or by the whole kernel (1.8): the
`avg_pool_ceil_divisor` switch (pool3d's too), which matters for ceil_mode windows.
ceil_mode rounds the output size up (the extra windows are clipped to the input). As in
Paddle, a ceil_mode window that starts past the input is empty: max gives -FLT_MAX
(Paddle's initial value, for every dtype), avg gives NaN (0/0)."""
import numpy as np

from .. import versions
from ..geometry import flat_pads, pool_geometry
from ._common import FLOATS, channels_first, channels_last, rand
from .registry import OpDef, Sample, register

EMPTY_MAX = float(np.finfo(np.float32).min)   # Paddle's max-pool initial value (-FLT_MAX)
# the attrs of pool2d / pool3d that pool_geometry takes after the spatial dims, in its order
GEOMETRY_ATTRS = ("ksize", "strides", "paddings", "global_pooling", "ceil_mode", "adaptive",
                  "padding_algorithm")


def checked_pool_input(ctx, rank, layouts):
    """X, checked as pool2d and pool3d take it: floats of `rank` dims, a max or avg pool,
    positive windows and strides (unless global or adaptive), one of the `layouts`."""
    x = ctx.input_var("X")
    ctx.check_dtype("X", FLOATS)
    ctx.expect(len(x.shape) == rank, "X %r must be %d-D, got %s"
               % (x.name, rank, list(x.shape)))
    ctx.expect(ctx.attr("pooling_type") in ("max", "avg"),
               "pooling_type must be 'max' or 'avg', got %r" % ctx.attr("pooling_type"))
    if not (ctx.attr("global_pooling") or ctx.attr("adaptive")):
        ctx.check_positive("ksize", "strides")
    ctx.expect(ctx.attr("data_format") in layouts + ("AnyLayout",),
               "data_format must be %s, got %r" % (" or ".join(map(repr, layouts)),
                                                    ctx.attr("data_format")))
    return x


def _geometry(x, ksize, strides, paddings, global_pooling, ceil_mode, adaptive,
              padding_algorithm):
    """(ksize, strides, [top, bottom, left, right], (Ho, Wo)) of an NCHW input."""
    k, s, pads, out = pool_geometry(x.shape[2:], ksize, strides, paddings, global_pooling,
                                    ceil_mode, adaptive, padding_algorithm)
    return k, s, flat_pads(pads), out


def _windows(h, w, ksize, strides, pads, ho, wo, adaptive):
    """Yield (i, j, (r0, r1), (c0, c1)): every output cell's window, clipped to the padded
    input (so r1 - r0 is the non-exclusive divisor; 0 for a window past it)."""
    for i in range(ho):
        if adaptive:
            r0, r1 = (i * h) // ho, -(-((i + 1) * h) // ho)
        else:
            r0 = i * strides[0] - pads[0]
            r1 = max(min(r0 + ksize[0], h + pads[1]), r0)
        for j in range(wo):
            if adaptive:
                c0, c1 = (j * w) // wo, -(-((j + 1) * w) // wo)
            else:
                c0 = j * strides[1] - pads[2]
                c1 = max(min(c0 + ksize[1], w + pads[3]), c0)
            yield i, j, (r0, r1), (c0, c1)


def whole_kernel_divisor(attrs, ksize=(1, 1)):
    """Paddle 1.8 divides a non-exclusive ceil_mode average by the kernel's area (volume,
    pool3d); None where the divisor is the window inside the padded input (which is that
    area elsewhere)."""
    if attrs["exclusive"] or not attrs["ceil_mode"] or \
            versions.switch("avg_pool_ceil_divisor") != "kernel":
        return None
    return int(np.prod(ksize))


@register
class Pool2D(OpDef):
    type = "pool2d"
    inputs = ("X",)
    outputs = ("Out",)
    attrs = {"pooling_type": "max", "ksize": [2, 2], "strides": [1, 1], "paddings": [0, 0],
             "global_pooling": False, "ceil_mode": False, "exclusive": True, "adaptive": False,
             "padding_algorithm": "EXPLICIT", "data_format": "NCHW", "use_cudnn": False}
    grad_inputs = ("X", "Out", "Out@GRAD")

    def infer_shape(self, ctx):
        x = checked_pool_input(ctx, 4, ("NCHW", "NHWC"))
        nhwc = ctx.attr("data_format") == "NHWC"
        shape = (x.shape[0], x.shape[3], x.shape[1], x.shape[2]) if nhwc else tuple(x.shape)
        # a dim unknown at build time (-1) gives -1 (each spatial dim on its own, as
        # Paddle): it is computed with a stand-in size that fits the window
        unknown = [d < 0 for d in shape[2:]]
        stand_in = 1 + max(list(ctx.attr("ksize")) + [1]) * 2 + sum(ctx.attr("paddings"))
        known = tuple(stand_in if u else d for u, d in zip(unknown, shape[2:]))
        _, _, _, (ho, wo) = pool_geometry(known, *(ctx.attr(a) for a in GEOMETRY_ATTRS))
        ctx.expect(ho > 0 and wo > 0, "X %r of shape %s is smaller than the window %s"
                   % (x.name, list(x.shape), ctx.attr("ksize")))
        if not ctx.attr("adaptive"):
            ho, wo = (-1 if u else d for u, d in zip(unknown, (ho, wo)))
        out = [shape[0], ho, wo, shape[1]] if nhwc else [shape[0], shape[1], ho, wo]
        ctx.set_output("Out", out, x.dtype)

    @staticmethod
    def forward(x, pooling_type="max", ksize=(2, 2), strides=(1, 1), paddings=(0, 0),
                global_pooling=False, ceil_mode=False, exclusive=True, adaptive=False,
                padding_algorithm="EXPLICIT", data_format="NCHW", use_cudnn=False):
        x = channels_first(x, data_format)
        k, s, pads, (ho, wo) = _geometry(x, ksize, strides, paddings, global_pooling,
                                         ceil_mode, adaptive, padding_algorithm)
        h, w = x.shape[2:]
        whole = whole_kernel_divisor(dict(exclusive=exclusive, ceil_mode=ceil_mode), k)
        out = np.empty(x.shape[:2] + (ho, wo), x.dtype)
        for i, j, (r0, r1), (c0, c1) in _windows(h, w, k, s, pads, ho, wo, adaptive):
            win = x[:, :, max(r0, 0):min(r1, h), max(c0, 0):min(c1, w)]
            if pooling_type == "max":
                out[:, :, i, j] = win.max(axis=(2, 3), initial=EMPTY_MAX)
            else:
                area = win.shape[2] * win.shape[3] if (exclusive or adaptive) \
                    else whole or (r1 - r0) * (c1 - c0)
                out[:, :, i, j] = win.sum(axis=(2, 3)) / area if area else np.nan
        return channels_last(out, data_format)

    @staticmethod
    def backward(x, out, dout, pooling_type="max", ksize=(2, 2), strides=(1, 1),
                 paddings=(0, 0), global_pooling=False, ceil_mode=False, exclusive=True,
                 adaptive=False, padding_algorithm="EXPLICIT", data_format="NCHW",
                 use_cudnn=False):
        x = channels_first(x, data_format)
        dout = channels_first(dout, data_format)
        k, s, pads, (ho, wo) = _geometry(x, ksize, strides, paddings, global_pooling,
                                         ceil_mode, adaptive, padding_algorithm)
        h, w = x.shape[2:]
        whole = whole_kernel_divisor(dict(exclusive=exclusive, ceil_mode=ceil_mode), k)
        dx = np.zeros_like(x)
        n, c = x.shape[:2]
        for i, j, (r0, r1), (c0, c1) in _windows(h, w, k, s, pads, ho, wo, adaptive):
            rs, cs = slice(max(r0, 0), min(r1, h)), slice(max(c0, 0), min(c1, w))
            win = x[:, :, rs, cs]
            if win.size == 0:   # a window past the input: no cell gets its gradient
                continue
            g = dout[:, :, i, j]
            if pooling_type == "max":
                flat = win.reshape(n, c, -1)
                first = flat.argmax(axis=2)
                hit = np.zeros_like(flat)
                np.put_along_axis(hit, first[..., None], 1, axis=2)
                dx[:, :, rs, cs] += hit.reshape(win.shape) * g[:, :, None, None]
            else:
                area = win.shape[2] * win.shape[3] if (exclusive or adaptive) \
                    else whole or (r1 - r0) * (c1 - c0)
                dx[:, :, rs, cs] += (g / area)[:, :, None, None]
        return channels_last(dx, data_format)

    def samples(self, rng):
        # pooling_type and ksize are always passed: Paddle's op has no default for them
        def distinct(*shape):
            return rng.permutation(int(np.prod(shape))).reshape(shape) / 10.0
        yield Sample({"X": distinct(2, 3, 6, 6)}, {"pooling_type": "max", "ksize": [2, 2],
                                                   "strides": [2, 2]})
        yield Sample({"X": distinct(1, 2, 5, 5)}, {"pooling_type": "max", "ksize": [3, 3],
                                                   "strides": [2, 2], "paddings": [1, 1],
                                                   "ceil_mode": True})
        yield Sample({"X": rand(rng, 2, 2, 5, 4)}, {"pooling_type": "avg", "ksize": [3, 2],
                                                    "strides": [1, 2], "paddings": [1, 0],
                                                    "exclusive": False})
        yield Sample({"X": rand(rng, 2, 2, 4, 4)}, {"pooling_type": "avg", "ksize": [3, 3],
                                                    "strides": [2, 2], "paddings": [1, 1]})
        yield Sample({"X": rand(rng, 2, 3, 4, 5)}, {"pooling_type": "avg", "ksize": [4, 5],
                                                    "global_pooling": True})
        yield Sample({"X": distinct(1, 2, 5, 7)}, {"pooling_type": "max", "ksize": [2, 3],
                                                   "adaptive": True})
