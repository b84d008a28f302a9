"""sync_batch_norm: batch_norm whose training statistics cover every device's samples.

Forward: per-channel sum, sum of squares and count are all-reduced, giving the global mean
and (biased) variance. Backward: the per-channel sums of dY and dY*xhat that dX needs are
all-reduced too; Scale@GRAD and Bias@GRAD stay local contributions (the data-parallel
gradient allreduce adds them up, as for any parameter). With one device it is batch_norm.
"""
import numpy as np

from ..parallel import context
from .batch_norm import BatchNorm, _bcast, channel_axes
from .registry import register


def _global_sums(arrays):
    ctx = context.current()
    if ctx is None:
        return arrays
    return ctx.communicator.allreduce(ctx.local_rank, arrays)


@register
class SyncBatchNorm(BatchNorm):
    type = "sync_batch_norm"
    kernels = {}

    def samples(self, rng):
        return []   # identical to batch_norm on one device; tested against it directly

    @staticmethod
    def forward(x, scale, bias, mean, variance, momentum=0.9, epsilon=1e-5, is_test=False,
                data_layout="NCHW", use_global_stats=False, trainable_statistics=False):
        if is_test or use_global_stats:
            return BatchNorm.forward(x, scale, bias, mean, variance, momentum, epsilon, True,
                                     data_layout)
        c, axes = channel_axes(x.ndim, data_layout)
        x64 = x.astype(np.float64)
        total, total_sq, count = _global_sums([x64.sum(axis=axes), (x64 * x64).sum(axis=axes),
                                               np.array([x.size // x.shape[c]], np.float64)])
        n = count[0]
        batch_mean = total / n
        batch_var = np.maximum(total_sq / n - batch_mean * batch_mean, 0.0)
        inv_std = 1.0 / np.sqrt(batch_var + epsilon)
        y = (x - _bcast(batch_mean, x.ndim, c)) * _bcast(inv_std * scale, x.ndim, c) + \
            _bcast(bias, x.ndim, c)
        mean_out = (mean * momentum + batch_mean * (1 - momentum)).astype(mean.dtype)
        var_out = (variance * momentum + batch_var * (1 - momentum)).astype(variance.dtype)
        return (y.astype(x.dtype), mean_out, var_out, batch_mean.astype(x.dtype),
                inv_std.astype(x.dtype))

    @staticmethod
    def backward(x, scale, saved_mean, saved_inv_std, dy, momentum=0.9, epsilon=1e-5,
                 is_test=False, data_layout="NCHW", use_global_stats=False,
                 trainable_statistics=False):
        if is_test or use_global_stats:
            return BatchNorm.backward(x, scale, saved_mean, saved_inv_std, dy, momentum,
                                      epsilon, True, data_layout)
        c, axes = channel_axes(x.ndim, data_layout)
        xhat = (x - _bcast(saved_mean, x.ndim, c)) * _bcast(saved_inv_std, x.ndim, c)
        dbias = dy.sum(axis=axes)
        dscale = (dy * xhat).sum(axis=axes)
        g_bias, g_scale, count = _global_sums([dbias.astype(np.float64),
                                               dscale.astype(np.float64),
                                               np.array([x.size // x.shape[c]], np.float64)])
        n = count[0]
        dx = _bcast(scale * saved_inv_std / n, x.ndim, c) * (
            n * dy - _bcast(g_bias, x.ndim, c) - xhat * _bcast(g_scale, x.ndim, c))
        return dx.astype(x.dtype), dscale.astype(scale.dtype), dbias.astype(scale.dtype)
