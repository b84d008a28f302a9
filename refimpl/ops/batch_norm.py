"""batch_norm: normalize over every dim but the channel (NCHW: dim 1; NHWC / 2-D: last).

Training: batch mean and biased variance normalize X; the running stats update as
running = momentum * running + (1 - momentum) * batch (the batch variance used there is the
biased one, as Paddle's CPU kernel does). SavedMean / SavedVariance hold the batch mean and
the inverse std 1/sqrt(var + eps) for the backward. is_test (unless trainable_statistics)
or use_global_stats normalizes with the running stats and leaves them as they are.
MomentumTensor, a one-element float tensor, when given is the momentum (Paddle 1.8's
dispensable input, for a momentum computed in the program; Paddle 3.3.1's CPU kernel
ignores it: switch batch_norm_momentum_tensor).
"""
import numpy as np

from .. import versions
from ._common import FLOATS, rand
from .registry import OpDef, Sample, register, share_lod


def channel_axes(ndim, data_layout):
    """(channel axis, reduction axes)."""
    c = ndim - 1 if (data_layout == "NHWC" or ndim == 2) else 1
    return c, tuple(i for i in range(ndim) if i != c)


def uses_running_stats(is_test, use_global_stats, trainable_statistics):
    """Whether X is normalized with the running Mean/Variance instead of batch statistics."""
    return use_global_stats or (is_test and not trainable_statistics)


def uses_momentum_tensor():
    """Whether the profile's batch_norm reads MomentumTensor (switch
    batch_norm_momentum_tensor)."""
    return versions.switch("batch_norm_momentum_tensor") == "used"


def momentum_of(momentum_tensor, momentum, use_momentum_tensor=None):
    """The momentum: MomentumTensor's value when the op has one and it is used (the binder
    says so, BatchNorm.bound_attrs; None: the profile's rule), else the attr (a FLOAT: the
    binding gives it 32-bit, 1 - float32(0.9) = 0.100000024, registry.float32_attrs)."""
    if use_momentum_tensor is None:
        use_momentum_tensor = uses_momentum_tensor()
    if momentum_tensor is None or not use_momentum_tensor:
        return momentum
    return float(momentum_tensor.reshape(-1)[0])


def _bcast(v, ndim, c):
    return v.reshape([-1 if i == c else 1 for i in range(ndim)])


def inverse_std(variance, epsilon):
    """What SavedVariance holds: 1 / sqrt(variance + epsilon)."""
    return 1.0 / np.sqrt(variance + epsilon)


def normalize_train(x, scale, bias, mean, variance, batch_mean, batch_var, momentum,
                    epsilon, c):
    """Training outputs from the batch statistics (local, or global for sync_batch_norm)."""
    inv_std = inverse_std(batch_var, epsilon)
    y = (x - _bcast(batch_mean, x.ndim, c)) * _bcast(inv_std * scale, x.ndim, c) + \
        _bcast(bias, x.ndim, c)
    mean_out = (mean * momentum + batch_mean * (1 - momentum)).astype(mean.dtype)
    var_out = (variance * momentum + batch_var * (1 - momentum)).astype(variance.dtype)
    return (y.astype(x.dtype), mean_out, var_out, batch_mean.astype(x.dtype),
            inv_std.astype(x.dtype), None)


def input_grad(x, scale, saved_mean, saved_inv_std, dy, c, sum_dy, sum_dy_xhat, n):
    """dX of training-mode batch norm given the (local or global) per-channel sums."""
    xhat = (x - _bcast(saved_mean, x.ndim, c)) * _bcast(saved_inv_std, x.ndim, c)
    return _bcast(scale * saved_inv_std / n, x.ndim, c) * (
        n * dy - _bcast(sum_dy, x.ndim, c) - xhat * _bcast(sum_dy_xhat, x.ndim, c))


