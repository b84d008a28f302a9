"""prelu: x where x > 0, alpha x elsewhere; Alpha is one scalar (mode 'all'), one per
channel (mode 'channel', axis 1 for NCHW, the last for NHWC) or one per element of a
sample (mode 'element', Alpha shaped like X[1:])."""
import numpy as np

from ._common import FLOATS, numel, rand
from .registry import OpDef, Sample, register


def _alpha_view(x, alpha, mode, data_format):
    """Alpha reshaped to broadcast against X."""
    if mode == "all":
        return alpha.reshape(())
    if mode == "channel":
        axis = x.ndim - 1 if data_format == "NHWC" else 1
        return alpha.reshape([-1 if i == axis else 1 for i in range(x.ndim)])
    return alpha.reshape((1,) + x.shape[1:])


@register
class PRelu(OpDef):
    type = "prelu"
    inputs = ("X", "Alpha")
    outputs = ("Out",)
    attrs = {"mode": "all", "data_format": "NCHW"}
    grad_inputs = ("X", "Alpha", "Out@GRAD")

    def infer_shape(self, ctx):
        x, alpha = ctx.input_var("X"), ctx.input_var("Alpha")
        ctx.check_dtype("X", FLOATS)
        mode = ctx.attr("mode")
        ctx.expect(mode in ("all", "channel", "element"),
                   "mode must be 'all', 'channel' or 'element', got %r" % mode)
        if mode == "channel":
            axis = len(x.shape) - 1 if ctx.attr("data_format") == "NHWC" else 1
            want = x.shape[axis]
        else:
            want = 1 if mode == "all" else numel(x.shape[1:])
        if want >= 0:
            ctx.expect(numel(alpha.shape) == want, "Alpha %r %s must have %d elements for "
                       "mode %r and X %r %s" % (alpha.name, list(alpha.shape), want, mode,
                                                x.name, list(x.shape)))
        ctx.same_as("X", "Out")

    @staticmethod
    def forward(x, alpha, mode="all", data_format="NCHW"):
        a = _alpha_view(x, alpha, mode, data_format)
        return np.where(x > 0, x, a * x).astype(x.dtype)

    @staticmethod
    def backward(x, alpha, dout, mode="all", data_format="NCHW"):
        a = _alpha_view(x, alpha, mode, data_format)
        dx = np.where(x > 0, dout, a * dout)
        da_full = np.where(x > 0, 0, x * dout)
        view = (1,) * (x.ndim - a.ndim) + a.shape
        da = da_full.sum(axis=tuple(i for i, d in enumerate(view) if d == 1))
        return dx.astype(x.dtype), np.asarray(da).reshape(alpha.shape).astype(alpha.dtype)

    def samples(self, rng):
        x = rand(rng, 2, 3, 2, 2)
        x[np.abs(x) < 0.05] = 0.2
        yield Sample({"X": x, "Alpha": rand(rng, 1)}, {"mode": "all"}, name="all")
        yield Sample({"X": x, "Alpha": rand(rng, 3)}, {"mode": "channel"}, name="channel")
        yield Sample({"X": x, "Alpha": rand(rng, 2)}, {"mode": "channel",
                                                       "data_format": "NHWC"}, name="nhwc")
        yield Sample({"X": x, "Alpha": rand(rng, 1, 3, 2, 2)}, {"mode": "element"},
                     name="element")
