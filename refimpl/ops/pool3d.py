"""pool3d: max or average pooling over kd x kh x kw windows (NCDHW; NDHWC transposed), with
pool2d's rules in three dims: exclusive averages divide by the real cells of a window,
non-exclusive by its cells inside the padded input (by the whole kernel under 1.8 with
ceil_mode: the avg_pool_ceil_divisor switch); ceil_mode rounds the output size up;
adaptive makes ksize the output size, window i spanning [floor(i S / O), ceil((i+1) S / O));
global_pooling is one window over everything. Max sends the gradient to the first maximum
of each window (row-major). A ceil_mode window lying wholly in the padding is empty: max
gives -FLT_MAX, avg NaN (0/0), as pool2d and Paddle. windows() states the rule one window
at a time (adaptive pooling runs it); fixed windows are computed all at once on a strided
view of the padded input (the same values; OpTest runs pool3d once per input element)."""
import functools
import itertools

import numpy as np

from ..geometry import pool_geometry
from ._common import channels_first, channels_last, rand
from .conv_nd import patches, scatter
from .pool2d import EMPTY_MAX, GEOMETRY_ATTRS, checked_pool_input, whole_kernel_divisor
from .registry import OpDef, Sample, register


def windows(spatial, ksize, strides, pads, out, adaptive):
    """Yield (output index, data slices, divisor-when-not-exclusive) per output cell."""
    def spans(i, size, k, s, lo, hi, o):
        if adaptive:
            a, b = (i * size) // o, -(-((i + 1) * size) // o)
            return a, b, b - a
        a = i * s - lo
        b = max(min(a + k, size + hi), a)
        return max(a, 0), min(b, size), b - a
    for index in itertools.product(*(range(o) for o in out)):
        parts = [spans(i, *args) for i, args in zip(index, zip(spatial, ksize, strides,
                                                                [p[0] for p in pads],
                                                                [p[1] for p in pads], out))]
        yield (index, tuple(slice(a, b) for a, b, _ in parts),
               int(np.prod([full for _, _, full in parts])))


def _window_view(xc, k, s, pads, out, fill):
    """[N, C, *O, *K]: every (fixed-size) window of xc padded with `fill`, ceil_mode's
    windows past the high padding included; and the (lo, hi) padding."""
    widths = [(lo, max((o - 1) * st + kk - lo - n, 0))
              for n, kk, st, (lo, _), o in zip(xc.shape[2:], k, s, pads, out)]
    return patches(xc, k, s, widths, [1] * len(k), fill), widths


@functools.lru_cache(maxsize=64)
def _window_counts(spatial, k, s, pads, out):
    """(real cells, cells inside the padded input) of every window, [*O] each (cached:
    OpTest runs the op with one geometry many times)."""
    real, inside = 1, 1
    for d, (n, kk, st, (lo, hi), o) in enumerate(zip(spatial, k, s, pads, out)):
        a = np.arange(o) * st - lo
        b = np.maximum(np.minimum(a + kk, n + hi), a)
        shape = [1] * len(spatial)
        shape[d] = o
        real = real * np.maximum(np.minimum(b, n) - np.maximum(a, 0), 0).reshape(shape)
        inside = inside * (b - a).reshape(shape)
    real.setflags(write=False)
    inside.setflags(write=False)
    return real, inside


def _counts(xc, k, s, pads, out):
    return _window_counts(tuple(xc.shape[2:]), tuple(k), tuple(s),
                          tuple(tuple(p) for p in pads), tuple(out))


def _average_divisor(attrs, k, real, inside):
    """Per window: its real cells (exclusive), else its cells inside the padded input, or
    under 1.8 with ceil_mode the whole kernel (as pool2d: avg_pool_ceil_divisor)."""
    if attrs["exclusive"]:
        return real
    whole = whole_kernel_divisor(attrs, k)
    return inside if whole is None else whole


def _strided_forward(xc, k, s, pads, out, attrs):
    """Fixed windows at once; the same values as the per-window loop (windows())."""
    nd = len(k)
    taps = tuple(range(2 + nd, 2 + 2 * nd))
    real, inside = _counts(xc, k, s, pads, out)
    if attrs["pooling_type"] == "max":
        cols, _ = _window_view(xc, k, s, pads, out, -np.inf)
        return np.where(real > 0, cols.max(axis=taps), EMPTY_MAX).astype(xc.dtype)
    cols, _ = _window_view(xc, k, s, pads, out, 0)
    divisor = _average_divisor(attrs, k, real, inside)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(real > 0, cols.sum(axis=taps) / divisor, np.nan).astype(xc.dtype)


def _strided_backward(xc, dc, k, s, pads, out, attrs):
    """dX of _strided_forward: each window's share of dOut scattered back (the first
    maximum's cell for max, row-major as the loop's argmax)."""
    nd = len(k)
    real, inside = _counts(xc, k, s, pads, out)
    if attrs["pooling_type"] == "max":
        cols, widths = _window_view(xc, k, s, pads, out, -np.inf)
        flat = cols.reshape(cols.shape[:2 + nd] + (-1,))
        shares = np.zeros(flat.shape, dc.dtype)
        np.put_along_axis(shares, flat.argmax(-1)[..., None], dc[..., None], axis=-1)
        shares = shares.reshape(cols.shape)
    else:
        cols, widths = _window_view(xc, k, s, pads, out, 0)
        divisor = _average_divisor(attrs, k, real, inside)
        with np.errstate(invalid="ignore", divide="ignore"):
            share = np.where(real > 0, dc / divisor, 0).astype(dc.dtype)
        shares = np.broadcast_to(share.reshape(share.shape + (1,) * nd), cols.shape)
    return scatter(shares, xc.shape[2:], s, widths, [1] * nd).astype(xc.dtype, copy=False)


