# cython: language_level=3
"""layer_norm forward/backward over X as [rows, n] (GIL released): drop-ins for
refimpl.ops.layer_norm, where the reference makes about ten numpy passes over X each way.
Each row is normalized while it stays in cache (mean and variance in double, then y); the
backward's row sums likewise. float32 rows run vectorized (layer_norm_rows.h). Rows are
split over the kernels' team; the column sums of the backward (dScale, dBias) are summed
per part in double, then over the parts, whose number is fixed by the size (so results do
not depend on the load). Without Scale (Bias) the kernels use ones (zeros)."""
import numpy as np
from cython.parallel cimport prange
from libc.math cimport sqrt
from refimpl._kernels.blas cimport Team, loop_team, release_team, cut

cdef extern from "layer_norm_rows.h":
    void refimpl_row_moments_f(const float *x, Py_ssize_t n, double *mean,
                               double *var) noexcept nogil
    void refimpl_row_normalize_f(const float *x, const float *scale, const float *bias,
                                 float *y, Py_ssize_t n, float mean, float inv_std) noexcept nogil
    void refimpl_row_grad_f(const float *x, const float *scale, const float *dy, float *dx,
                            double *dscale, double *dbias, Py_ssize_t n, float mean,
                            float inv_std) noexcept nogil

ctypedef fused real:
    float
    double


