"""layer_norm: normalize each row of X flattened to [prod(dims[:begin_norm_axis]), rest]
with its mean and biased variance, then Scale/Bias (of the row's size). Mean and Variance
are [rows], the variance being the plain one (not an inverse std as batch_norm saves)."""
import numpy as np

from ._common import FLOATS, numel, rand
from .registry import OpDef, Sample, register, share_lod


@register
class LayerNorm(OpDef):
    type = "layer_norm"
    lod_outputs = {"Y": share_lod("X")}
    inputs = ("X", "Scale?", "Bias?")
    outputs = ("Y", "Mean", "Variance")
    attrs = {"epsilon": 1e-5, "begin_norm_axis": 1}
    grad_inputs = ("X", "Scale?", "Bias?", "Mean", "Variance", "Y@GRAD")
    fd_tolerance = (2e-3, 2e-4)

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        ctx.check_dtype("X", FLOATS)
        a = ctx.attr("begin_norm_axis")
        ctx.expect(0 < a < len(x.shape), "begin_norm_axis=%d must be in [1, %d) for X %r %s"
                   % (a, len(x.shape), x.name, list(x.shape)))
        left = numel(x.shape[:a]) if all(d >= 0 for d in x.shape[:a]) else -1
        right = numel(x.shape[a:]) if all(d >= 0 for d in x.shape[a:]) else -1
        for slot in ("Scale", "Bias"):
            v = ctx.input_var(slot)
            if v is not None and right >= 0:
                ctx.expect(numel(v.shape) == right,
                           "%s %r has %d elements, expected %d (X %r %s from begin_norm_axis "
                           "%d on)" % (slot, v.name, numel(v.shape), right, x.name,
                                       list(x.shape), a))
        ctx.same_as("X", "Y")
        ctx.set_output("Mean", [left], x.dtype)
        ctx.set_output("Variance", [left], x.dtype)

    @staticmethod
    def forward(x, scale, bias, epsilon=1e-5, begin_norm_axis=1):
        rows = x.reshape(numel(x.shape[:begin_norm_axis]), -1)
        mean = rows.mean(axis=1)
        var = rows.var(axis=1)
        y = (rows - mean[:, None]) / np.sqrt(var[:, None] + epsilon)
        if scale is not None:
            y = y * scale.reshape(1, -1)
        if bias is not None:
            y = y + bias.reshape(1, -1)
        return y.reshape(x.shape).astype(x.dtype), mean.astype(x.dtype), var.astype(x.dtype)

    @staticmethod
    def backward(x, scale, bias, mean, var, dy, epsilon=1e-5, begin_norm_axis=1):
        rows = x.reshape(mean.shape[0], -1)
        d = dy.reshape(rows.shape)
        inv = 1 / np.sqrt(var[:, None] + epsilon)
        xhat = (rows - mean[:, None]) * inv
        dscale = (d * xhat).sum(0).reshape(scale.shape) if scale is not None else None
        dbias = d.sum(0).reshape(bias.shape) if bias is not None else None
        g = d * scale.reshape(1, -1) if scale is not None else d
        n = rows.shape[1]
        dx = inv / n * (n * g - g.sum(1, keepdims=True) - xhat * (g * xhat).sum(1, keepdims=True))
        return dx.reshape(x.shape).astype(x.dtype), dscale, dbias

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 2, 4), "Scale": rng.uniform(0.5, 1.5, 8),
                      "Bias": rand(rng, 8)}, {"begin_norm_axis": 1})
        yield Sample({"X": rand(rng, 3, 5), "Scale": rng.uniform(0.5, 1.5, 5)})
