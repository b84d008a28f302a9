"""lp_pool2d (Paddle 3): power-average pooling, out = (sum of x^p over the window)^(1/p),
p = norm_type, over pool2d's windows (NCHW; NHWC transposed): padding cells add nothing,
ceil_mode windows are clipped to the input. As 3.3.1's kernel (measured): x^p is the plain
power (a negative sum under an odd p gives NaN), p = inf is the max pool, and the
gradient x^(p-1) out^(1-p) is NaN where out is 0. Slots x / out as Paddle's OpProto."""
import numpy as np

from ._common import FLOATS, channels_first, channels_last, rand
from .pool2d import Pool2D, _geometry, _windows
from .registry import OpDef, Sample, register


def _each_window(x, kernel_size, strides, paddings, ceil_mode, padding_algorithm):
    """Yield (i, j, row slice, column slice) of every output cell's window within x."""
    k, s, pads, (ho, wo) = _geometry(x, kernel_size, strides, paddings, False, ceil_mode,
                                     False, padding_algorithm)
    h, w = x.shape[2:]
    for i, j, (r0, r1), (c0, c1) in _windows(h, w, k, s, pads, ho, wo, False):
        yield i, j, slice(max(r0, 0), min(r1, h)), slice(max(c0, 0), min(c1, w))


def _out_shape(x, kernel_size, strides, paddings, ceil_mode, padding_algorithm):
    return _geometry(x, kernel_size, strides, paddings, False, ceil_mode, False,
                     padding_algorithm)[3]


def _as_max_pool(attrs):
    return {"pooling_type": "max", "ksize": attrs["kernel_size"], "strides": attrs["strides"],
            "paddings": attrs["paddings"], "ceil_mode": attrs["ceil_mode"],
            "padding_algorithm": attrs["padding_algorithm"],
            "data_format": attrs["data_format"]}


@register
class LpPool2D(OpDef):
    type = "lp_pool2d"
    inputs = ("x",)
    outputs = ("out",)
    attrs = {"kernel_size": [2, 2], "strides": [1, 1], "paddings": [0, 0], "ceil_mode": False,
             "exclusive": True, "data_format": "NCHW", "pooling_type": "lp",
             "global_pooling": False, "adaptive": False, "padding_algorithm": "EXPLICIT",
             "norm_type": 2.0}
    grad_inputs = ("x", "out", "out@GRAD")

    def infer_shape(self, ctx):
        x = ctx.input_var("x")
        ctx.check_dtype("x", FLOATS)
        ctx.expect(len(x.shape) == 4, "x %r must be 4-D, got %s" % (x.name, list(x.shape)))
        ctx.check_positive("kernel_size", "strides")
        ctx.expect(ctx.attr("norm_type") != 0, "norm_type must not be 0")
        ctx.expect(ctx.attr("data_format") in ("NCHW", "NHWC"), "data_format must be 'NCHW' "
                   "or 'NHWC', got %r" % (ctx.attr("data_format"),))
        nhwc = ctx.attr("data_format") == "NHWC"
        n, c, h, w = (x.shape[0], x.shape[3], x.shape[1], x.shape[2]) if nhwc else x.shape
        ho, wo = -1, -1
        if h >= 0 and w >= 0:
            ho, wo = _out_shape(np.empty((0, 0, h, w)), ctx.attr("kernel_size"),
                                ctx.attr("strides"), ctx.attr("paddings"),
                                ctx.attr("ceil_mode"), ctx.attr("padding_algorithm"))
            ctx.expect(ho > 0 and wo > 0, "x %r of shape %s is smaller than the window %s"
                       % (x.name, list(x.shape), ctx.attr("kernel_size")))
        ctx.set_output("out", [n, ho, wo, c] if nhwc else [n, c, ho, wo], x.dtype)

    @staticmethod
    def forward(x, norm_type=2.0, **attrs):
        attrs = dict(LpPool2D.attrs, **attrs)
        if np.isinf(norm_type):
            return Pool2D.forward(x, **_as_max_pool(attrs))
        x = channels_first(x, attrs["data_format"])
        window = (attrs["kernel_size"], attrs["strides"], attrs["paddings"],
                  attrs["ceil_mode"], attrs["padding_algorithm"])
        out = np.empty(x.shape[:2] + tuple(_out_shape(x, *window)), x.dtype)
        powered = x ** x.dtype.type(norm_type)
        with np.errstate(invalid="ignore", divide="ignore"):
            for i, j, rows, cols in _each_window(x, *window):
                out[:, :, i, j] = powered[:, :, rows, cols].sum(axis=(2, 3)) ** (1.0 / norm_type)
        return channels_last(out, attrs["data_format"])

    @staticmethod
    def backward(x, out, dout, norm_type=2.0, **attrs):
        attrs = dict(LpPool2D.attrs, **attrs)
        if np.isinf(norm_type):
            return Pool2D.backward(x, out, dout, **_as_max_pool(attrs))
        layout = attrs["data_format"]
        x, out, dout = (channels_first(a, layout) for a in (x, out, dout))
        p = x.dtype.type(norm_type)
        window = (attrs["kernel_size"], attrs["strides"], attrs["paddings"],
                  attrs["ceil_mode"], attrs["padding_algorithm"])
        dx = np.zeros_like(x)
        with np.errstate(invalid="ignore", divide="ignore"):
            scale = dout * out ** (1 - p)
            slope = x ** (p - 1)
            for i, j, rows, cols in _each_window(x, *window):
                dx[:, :, rows, cols] += slope[:, :, rows, cols] * scale[:, :, i, j, None, None]
        return channels_last(dx, layout)

    def samples(self, rng):
        positive = rand(rng, 2, 3, 5, 6, low=0.5, high=2.0)
        yield Sample({"x": positive}, {"kernel_size": [2, 3], "strides": [2, 2],
                                       "norm_type": 2.0})
        yield Sample({"x": positive}, {"kernel_size": [3, 3], "strides": [2, 1],
                                       "paddings": [1, 1], "ceil_mode": True,
                                       "norm_type": 3.0}, name="padded_ceil")
        yield Sample({"x": positive.transpose(0, 2, 3, 1).copy()},
                     {"kernel_size": [2, 2], "strides": [1, 2], "norm_type": 1.5,
                      "data_format": "NHWC"}, name="nhwc")
        distinct = rng.permutation(2 * 3 * 4 * 4).reshape(2, 3, 4, 4) / 10.0
        yield Sample({"x": distinct}, {"kernel_size": [2, 2], "strides": [2, 2],
                                       "norm_type": float("inf")}, name="inf")