cdef void _forward_rows(const real[:, ::1] x, const real* scale, const real* bias,
                        real[:, ::1] y, real[::1] mean, real[::1] var, double epsilon,
                        Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    cdef Py_ssize_t r, j, n = x.shape[1]
    cdef double m, v, d, a
    for r in range(lo, hi):
        if real is float:
            refimpl_row_moments_f(&x[r, 0], n, &m, &v)
        else:
            m = 0
            for j in range(n):
                m += x[r, j]
            m /= n
            v = 0
            for j in range(n):
                d = x[r, j] - m
                v += d * d
            v /= n
        mean[r], var[r] = <real>m, <real>v
        a = 1.0 / sqrt(v + epsilon)
        if real is float:
            refimpl_row_normalize_f(&x[r, 0], scale, bias, &y[r, 0], n, <float>m, <float>a)
        else:
            for j in range(n):
                y[r, j] = (x[r, j] - m) * a * scale[j] + bias[j]


cdef void _backward_rows(const real[:, ::1] x, const real* scale, const real[::1] mean,
                         const real[::1] var, const real[:, ::1] dy, real[:, ::1] dx,
                         double* dscale, double* dbias, double epsilon, Py_ssize_t lo,
                         Py_ssize_t hi) noexcept nogil:
    """dx for rows [lo, hi); adds this part's column sums of dy * xhat and dy into dscale,
    dbias."""
    cdef Py_ssize_t r, j, n = x.shape[1]
    cdef double m, inv, xhat, g, sum_g, sum_gx
    for r in range(lo, hi):
        m = mean[r]
        inv = 1.0 / sqrt(<double>var[r] + epsilon)
        if real is float:
            refimpl_row_grad_f(&x[r, 0], scale, &dy[r, 0], &dx[r, 0], dscale, dbias, n,
                               <float>m, <float>inv)
        else:
            sum_g = 0
            sum_gx = 0
            for j in range(n):
                xhat = (x[r, j] - m) * inv
                g = dy[r, j] * scale[j]
                sum_g += g
                sum_gx += g * xhat
                dscale[j] += dy[r, j] * xhat
                dbias[j] += dy[r, j]
            for j in range(n):
                xhat = (x[r, j] - m) * inv
                dx[r, j] = inv / n * (n * dy[r, j] * scale[j] - sum_g - xhat * sum_gx)


def _rows(a, begin_norm_axis):
    left = 1
    for d in a.shape[:begin_norm_axis]:
        left *= d
    return np.ascontiguousarray(a).reshape(left, -1)


def _vector(v, n, dtype, fill):
    """Scale or Bias as a contiguous [n] array; absent: n copies of fill."""
    return np.full(n, fill, dtype) if v is None else np.ascontiguousarray(v, dtype).reshape(n)


def layer_norm_forward(x, scale, bias, epsilon=1e-5, begin_norm_axis=1):
    rows = _rows(x, begin_norm_axis)
    y = np.empty_like(rows)
    mean = np.empty(rows.shape[0], x.dtype)
    var = np.empty(rows.shape[0], x.dtype)
    n = rows.shape[1]
    s, b = _vector(scale, n, x.dtype, 1), _vector(bias, n, x.dtype, 0)
    if x.dtype == np.float32:
        _forward_split[float](rows, s, b, y, mean, var, epsilon)
    else:
        _forward_split[double](rows, s, b, y, mean, var, epsilon)
    return y.reshape(x.shape), mean, var


def layer_norm_backward(x, scale, bias, mean, var, dy, epsilon=1e-5, begin_norm_axis=1):
    rows = _rows(x, begin_norm_axis)
    d = np.ascontiguousarray(dy, x.dtype).reshape(rows.shape)
    m = np.ascontiguousarray(mean, x.dtype).reshape(-1)
    v = np.ascontiguousarray(var, x.dtype).reshape(-1)
    if m.shape[0] != rows.shape[0] or v.shape[0] != rows.shape[0]:
        raise ValueError("layer_norm_grad: Mean and Variance need %d entries (one per row), "
                         "got %d and %d" % (rows.shape[0], m.shape[0], v.shape[0]))
    dx = np.empty_like(rows)
    n = rows.shape[1]
    s = _vector(scale, n, x.dtype, 1)
    if x.dtype == np.float32:
        sums = _backward_split[float](rows, s, m, v, d, dx, epsilon)
    else:
        sums = _backward_split[double](rows, s, m, v, d, dx, epsilon)
    dscale = sums[0].sum(0).astype(scale.dtype).reshape(scale.shape) \
        if scale is not None else None
    dbias = sums[1].sum(0).astype(bias.dtype).reshape(bias.shape) if bias is not None else None
    return dx.reshape(x.shape), dscale, dbias


cdef const real* _pointer(real[::1] v) noexcept:
    return &v[0] if v.shape[0] > 0 else NULL


cdef _forward_split(const real[:, ::1] x, real[::1] scale, real[::1] bias, real[:, ::1] y,
                    real[::1] mean, real[::1] var, double epsilon):
    cdef const real* s = _pointer(scale)
    cdef const real* b = _pointer(bias)
    cdef Team team = loop_team(x.shape[0] * x.shape[1])
    cdef Py_ssize_t rows = x.shape[0]
    cdef int p
    for p in prange(team.parts, nogil=True, num_threads=team.threads, schedule="static"):
        _forward_rows(x, s, b, y, mean, var, epsilon, cut(rows, p, team.parts),
                      cut(rows, p + 1, team.parts))
    release_team()


cdef _backward_split(const real[:, ::1] x, real[::1] scale, const real[::1] mean,
                     const real[::1] var, const real[:, ::1] dy, real[:, ::1] dx,
                     double epsilon):
    """Fills dx; returns the column sums [2 (dScale's, dBias's), parts, n]."""
    cdef const real* s = _pointer(scale)
    cdef Py_ssize_t rows = x.shape[0]
    cdef int p
    cdef Team team = loop_team(x.shape[0] * x.shape[1])
    try:
        result = np.zeros((2, team.parts, x.shape[1]))
    except MemoryError:
        release_team()
        raise
    cdef double[:, :, ::1] sums = result
    for p in prange(team.parts, nogil=True, num_threads=team.threads, schedule="static"):
        _backward_rows(x, s, mean, var, dy, dx,
                       &sums[0, p, 0] if sums.shape[2] > 0 else NULL,
                       &sums[1, p, 0] if sums.shape[2] > 0 else NULL,
                       epsilon, cut(rows, p, team.parts), cut(rows, p + 1, team.parts))
    release_team()
    return result
