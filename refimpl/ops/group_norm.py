"""group_norm: the channels of X [N, C, ...] (or [N, ..., C] with data_layout 'NHWC') split
into `groups` runs of C / groups; each (sample, group) is normalized by its own mean and
biased variance, then Scale[c] and Bias[c] apply per channel. Mean and Variance ([N,
groups]) keep the statistics, as Paddle saves them."""
import numpy as np

from ._common import FLOATS, channels_first, rand
from ._norm import check_channel_params, per_channel
from .registry import OpDef, Sample, register


def _grouped(x, groups):
    """x [N, C, ...] channels-first -> [N, groups, C / groups * prod(spatial)]."""
    return x.reshape(x.shape[0], groups, -1)


@register
class GroupNorm(OpDef):
    type = "group_norm"
    inputs = ("X", "Scale?", "Bias?")
    outputs = ("Y", "Mean", "Variance")
    attrs = {"epsilon": 1e-5, "groups": 1, "data_layout": "NCHW"}
    eager_double_attrs = ("epsilon",)            # a double in Paddle 3's eager group_norm
    pir_double_attrs = ("epsilon",)              # and in its PIR op
    grad_inputs = ("X", "Scale?", "Bias?", "Mean", "Variance", "Y@GRAD")
    fd_tolerance = (2e-3, 2e-4)

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        ctx.check_dtype("X", FLOATS)
        layout, groups = ctx.attr("data_layout"), ctx.attr("groups")
        ctx.expect(layout in ("NCHW", "NHWC"),
                   "data_layout must be 'NCHW' or 'NHWC', got %r" % (layout,))
        ctx.expect(len(x.shape) >= 2, "X %r must be [N, C, ...], got %s"
                   % (x.name, list(x.shape)))
        c = x.shape[1] if layout == "NCHW" else x.shape[-1]
        ctx.expect(groups >= 1, "groups must be positive, got %r" % (groups,))
        if c >= 0:
            ctx.expect(c % groups == 0, "X %r %s has %d channels, not divisible by groups=%d"
                       % (x.name, list(x.shape), c, groups))
        check_channel_params(ctx, x, c)
        ctx.same_as("X", "Y")
        ctx.set_output("Mean", [x.shape[0], groups], x.dtype)
        ctx.set_output("Variance", [x.shape[0], groups], x.dtype)

    @staticmethod
    def forward(x, scale, bias, epsilon=1e-5, groups=1, data_layout="NCHW"):
        xc = channels_first(x, data_layout)
        g = _grouped(xc, groups)
        mean, var = g.mean(axis=2), g.var(axis=2)
        normed = ((g - mean[..., None]) / np.sqrt(var[..., None] + epsilon)).reshape(xc.shape)
        y = normed * per_channel(scale, xc)
        if bias is not None:
            y = y + per_channel(bias, xc)
        y = np.moveaxis(y, 1, -1) if data_layout == "NHWC" else y
        return y.astype(x.dtype), mean.astype(x.dtype), var.astype(x.dtype)

    @staticmethod
    def backward(x, scale, bias, mean, var, dy, epsilon=1e-5, groups=1, data_layout="NCHW"):
        xc, dyc = channels_first(x, data_layout), channels_first(dy, data_layout)
        inv_std = 1 / np.sqrt(var[..., None] + epsilon)
        xhat = ((_grouped(xc, groups) - mean[..., None]) * inv_std).reshape(xc.shape)
        sum_axes = (0,) + tuple(range(2, xc.ndim))
        dscale = (dyc * xhat).sum(axis=sum_axes).reshape(scale.shape) \
            if scale is not None else None
        dbias = dyc.sum(axis=sum_axes).reshape(bias.shape) if bias is not None else None
        gy = _grouped(dyc * per_channel(scale, xc), groups)
        gxhat = _grouped(xhat, groups)
        dx = inv_std * (gy - gy.mean(axis=2, keepdims=True)
                        - gxhat * (gy * gxhat).mean(axis=2, keepdims=True))
        dx = dx.reshape(xc.shape)
        dx = np.moveaxis(dx, 1, -1) if data_layout == "NHWC" else dx
        return dx.astype(x.dtype), dscale, dbias

    def samples(self, rng):
        yield Sample({"X": rand(rng, 2, 4, 3, 2), "Scale": rand(rng, 4),
                      "Bias": rand(rng, 4)}, {"groups": 2}, name="affine_nchw")
        yield Sample({"X": rand(rng, 2, 3, 6), "Scale": rand(rng, 6)},
                     {"groups": 3, "epsilon": 1e-3, "data_layout": "NHWC"}, name="nhwc")
        yield Sample({"X": rand(rng, 3, 4)}, {"groups": 2}, name="plain_2d")
