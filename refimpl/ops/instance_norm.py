"""instance_norm: each (sample, channel) slice of X [N, C, ...] normalized by its own mean
and biased variance, then Scale[c] and Bias[c]. SavedMean and SavedVariance ([N C]) keep
the mean and the inverse standard deviation 1/sqrt(var + epsilon), as Paddle saves them."""
import numpy as np

from ._common import FLOATS, rand
from ._norm import check_channel_params, per_channel
from .registry import OpDef, Sample, register


@register
class InstanceNorm(OpDef):
    type = "instance_norm"
    inputs = ("X", "Scale?", "Bias?")
    outputs = ("Y", "SavedMean", "SavedVariance")
    attrs = {"epsilon": 1e-5}
    grad_inputs = ("X", "Scale?", "Bias?", "SavedMean", "SavedVariance", "Y@GRAD")
    fd_tolerance = (2e-3, 2e-4)

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        ctx.check_dtype("X", FLOATS)
        # [N, C] too (Paddle 1.8.5 and 3.3.1 take it: each value its own instance, Y = Bias)
        ctx.expect(len(x.shape) >= 2, "X %r must be [N, C, ...], got %s"
                   % (x.name, list(x.shape)))
        c = x.shape[1]
        check_channel_params(ctx, x, c)
        ctx.same_as("X", "Y")
        rows = x.shape[0] * c if x.shape[0] >= 0 and c >= 0 else -1
        ctx.set_output("SavedMean", [rows], x.dtype)
        ctx.set_output("SavedVariance", [rows], x.dtype)

    @staticmethod
    def forward(x, scale, bias, epsilon=1e-5):
        axes = tuple(range(2, x.ndim))
        mean = x.mean(axis=axes, keepdims=True)
        inv_std = 1 / np.sqrt(x.var(axis=axes, keepdims=True) + epsilon)
        y = (x - mean) * inv_std * per_channel(scale, x)
        if bias is not None:
            y = y + per_channel(bias, x)
        return y.astype(x.dtype), mean.reshape(-1).astype(x.dtype), \
            inv_std.reshape(-1).astype(x.dtype)

    @staticmethod
    def backward(x, scale, bias, mean, inv_std, dy, epsilon=1e-5):
        axes = tuple(range(2, x.ndim))
        shape = x.shape[:2] + (1,) * (x.ndim - 2)
        xhat = (x - mean.reshape(shape)) * inv_std.reshape(shape)
        dscale = (dy * xhat).sum(axis=(0,) + axes).reshape(scale.shape) \
            if scale is not None else None
        dbias = dy.sum(axis=(0,) + axes).reshape(bias.shape) if bias is not None else None
        g = dy * per_channel(scale, x)
        dx = inv_std.reshape(shape) * (g - g.mean(axis=axes, keepdims=True)
                                       - xhat * (g * xhat).mean(axis=axes, keepdims=True))
        return dx.astype(x.dtype), dscale, dbias

    def samples(self, rng):
        yield Sample({"X": rand(rng, 2, 3, 4, 3), "Scale": rand(rng, 3),
                      "Bias": rand(rng, 3)}, name="affine")
        yield Sample({"X": rand(rng, 2, 2, 5)}, {"epsilon": 1e-3}, name="plain_1d")
