# cython: language_level=3
"""batch_norm forward/backward over an [N, C, spatial] view (NCHW or 2-D [N, C]), per-channel
sums in double precision, GIL released: drop-ins for refimpl.ops.batch_norm."""
import numpy as np
from libc.math cimport sqrt

ctypedef fused real:
    float
    double


cdef void _stats(real[:, :, ::1] x, double[::1] mean, double[::1] var) noexcept nogil:
    """Per-channel mean and biased variance in one pass: sums of d = x - K and d*d, K being
    the channel's first value (so no catastrophic cancellation), over four independent
    accumulators so the additions pipeline instead of waiting on one another."""
    cdef Py_ssize_t n, c, s, lane, N = x.shape[0], C = x.shape[1], S = x.shape[2]
    cdef double K, d, d_mean, count = N * S
    cdef double sums[4]
    cdef double squares[4]
    cdef real* row
    for c in range(C):
        K = x[0, c, 0]
        for lane in range(4):
            sums[lane] = 0
            squares[lane] = 0
        for n in range(N):
            row = &x[n, c, 0]
            s = 0
            while s + 4 <= S:
                for lane in range(4):
                    d = row[s + lane] - K
                    sums[lane] += d
                    squares[lane] += d * d
                s += 4
            while s < S:
                d = row[s] - K
                sums[0] += d
                squares[0] += d * d
                s += 1
        d_mean = (sums[0] + sums[1] + sums[2] + sums[3]) / count
        mean[c] = K + d_mean
        var[c] = max((squares[0] + squares[1] + squares[2] + squares[3]) / count
                     - d_mean * d_mean, 0.0)


cdef void _normalize(real[:, :, ::1] x, real[:, :, ::1] y, double[::1] mean,
                     double[::1] inv_std, real[::1] scale, real[::1] bias) noexcept nogil:
    cdef Py_ssize_t n, c, s
    cdef double a, b
    for c in range(x.shape[1]):
        a = inv_std[c] * scale[c]
        b = bias[c] - mean[c] * a
        for n in range(x.shape[0]):
            for s in range(x.shape[2]):
                y[n, c, s] = <real>(x[n, c, s] * a + b)


cdef void _backward(real[:, :, ::1] x, real[:, :, ::1] dy, real[:, :, ::1] dx,
                    real[::1] scale, real[::1] mean, real[::1] inv_std, double[::1] dscale,
                    double[::1] dbias, bint global_stats) noexcept nogil:
    cdef Py_ssize_t n, c, s, N = x.shape[0], C = x.shape[1], S = x.shape[2]
    cdef double sd, sdx, xhat, k, count = N * S
    for c in range(C):
        sd = 0
        sdx = 0
        for n in range(N):
            for s in range(S):
                xhat = (x[n, c, s] - mean[c]) * inv_std[c]
                sd = sd + dy[n, c, s]
                sdx = sdx + dy[n, c, s] * xhat
        dbias[c] = sd
        dscale[c] = sdx
        k = scale[c] * inv_std[c]
        for n in range(N):
            for s in range(S):
                if global_stats:
                    dx[n, c, s] = <real>(dy[n, c, s] * k)
                else:
                    xhat = (x[n, c, s] - mean[c]) * inv_std[c]
                    dx[n, c, s] = <real>(k / count * (count * dy[n, c, s] - sd - xhat * sdx))


def _uses_running_stats(is_test, use_global_stats, trainable_statistics):
    # the rule of refimpl.ops.batch_norm.uses_running_stats (kernels do not import ops)
    return use_global_stats or (is_test and not trainable_statistics)


def _view(a):
    return np.ascontiguousarray(a).reshape(a.shape[0], a.shape[1], -1)


def batch_norm_forward(x, scale, bias, mean, variance, momentum=0.9, epsilon=1e-5,
                       is_test=False, data_layout="NCHW", use_global_stats=False,
                       trainable_statistics=False):
    x3 = _view(x)
    y = np.empty_like(x3)
    sc = np.ascontiguousarray(scale, x.dtype)
    bi = np.ascontiguousarray(bias, x.dtype)
    if _uses_running_stats(is_test, use_global_stats, trainable_statistics):
        m = mean.astype(np.float64)
        inv = 1.0 / np.sqrt(variance.astype(np.float64) + epsilon)
        mean_out, var_out = mean, variance
        saved_mean = mean
    else:
        m = np.empty(x3.shape[1])
        v = np.empty(x3.shape[1])
        if x.dtype == np.float32:
            _stats[float](x3, m, v)
        else:
            _stats[double](x3, m, v)
        inv = 1.0 / np.sqrt(v + epsilon)
        mean_out = (mean * momentum + m * (1 - momentum)).astype(mean.dtype)
        var_out = (variance * momentum + v * (1 - momentum)).astype(variance.dtype)
        saved_mean = m.astype(x.dtype)
    if x.dtype == np.float32:
        _normalize[float](x3, y, m, inv, sc, bi)
    else:
        _normalize[double](x3, y, m, inv, sc, bi)
    return y.reshape(x.shape), mean_out, var_out, saved_mean, inv.astype(x.dtype), None


def batch_norm_backward(x, scale, saved_mean, saved_inv_std, dy, momentum=0.9, epsilon=1e-5,
                        is_test=False, data_layout="NCHW", use_global_stats=False,
                        trainable_statistics=False):
    x3 = _view(x)
    dy3 = _view(dy.astype(x.dtype, copy=False))
    dx = np.empty_like(x3)
    c = x3.shape[1]
    dscale = np.empty(c)
    dbias = np.empty(c)
    args = (np.ascontiguousarray(scale, x.dtype), np.ascontiguousarray(saved_mean, x.dtype),
            np.ascontiguousarray(saved_inv_std, x.dtype), dscale, dbias,
            bool(_uses_running_stats(is_test, use_global_stats, trainable_statistics)))
    if x.dtype == np.float32:
        _backward[float](x3, dy3, dx, *args)
    else:
        _backward[double](x3, dy3, dx, *args)
    return dx.reshape(x.shape), dscale.astype(scale.dtype), dbias.astype(scale.dtype)
