"""pool3d: max or average pooling over kd x kh x kw windows (NCDHW; NDHWC transposed), with
pool2d's rules in three dims: exclusive averages divide by the real cells of a window,
non-exclusive by its cells inside the padded input; ceil_mode rounds the output size up;
adaptive makes ksize the output size, window i spanning [floor(i S / O), ceil((i+1) S / O));
global_pooling is one window over everything. Max sends the gradient to the first maximum
of each window (row-major). A ceil_mode window lying wholly in the padding is empty: max
gives -FLT_MAX, avg NaN (0/0), as pool2d and Paddle."""
import itertools

import numpy as np

from ..geometry import pool_geometry
from ._common import FLOATS, channels_first, channels_last, rand
from .pool2d import EMPTY_MAX
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
        x = ctx.input_var("X")
        ctx.check_dtype("X", FLOATS)
        ctx.expect(len(x.shape) == 5, "X %r must be 5-D, got %s" % (x.name, list(x.shape)))
        ctx.expect(ctx.attr("pooling_type") in ("max", "avg"),
                   "pooling_type must be 'max' or 'avg', got %r" % ctx.attr("pooling_type"))
        last = ctx.attr("data_format") == "NDHWC"
        shape = list(x.shape)
        if last:
            shape = [shape[0], shape[4]] + shape[1:4]
        out = [-1] * 3
        if min(shape[2:]) >= 0:
            _, _, _, out = pool_geometry(
                shape[2:], ctx.attr("ksize"), ctx.attr("strides"), ctx.attr("paddings"),
                ctx.attr("global_pooling"), ctx.attr("ceil_mode"), ctx.attr("adaptive"),
                ctx.attr("padding_algorithm"))
            ctx.expect(min(out) > 0, "X %r of shape %s is smaller than the window %s"
                       % (x.name, list(x.shape), ctx.attr("ksize")))
        full = [shape[0], shape[1]] + out
        ctx.set_output("Out", [full[0]] + out + [full[1]] if last else full, x.dtype)

    @staticmethod
    def _cells(x, attrs):
        xc = channels_first(x, attrs["data_format"])
        k, s, pads, out = pool_geometry(
            xc.shape[2:], attrs["ksize"], attrs["strides"], attrs["paddings"],
            attrs["global_pooling"], attrs["ceil_mode"], attrs["adaptive"],
            attrs["padding_algorithm"])
        return xc, out, windows(xc.shape[2:], k, s, pads, out, attrs["adaptive"])

    @staticmethod
    def _divisor(window, full, attrs):
        count = int(np.prod([sl.stop - sl.start for sl in window]))
        return count if attrs["exclusive"] or attrs["adaptive"] else full

    def forward(self, x, **attrs):
        xc, out_sizes, cells = self._cells(x, attrs)
        out = np.empty(xc.shape[:2] + tuple(out_sizes), x.dtype)
        for index, window, full in cells:
            block = xc[(slice(None), slice(None)) + window].reshape(xc.shape[:2] + (-1,))
            if attrs["pooling_type"] == "max":
                out[(Ellipsis,) + index] = block.max(-1) if block.size else EMPTY_MAX
            elif not block.size:
                out[(Ellipsis,) + index] = np.nan
            else:
                out[(Ellipsis,) + index] = block.sum(-1) / self._divisor(window, full, attrs)
        return channels_last(out, attrs["data_format"])

    def backward(self, x, out, dout, **attrs):
        xc, _, cells = self._cells(x, attrs)
        dc = channels_first(dout, attrs["data_format"])
        dx = np.zeros_like(xc)
        for index, window, full in cells:
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
