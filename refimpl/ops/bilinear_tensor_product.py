"""bilinear_tensor_product: Out[n, k] = X[n] . Weight[k] . Y[n] (+ Bias[0, k]), with
X [N, M], Y [N, P], Weight [K, M, P], Bias [1, K]."""
import numpy as np

from ._common import FLOATS, rand
from .registry import OpDef, Sample, register


@register
class BilinearTensorProduct(OpDef):
    type = "bilinear_tensor_product"
    inputs = ("X", "Y", "Weight", "Bias?")
    outputs = ("Out",)
    grad_inputs = ("X", "Y", "Weight", "Bias?", "Out@GRAD")

    def infer_shape(self, ctx):
        x, y, w = ctx.input_var("X"), ctx.input_var("Y"), ctx.input_var("Weight")
        ctx.check_dtype("X", FLOATS)
        ctx.expect(len(x.shape) == 2 and len(y.shape) == 2 and len(w.shape) == 3,
                   "X %r %s and Y %r %s must be 2-D and Weight %r %s 3-D"
                   % (x.name, list(x.shape), y.name, list(y.shape), w.name, list(w.shape)))
        ctx.expect(w.shape[1] == x.shape[1] and w.shape[2] == y.shape[1],
                   "Weight %r %s must be [K, %d, %d] for X %r %s and Y %r %s"
                   % (w.name, list(w.shape), x.shape[1], y.shape[1], x.name, list(x.shape),
                      y.name, list(y.shape)))
        ctx.set_output("Out", (x.shape[0], w.shape[0]), x.dtype)

    @staticmethod
    def forward(x, y, weight, bias):
        out = np.einsum("nm,kmp,np->nk", x, weight, y)
        return (out if bias is None else out + bias.reshape(1, -1)).astype(x.dtype)

    @staticmethod
    def backward(x, y, weight, bias, dout):
        dx = np.einsum("nk,kmp,np->nm", dout, weight, y)
        dy = np.einsum("nk,kmp,nm->np", dout, weight, x)
        dw = np.einsum("nk,nm,np->kmp", dout, x, y)
        db = None if bias is None else dout.sum(0).reshape(bias.shape)
        return dx, dy, dw, db

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 4), "Y": rand(rng, 3, 2), "Weight": rand(rng, 5, 4, 2),
                      "Bias": rand(rng, 1, 5)}, name="bias")
        yield Sample({"X": rand(rng, 2, 3), "Y": rand(rng, 2, 3), "Weight": rand(rng, 1, 3, 3)},
                     name="no_bias")