@register
class BatchNorm(OpDef):
    type = "batch_norm"
    lod_outputs = {"Y": share_lod("X")}
    inputs = ("X", "Scale", "Bias", "Mean", "Variance", "MomentumTensor?")
    # ReserveSpace: cuDNN's workspace, never written here; accepted because Paddle >= 2.0
    # programs pass it (and Paddle 3.x's CPU kernel fails without it in training)
    outputs = ("Y", "MeanOut", "VarianceOut", "SavedMean", "SavedVariance", "ReserveSpace?")
    attrs = {"momentum": 0.9, "epsilon": 1e-5, "is_test": False, "data_layout": "NCHW",
             "use_global_stats": False, "trainable_statistics": False}
    # MKL-DNN's: Paddle 1.8.5's CPU kernel keeps negative outputs with fuse_with_relu
    # when use_mkldnn is false (measured)
    float_attrs = ("momentum", "epsilon")   # BatchNormOpMaker's, sync_batch_norm's too
    mkldnn_attrs = {"use_mkldnn": False, "fuse_with_relu": False}
    no_grad = ("Mean", "Variance", "MomentumTensor")
    grad_inputs = ("X", "Scale", "SavedMean", "SavedVariance", "Y@GRAD")
    fd_tolerance = (2e-3, 2e-4)

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        ctx.check_dtype("X", FLOATS)
        c, _ = channel_axes(len(x.shape), ctx.attr("data_layout"))
        for slot in ("Scale", "Bias", "Mean", "Variance"):
            v = ctx.input_var(slot)
            if x.shape[c] >= 0 and tuple(v.shape) != (x.shape[c],):
                ctx.fail("%s %r has shape %s, expected [%d] (channels of X %r %s)"
                         % (slot, v.name, list(v.shape), x.shape[c], x.name, list(x.shape)))
        if ctx.has_input("MomentumTensor"):
            ctx.check_dtype("MomentumTensor", FLOATS)
            m = ctx.input_var("MomentumTensor")
            if all(d >= 0 for d in m.shape) and int(np.prod(m.shape)) != 1:
                ctx.fail("MomentumTensor %r has shape %s, expected one element"
                         % (m.name, list(m.shape)))
        ctx.same_as("X", "Y")
        for slot, src in (("MeanOut", "Mean"), ("VarianceOut", "Variance"),
                          ("SavedMean", "Mean"), ("SavedVariance", "Variance")):
            ctx.same_as(src, slot)
        if ctx.has_output("ReserveSpace"):
            ctx.set_output("ReserveSpace", (-1,), x.dtype)    # declared, never written

    def bound_attrs(self, op):
        # the profile's rule, fixed when the op is bound: the kernels read no profile
        return {"use_momentum_tensor": uses_momentum_tensor()}

    @staticmethod
    def forward(x, scale, bias, mean, variance, momentum_tensor=None, momentum=0.9,
                epsilon=1e-5, is_test=False, data_layout="NCHW", use_global_stats=False,
                trainable_statistics=False, use_momentum_tensor=None):
        c, axes = channel_axes(x.ndim, data_layout)
        if uses_running_stats(is_test, use_global_stats, trainable_statistics):
            inv_std = inverse_std(variance, epsilon)
            y = (x - _bcast(mean, x.ndim, c)) * _bcast(inv_std * scale, x.ndim, c) + \
                _bcast(bias, x.ndim, c)
            return y.astype(x.dtype), mean, variance, mean, inv_std.astype(x.dtype), None
        return normalize_train(x, scale, bias, mean, variance, x.mean(axis=axes),
                               x.var(axis=axes), momentum_of(momentum_tensor, momentum,
                                                          use_momentum_tensor),
                               epsilon, c)

    @staticmethod
    def backward(x, scale, saved_mean, saved_inv_std, dy, momentum=0.9, epsilon=1e-5,
                 is_test=False, data_layout="NCHW", use_global_stats=False,
                 trainable_statistics=False):
        c, axes = channel_axes(x.ndim, data_layout)
        n = x.size // x.shape[c]
        xhat = (x - _bcast(saved_mean, x.ndim, c)) * _bcast(saved_inv_std, x.ndim, c)
        dbias = dy.sum(axis=axes)
        dscale = (dy * xhat).sum(axis=axes)
        if uses_running_stats(is_test, use_global_stats, trainable_statistics):
            dx = dy * _bcast(scale * saved_inv_std, x.ndim, c)
        else:
            dx = input_grad(x, scale, saved_mean, saved_inv_std, dy, c, dbias, dscale, n)
        return dx.astype(x.dtype), dscale.astype(scale.dtype), dbias.astype(scale.dtype)

    def saved_outputs(self, ins, saved, attrs):
        """SavedMean and SavedVariance (the inverse std) as functions of X: the batch's
        statistics in training; the running statistics, constants, otherwise."""
        attrs = dict(self.attrs, **attrs)
        if uses_running_stats(attrs["is_test"], attrs["use_global_stats"],
                              attrs["trainable_statistics"]):
            return saved
        x = ins["X"]
        _, axes = channel_axes(x.ndim, attrs["data_layout"])
        return {"SavedMean": x.mean(axis=axes),
                "SavedVariance": inverse_std(x.var(axis=axes), attrs["epsilon"])}

    def samples(self, rng):
        for shape, layout in (((4, 3, 2, 2), "NCHW"), ((6, 3), "NCHW"), ((2, 2, 2, 3), "NHWC")):
            c = shape[1] if layout == "NCHW" else shape[-1]
            yield Sample({"X": rand(rng, *shape), "Scale": rng.uniform(0.5, 1.5, c),
                          "Bias": rand(rng, c), "Mean": rand(rng, c),
                          "Variance": rng.uniform(0.5, 1.5, c)}, {"data_layout": layout})
        for attrs in ({"is_test": True}, {"is_test": True, "trainable_statistics": True},
                      {"use_global_stats": True}):
            yield Sample({"X": rand(rng, 4, 3, 2), "Scale": rng.uniform(0.5, 1.5, 3),
                          "Bias": rand(rng, 3), "Mean": rand(rng, 3),
                          "Variance": rng.uniform(0.5, 1.5, 3)}, attrs)
        yield Sample({"X": rand(rng, 4, 3, 2), "Scale": rng.uniform(0.5, 1.5, 3),
                      "Bias": rand(rng, 3), "Mean": rand(rng, 3),
                      "Variance": rng.uniform(0.5, 1.5, 3),
                      "MomentumTensor": np.array([0.5])}, {"momentum": 0.9},
                     name="momentum_tensor")
