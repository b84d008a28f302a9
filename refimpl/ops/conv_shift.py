"""conv_shift: circular convolution of each row of X with the same row of Y (Paddle's op,
from the Neural Turing Machine's shift weighting). For X [B, M] and Y [B, N], N odd and
<= M: Out[b, i] = sum_j X[b, (i + j - (N - 1) / 2) mod M] * Y[b, j]. Paddle's only kernel
is float32; refimpl takes float64 too, as its other ops with float32-only Paddle kernels."""
import numpy as np

from ._common import rand
from .registry import OpDef, Sample, register, share_lod


def _shifted_columns(m, n):
    """[M, N] column indices of X read by Out[:, i] against Y[:, j]."""
    return (np.arange(m)[:, None] + np.arange(n)[None, :] - (n - 1) // 2) % m


@register
class ConvShift(OpDef):
    type = "conv_shift"
    inputs = ("X", "Y")
    outputs = ("Out",)
    grad_inputs = ("X", "Y", "Out@GRAD")
    lod_outputs = {"Out": share_lod("X")}

    def infer_shape(self, ctx):
        x, y = ctx.input_var("X"), ctx.input_var("Y")
        ctx.check_dtype("X", ("float32", "float64"))
        ctx.check_same_dtype("X", "Y")
        ctx.expect(len(x.shape) == 2 and len(y.shape) == 2,
                   "X %r %s and Y %r %s must both be 2-D [batch, width]"
                   % (x.name, list(x.shape), y.name, list(y.shape)))
        (xb, m), (yb, n) = x.shape, y.shape
        ctx.expect(xb < 0 or yb < 0 or xb == yb, "X %r and Y %r must have the same batch "
                   "size, got %d and %d" % (x.name, y.name, xb, yb))
        ctx.expect(n < 0 or n % 2 == 1, "Y %r's width must be odd, got %d" % (y.name, n))
        ctx.expect(m < 0 or n < 0 or n <= m, "Y %r's width %d must not exceed X %r's %d"
                   % (y.name, n, x.name, m))
        ctx.same_as("X", "Out")

    @staticmethod
    def forward(x, y):
        cols = _shifted_columns(x.shape[1], y.shape[1])
        return np.einsum("bmn,bn->bm", x[:, cols], y).astype(x.dtype, copy=False)

    @staticmethod
    def backward(x, y, dout):
        m, n = x.shape[1], y.shape[1]
        cols = _shifted_columns(m, n)
        dx = np.zeros_like(x)
        for j in range(n):      # column j of `cols` is a permutation of X's columns
            dx[:, cols[:, j]] += dout * y[:, j:j + 1]
        dy = np.einsum("bm,bmn->bn", dout, x[:, cols]).astype(y.dtype, copy=False)
        return dx, dy

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 7), "Y": rand(rng, 3, 5)})
        yield Sample({"X": rand(rng, 2, 4), "Y": rand(rng, 2, 1)}, name="width_1")
