# cython: language_level=3
"""softmax over the last axis, float32 (GIL released): drop-ins for refimpl.ops.softmax.
Forward one row at a time: row max, exp of the shifted row and its sum in one vectorized
pass (fast_exp.h, as softmax_with_cross_entropy's), the row scaled by 1 / sum; backward
one pass for the row's dot(dout, out) and one for dx. Rows are split over the kernels'
team. Other axes and dtypes run the reference (`fallback`). The reference's numpy passes
(max, subtract, exp, sum, divide) ran serially: attention's [16, 4, 64, 64] scores cost
1.5 ms forward and 0.7 backward on one thread (issue 21)."""
import numpy as np
from cython.parallel cimport prange
from refimpl._kernels.blas cimport Team, loop_team, release_team, cut

from refimpl._kernels.softmax_rows cimport (refimpl_exp_shifted_sum_f, refimpl_max_f,
                                            refimpl_scale_f)

cdef extern from "softmax_rows.h":
    void refimpl_softmax_grad_row_f(const float *out, const float *dout, float *dx,
                                    Py_ssize_t n) noexcept nogil


cdef bint _last_axis_f32(x, axis):
    return type(x) is np.ndarray and x.dtype == np.float32 and x.size > 0 and \
        (axis == -1 or axis == x.ndim - 1)


cdef void _forward_rows(const float[:, ::1] x, float[:, ::1] out, Py_ssize_t lo,
                        Py_ssize_t hi) noexcept nogil:
    cdef Py_ssize_t i, k = x.shape[1]
    cdef float m
    for i in range(lo, hi):
        m = refimpl_max_f(&x[i, 0], k)
        refimpl_scale_f(&out[i, 0],
                        <float>(1.0 / refimpl_exp_shifted_sum_f(&x[i, 0], &out[i, 0], m, k)), k)


cdef void _backward_rows(const float[:, ::1] out, const float[:, ::1] dout, float[:, ::1] dx,
                         Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(lo, hi):
        refimpl_softmax_grad_row_f(&out[i, 0], &dout[i, 0], &dx[i, 0], out.shape[1])


def _rows(a):
    # a.shape[a.ndim - 1], not [-1]: this module compiles with wraparound off
    return np.ascontiguousarray(a).reshape(-1, a.shape[a.ndim - 1])


def softmax_forward(fallback):
    def forward(x, axis=-1):
        if not _last_axis_f32(x, axis):
            return fallback(x, axis)
        rows = _rows(x)
        out = np.empty(rows.shape, np.float32)
        _forward_split(rows, out)
        return out.reshape(x.shape)
    return forward


def softmax_backward(fallback):
    def backward(out, dout, axis=-1):
        if not (_last_axis_f32(out, axis) and type(dout) is np.ndarray
                and dout.dtype == np.float32):
            return fallback(out, dout, axis)
        o, d = _rows(out), _rows(dout)
        dx = np.empty(o.shape, np.float32)
        _backward_split(o, d, dx)
        return dx.reshape(out.shape)
    return backward


cdef _forward_split(const float[:, ::1] x, float[:, ::1] out):
    cdef Team team = loop_team(x.shape[0] * x.shape[1])
    cdef Py_ssize_t rows = x.shape[0]
    cdef int p
    for p in prange(team.parts, nogil=True, num_threads=team.threads, schedule="static"):
        _forward_rows(x, out, cut(rows, p, team.parts), cut(rows, p + 1, team.parts))
    release_team()


cdef _backward_split(const float[:, ::1] out, const float[:, ::1] dout, float[:, ::1] dx):
    cdef Team team = loop_team(out.shape[0] * out.shape[1])
    cdef Py_ssize_t rows = out.shape[0]
    cdef int p
    for p in prange(team.parts, nogil=True, num_threads=team.threads, schedule="static"):
        _backward_rows(out, dout, dx, cut(rows, p, team.parts), cut(rows, p + 1, team.parts))
    release_team()
