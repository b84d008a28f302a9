# cython: language_level=3
"""batch_norm forward/backward over an [N, C, spatial] view (NCHW or 2-D [N, C]), per-channel
sums in double precision, GIL released: drop-ins for refimpl.ops.batch_norm. Channels are
independent: the kernels' team splits them into ranges (each channel's sums are one
thread's, so results do not depend on the split)."""
import numpy as np

from cython.parallel cimport prange
from refimpl._kernels.blas cimport Team, loop_team, release_team, cut
from refimpl._kernels.batch_norm_args import momentum_of, uses_running_stats

ctypedef fused real:
    float
    double


cdef void _stats(real[:, :, ::1] x, double[::1] mean, double[::1] var, Py_ssize_t c_lo,
                 Py_ssize_t c_hi) noexcept nogil:
    """Per-channel mean and biased variance in one pass: sums of d = x - K and d*d, K being
    the channel's first value (so no catastrophic cancellation), over four independent
    accumulators so the additions pipeline instead of waiting on one another."""
    cdef Py_ssize_t n, c, s, lane, N = x.shape[0], C = x.shape[1], S = x.shape[2]
    cdef double K, d, d_mean, count = N * S
    cdef double sums[4]
    cdef double squares[4]
    cdef real* row
    for c in range(c_lo, c_hi):
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
                     double[::1] inv_std, real[::1] scale, real[::1] bias, Py_ssize_t c_lo,
                     Py_ssize_t c_hi) noexcept nogil:
    cdef Py_ssize_t n, c, s
    cdef double a, b
    for c in range(c_lo, c_hi):
        a = inv_std[c] * scale[c]
        b = bias[c] - mean[c] * a
        for n in range(x.shape[0]):
            for s in range(x.shape[2]):
                y[n, c, s] = <real>(x[n, c, s] * a + b)


cdef void _backward(real[:, :, ::1] x, real[:, :, ::1] dy, real[:, :, ::1] dx,
                    real[::1] scale, real[::1] mean, real[::1] inv_std, double[::1] dscale,
                    double[::1] dbias, bint global_stats, Py_ssize_t c_lo,
                    Py_ssize_t c_hi) noexcept nogil:
    """Per channel: the sums of dy and dy * xhat (four accumulators, as in _stats), then
    dx from them in a second pass."""
    cdef Py_ssize_t n, c, s, lane, N = x.shape[0], S = x.shape[2]
    cdef double mc, ic, sd, sdx, a, b, k, count = N * S
    cdef double sums[4]
    cdef double products[4]
    cdef real* xr
    cdef real* dyr
    cdef real* dxr
    for c in range(c_lo, c_hi):
        mc, ic = mean[c], inv_std[c]
        for lane in range(4):
            sums[lane] = 0
            products[lane] = 0
        for n in range(N):
            xr, dyr = &x[n, c, 0], &dy[n, c, 0]
            s = 0
            while s + 4 <= S:
                for lane in range(4):
                    sums[lane] += dyr[s + lane]
                    products[lane] += dyr[s + lane] * (xr[s + lane] - mc)
                s += 4
            while s < S:
                sums[0] += dyr[s]
                products[0] += dyr[s] * (xr[s] - mc)
                s += 1
        sd = sums[0] + sums[1] + sums[2] + sums[3]
        sdx = (products[0] + products[1] + products[2] + products[3]) * ic
        dbias[c] = sd
        dscale[c] = sdx
        k = scale[c] * ic
        # dx = k / count * (count * dy - sd - xhat * sdx) = dy * k + (x - mc) * a + b
        a = -k / count * ic * sdx
        b = -k / count * sd - mc * a
        for n in range(N):
            xr, dyr, dxr = &x[n, c, 0], &dy[n, c, 0], &dx[n, c, 0]
            if global_stats:
                for s in range(S):
                    dxr[s] = <real>(dyr[s] * k)
            else:
                for s in range(S):
                    dxr[s] = <real>(dyr[s] * k + xr[s] * a + b)


