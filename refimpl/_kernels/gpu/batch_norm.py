"""batch_norm over NCHW (or [N, C]): the per-channel statistics by CuPy's reductions, then
one element-wise pass that normalizes, scales and shifts (forward) or forms dX (backward),
reading the per-channel values by the element's channel. Formulas as refimpl/ops/batch_norm.py."""
import cupy

from .source import elementwise

__all__ = ["batch_norm_forward", "batch_norm_backward"]

_CHANNEL = "long long ch = (i / inner) % channels;"
_NORMALIZE = elementwise(
    "T x, raw T mean, raw T gain, raw T bias, int64 inner, int64 channels", "T y",
    _CHANNEL + " y = (x - mean[ch]) * gain[ch] + bias[ch]", "refimpl_bn_normalize")
_INPUT_GRAD = elementwise(
    "T x, T dy, raw T mean, raw T inv_std, raw T coef, raw T sum_dy, raw T sum_dy_xhat, "
    "T n, int64 inner, int64 channels", "T dx",
    _CHANNEL + " T xhat = (x - mean[ch]) * inv_std[ch]; "
    "dx = coef[ch] * (n * dy - sum_dy[ch] - xhat * sum_dy_xhat[ch])", "refimpl_bn_input_grad")


def _layout(x):
    """(reduction axes, elements per channel block) for NCHW or [N, C]."""
    axes = (0,) + tuple(range(2, x.ndim))
    inner = 1
    for d in x.shape[2:]:
        inner *= d
    return axes, inner


def _uses_running_stats(is_test, use_global_stats, trainable_statistics):
    return use_global_stats or (is_test and not trainable_statistics)


def batch_norm_forward(x, scale, bias, mean, variance, momentum=0.9, epsilon=1e-5,
                       is_test=False, data_layout="NCHW", use_global_stats=False,
                       trainable_statistics=False):
    axes, inner = _layout(x)
    c = x.shape[1]
    x = cupy.ascontiguousarray(x)
    if _uses_running_stats(is_test, use_global_stats, trainable_statistics):
        inv_std = (1.0 / cupy.sqrt(variance + epsilon)).astype(x.dtype)
        y = _NORMALIZE(x, mean.astype(x.dtype), (inv_std * scale).astype(x.dtype),
                       bias.astype(x.dtype), inner, c)
        return y, mean, variance, mean, inv_std, None
    batch_mean = x.mean(axis=axes)
    batch_var = x.var(axis=axes)
    inv_std = 1.0 / cupy.sqrt(batch_var + epsilon)
    y = _NORMALIZE(x, batch_mean.astype(x.dtype), (inv_std * scale).astype(x.dtype),
                   bias.astype(x.dtype), inner, c)
    mean_out = (mean * momentum + batch_mean * (1 - momentum)).astype(mean.dtype)
    var_out = (variance * momentum + batch_var * (1 - momentum)).astype(variance.dtype)
    return y, mean_out, var_out, batch_mean.astype(x.dtype), inv_std.astype(x.dtype), None


def batch_norm_backward(x, scale, saved_mean, saved_inv_std, dy, momentum=0.9, epsilon=1e-5,
                        is_test=False, data_layout="NCHW", use_global_stats=False,
                        trainable_statistics=False):
    axes, inner = _layout(x)
    c = x.shape[1]
    n = x.size // c
    bshape = [-1 if i == 1 else 1 for i in range(x.ndim)]
    xhat = (x - saved_mean.reshape(bshape)) * saved_inv_std.reshape(bshape)
    dbias = dy.sum(axis=axes)
    dscale = (dy * xhat).sum(axis=axes)
    if _uses_running_stats(is_test, use_global_stats, trainable_statistics):
        dx = dy * (scale * saved_inv_std).reshape(bshape)
    else:
        coef = (scale * saved_inv_std / n).astype(x.dtype)
        dx = _INPUT_GRAD(cupy.ascontiguousarray(x), cupy.ascontiguousarray(dy),
                         saved_mean, saved_inv_std, coef, dbias, dscale, x.dtype.type(n),
                         inner, c)
    return dx.astype(x.dtype), dscale.astype(scale.dtype), dbias.astype(scale.dtype)