@register
class Pool3D(OpDef):
    type = "pool3d"
    # float64: Paddle's avg pool3d gradient differs by ~1e-6 relative (float32 rounding in its kernel) (the spec's Tolerances)
    tolerances = {"float32": (1e-4, 1e-5), "float64": (1e-6, 1e-8)}
    inputs = ("X",)
    outputs = ("Out",)
    attrs = {"pooling_type": "max", "ksize": [2, 2, 2], "strides": [1, 1, 1],
             "paddings": [0, 0, 0], "global_pooling": False, "ceil_mode": False,
             "exclusive": True, "adaptive": False, "padding_algorithm": "EXPLICIT",
             "data_format": "NCDHW", "use_cudnn": False}
    grad_inputs = ("X", "Out", "Out@GRAD")

    def infer_shape(self, ctx):
        x = checked_pool_input(ctx, 5, ("NCDHW", "NDHWC"))
        last = ctx.attr("data_format") == "NDHWC"
        shape = list(x.shape)
        if last:
            shape = [shape[0], shape[4]] + shape[1:4]
        out = [-1] * 3
        if min(shape[2:]) >= 0:
            _, _, _, out = pool_geometry(shape[2:], *(ctx.attr(a) for a in GEOMETRY_ATTRS))
            ctx.expect(min(out) > 0, "X %r of shape %s is smaller than the window %s"
                       % (x.name, list(x.shape), ctx.attr("ksize")))
        full = [shape[0], shape[1]] + out
        ctx.set_output("Out", [full[0]] + out + [full[1]] if last else full, x.dtype)

    @staticmethod
    def _geometry(xc, attrs):
        return pool_geometry(xc.shape[2:], *(attrs[a] for a in GEOMETRY_ATTRS))

    @staticmethod
    def _divisor(window, full, attrs):
        count = int(np.prod([sl.stop - sl.start for sl in window]))
        return count if attrs["exclusive"] or attrs["adaptive"] else full

    def forward(self, x, **attrs):
        xc = channels_first(x, attrs["data_format"])
        k, s, pads, out_sizes = self._geometry(xc, attrs)
        if not attrs["adaptive"]:
            return channels_last(_strided_forward(xc, k, s, pads, out_sizes, attrs),
                                 attrs["data_format"])
        out = np.empty(xc.shape[:2] + tuple(out_sizes), x.dtype)
        for index, window, full in windows(xc.shape[2:], k, s, pads, out_sizes, True):
            block = xc[(slice(None), slice(None)) + window].reshape(xc.shape[:2] + (-1,))
            if attrs["pooling_type"] == "max":
                out[(Ellipsis,) + index] = block.max(-1) if block.size else EMPTY_MAX
            elif not block.size:
                out[(Ellipsis,) + index] = np.nan
            else:
                out[(Ellipsis,) + index] = block.sum(-1) / self._divisor(window, full, attrs)
        return channels_last(out, attrs["data_format"])

    def backward(self, x, out, dout, **attrs):
        xc = channels_first(x, attrs["data_format"])
        dc = channels_first(dout, attrs["data_format"])
        k, s, pads, out_sizes = self._geometry(xc, attrs)
        if not attrs["adaptive"]:
            return channels_last(_strided_backward(xc, dc, k, s, pads, out_sizes, attrs),
                                 attrs["data_format"])
        dx = np.zeros_like(xc)
        for index, window, full in windows(xc.shape[2:], k, s, pads, out_sizes, True):
            region = (slice(None), slice(None)) + window
            if not xc[region].size:
                continue
            g = dc[(Ellipsis,) + index]
            if attrs["pooling_type"] == "max":
                block = xc[region].reshape(xc.shape[:2] + (-1,))
                first = np.zeros_like(block)
                np.put_along_axis(first, block.argmax(-1)[..., None], 1, axis=-1)
                dx[region] += (first * g[..., None]).reshape(dx[region].shape)
            else:
                dx[region] += (g / self._divisor(window, full, attrs)).reshape(
                    g.shape + (1,) * 3)
        return channels_last(dx, attrs["data_format"])

    def samples(self, rng):
        x = rand(rng, 2, 2, 4, 5, 3)
        yield Sample({"X": x}, {"pooling_type": "max", "ksize": [2, 2, 2],
                                "strides": [2, 2, 1]}, name="max")
        yield Sample({"X": x}, {"pooling_type": "avg", "ksize": [3, 2, 2], "strides": [2, 2, 2],
                                "paddings": [1, 0, 0], "exclusive": False, "ceil_mode": True},
                     name="avg_padded_ceil")
        yield Sample({"X": x}, {"pooling_type": "avg", "ksize": [3, 2, 2],
                                "paddings": [1, 1, 0, 1, 1, 0]}, name="avg_exclusive")
        yield Sample({"X": x}, {"pooling_type": "max", "ksize": [3, 2, 2], "adaptive": True},
                     name="adaptive_max")
        yield Sample({"X": np.moveaxis(x, 1, -1).copy()},
                     {"pooling_type": "avg", "global_pooling": True, "data_format": "NDHWC",
                      "ksize": [1, 1, 1]},   # ignored with global_pooling; Paddle requires it
                     name="global_ndhwc")
