"""lrn (local response normalization across channels, fluid.layers.lrn):
MidOut = k + alpha sum_{j in window(c)} X[n, j, h, w]^2, Out = X MidOut^-beta, the window
being channels c - (n-1)/2 ... c + n/2 (integer halves) clipped to [0, C)."""
import numpy as np

from ._common import FLOATS, rand
from .registry import OpDef, Sample, register


def _window_sum(a, n):
    """Per channel, the sum of `a` over the channel window (axis 1)."""
    before, after = (n - 1) // 2, n - 1 - (n - 1) // 2
    padded = np.pad(a, [(0, 0), (before, after), (0, 0), (0, 0)])
    csum = np.concatenate([np.zeros_like(padded[:, :1]), np.cumsum(padded, axis=1)], axis=1)
    return csum[:, n:] - csum[:, :-n]


def _window_sum_adjoint(g, n):
    """The adjoint of _window_sum: channel j collects the windows that contain it."""
    before, after = (n - 1) // 2, n - 1 - (n - 1) // 2
    return _window_sum(g, n) if before == after else np.flip(
        _window_sum(np.flip(g, 1), n), 1)


def _nchw(x, data_format):
    return x.transpose(0, 3, 1, 2) if data_format == "NHWC" else x


def _back(x, data_format):
    return np.ascontiguousarray(x.transpose(0, 2, 3, 1)) if data_format == "NHWC" else x


@register
class LRN(OpDef):
    type = "lrn"
    inputs = ("X",)
    outputs = ("Out", "MidOut")
    attrs = {"n": 5, "k": 2.0, "alpha": 1e-4, "beta": 0.75, "data_format": "NCHW"}
    grad_inputs = ("X", "MidOut", "Out@GRAD")

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        ctx.check_dtype("X", FLOATS)
        ctx.expect(len(x.shape) == 4, "X %r must be 4-D, got %s" % (x.name, list(x.shape)))
        ctx.expect(ctx.attr("n") > 0, "n must be > 0, got %s" % ctx.attr("n"))
        ctx.same_as("X", "Out")
        ctx.same_as("X", "MidOut")

    @staticmethod
    def forward(x, n=5, k=2.0, alpha=1e-4, beta=0.75, data_format="NCHW"):
        xc = _nchw(x, data_format)
        mid = k + alpha * _window_sum(xc * xc, n)
        return (_back((xc * mid ** -beta).astype(x.dtype), data_format),
                _back(mid.astype(x.dtype), data_format))

    @staticmethod
    def backward(x, mid, dout, n=5, k=2.0, alpha=1e-4, beta=0.75, data_format="NCHW"):
        xc, mc, gc = (_nchw(a, data_format) for a in (x, mid, dout))
        # d/dx_j of x_c mid_c^-beta: [c == j] mid_c^-beta - 2 alpha beta x_c mid_c^(-beta-1) x_j
        through_mid = _window_sum_adjoint(gc * xc * mc ** (-beta - 1), n)
        dx = gc * mc ** -beta - 2 * alpha * beta * xc * through_mid
        return _back(dx.astype(x.dtype), data_format)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 2, 6, 2, 3)}, {"n": 3, "k": 1.0, "alpha": 0.5,
                                                    "beta": 0.75}, name="odd")
        yield Sample({"X": rand(rng, 1, 2, 3, 5)}, {"n": 4, "k": 2.0, "alpha": 0.3,
                                                    "beta": 0.5, "data_format": "NHWC"},
                     name="even_nhwc")
        # float32, the only dtype of Paddle's lrn kernel (which also wants n odd); no
        # finite-difference gradient check in float32
        yield Sample({"X": rand(rng, 2, 6, 2, 3).astype("float32")},
                     {"n": 3, "k": 1.0, "alpha": 0.5, "beta": 0.75}, grad=False,
                     name="odd_float32")
        yield Sample({"X": rand(rng, 1, 2, 3, 7).astype("float32")},
                     {"n": 5, "k": 2.0, "alpha": 0.3, "beta": 0.5, "data_format": "NHWC"},
                     grad=False, name="nhwc_float32")