# The loops above over channel ranges, split over the team (one range: no parallel region).

cdef _stats_split(real[:, :, ::1] x, double[::1] mean, double[::1] var):
    cdef Team team = loop_team(x.shape[0] * x.shape[1] * x.shape[2])
    cdef Py_ssize_t C = x.shape[1]
    cdef int p
    for p in prange(team.parts, nogil=True, num_threads=team.threads, schedule="static"):
        _stats(x, mean, var, cut(C, p, team.parts), cut(C, p + 1, team.parts))
    release_team()


cdef _normalize_split(real[:, :, ::1] x, real[:, :, ::1] y, double[::1] mean,
                      double[::1] inv_std, real[::1] scale, real[::1] bias):
    cdef Team team = loop_team(x.shape[0] * x.shape[1] * x.shape[2])
    cdef Py_ssize_t C = x.shape[1]
    cdef int p
    for p in prange(team.parts, nogil=True, num_threads=team.threads, schedule="static"):
        _normalize(x, y, mean, inv_std, scale, bias, cut(C, p, team.parts),
                   cut(C, p + 1, team.parts))
    release_team()


cdef _backward_split(real[:, :, ::1] x, real[:, :, ::1] dy, real[:, :, ::1] dx,
                     real[::1] scale, real[::1] mean, real[::1] inv_std, double[::1] dscale,
                     double[::1] dbias, bint global_stats):
    cdef Team team = loop_team(x.shape[0] * x.shape[1] * x.shape[2])
    cdef Py_ssize_t C = x.shape[1]
    cdef int p
    for p in prange(team.parts, nogil=True, num_threads=team.threads, schedule="static"):
        _backward(x, dy, dx, scale, mean, inv_std, dscale, dbias, global_stats,
                  cut(C, p, team.parts), cut(C, p + 1, team.parts))
    release_team()


def _view(a):
    return np.ascontiguousarray(a).reshape(a.shape[0], a.shape[1], -1)


def batch_norm_forward(x, scale, bias, mean, variance, momentum_tensor=None, momentum=0.9,
                       epsilon=1e-5, is_test=False, data_layout="NCHW",
                       use_global_stats=False, trainable_statistics=False,
                       use_momentum_tensor=True):
    momentum = momentum_of(momentum_tensor, momentum, use_momentum_tensor)
    x3 = _view(x)
    y = np.empty_like(x3)
    sc = np.ascontiguousarray(scale, x.dtype)
    bi = np.ascontiguousarray(bias, x.dtype)
    if uses_running_stats(is_test, use_global_stats, trainable_statistics):
        m = mean.astype(np.float64)
        inv = 1.0 / np.sqrt(variance.astype(np.float64) + epsilon)
        mean_out, var_out = mean, variance
        saved_mean = mean
    else:
        m = np.empty(x3.shape[1])
        v = np.empty(x3.shape[1])
        if x.dtype == np.float32:
            _stats_split[float](x3, m, v)
        else:
            _stats_split[double](x3, m, v)
        inv = 1.0 / np.sqrt(v + epsilon)
        mean_out = (mean * momentum + m * (1 - momentum)).astype(mean.dtype)
        var_out = (variance * momentum + v * (1 - momentum)).astype(variance.dtype)
        saved_mean = m.astype(x.dtype)
    if x.dtype == np.float32:
        _normalize_split[float](x3, y, m, inv, sc, bi)
    else:
        _normalize_split[double](x3, y, m, inv, sc, bi)
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
            bool(uses_running_stats(is_test, use_global_stats, trainable_statistics)))
    if x.dtype == np.float32:
        _backward_split[float](x3, dy3, dx, *args)
    else:
        _backward_split[double](x3, dy3, dx, *args)
    return dx.reshape(x.shape), dscale.astype(scale.dtype), dbias.astype(scale.dtype)
