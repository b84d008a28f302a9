"""sync_batch_norm: batch_norm whose training statistics cover every device's samples.

Forward: per-channel sum, sum of squares and count are all-reduced, giving the global mean
and (biased) variance. Backward: the per-channel sums of dY and dY*xhat that dX needs are
all-reduced too; Scale@GRAD and Bias@GRAD stay local contributions (the data-parallel
gradient allreduce adds them up, as for any parameter). The sums go through `group`, the
device's communicator group that the executor binds; with none (one device) it is
batch_norm.
"""
import numpy as np

from .batch_norm import BatchNorm, _bcast, channel_axes, input_grad, momentum_of, normalize_train
from .registry import register


def _global_sums(arrays, group):
    return group.allreduce(arrays) if group is not None else arrays


@register
class SyncBatchNorm(BatchNorm):
    type = "sync_batch_norm"

    def samples(self, rng):
        return []   # identical to batch_norm on one device; tested against it directly

    @staticmethod
    def forward(x, scale, bias, mean, variance, momentum_tensor=None, momentum=0.9,
                epsilon=1e-5, is_test=False, data_layout="NCHW", use_global_stats=False,
                trainable_statistics=False, group=None, use_momentum_tensor=None):
        if is_test or use_global_stats:
            return BatchNorm.forward(x, scale, bias, mean, variance, None, momentum, epsilon,
                                     True, data_layout)
        c, axes = channel_axes(x.ndim, data_layout)
        x64 = x.astype(np.float64)
        total, total_sq, count = _global_sums([x64.sum(axis=axes), (x64 * x64).sum(axis=axes),
                                               np.array([x.size // x.shape[c]], np.float64)],
                                              group)
        n = count[0]
        batch_mean = total / n
        batch_var = np.maximum(total_sq / n - batch_mean * batch_mean, 0.0)
        return normalize_train(x, scale, bias, mean, variance, batch_mean, batch_var,
                               momentum_of(momentum_tensor, momentum, use_momentum_tensor),
                               epsilon, c)

    @staticmethod
    def backward(x, scale, saved_mean, saved_inv_std, dy, momentum=0.9, epsilon=1e-5,
                 is_test=False, data_layout="NCHW", use_global_stats=False,
                 trainable_statistics=False, group=None):
        if is_test or use_global_stats:
            return BatchNorm.backward(x, scale, saved_mean, saved_inv_std, dy, momentum,
                                      epsilon, True, data_layout)
        c, axes = channel_axes(x.ndim, data_layout)
        xhat = (x - _bcast(saved_mean, x.ndim, c)) * _bcast(saved_inv_std, x.ndim, c)
        dbias = dy.sum(axis=axes)
        dscale = (dy * xhat).sum(axis=axes)
        g_bias, g_scale, count = _global_sums([dbias.astype(np.float64),
                                               dscale.astype(np.float64),
                                               np.array([x.size // x.shape[c]], np.float64)],
                                              group)
        dx = input_grad(x, scale, saved_mean, saved_inv_std, dy, c, g_bias, g_scale, count[0])
        return dx.astype(x.dtype), dscale.astype(scale.dtype), dbias.astype(scale.dtype)
