# cython: language_level=3
"""elementwise_add of a bias-shaped Y (Y's dims equal a run of X's dims: the conv bias on
NCHW's channels, the fc bias on the last axis), forward and Y's gradient in single passes
with the GIL released. Drop-ins for refimpl.ops.elementwise's elementwise_add; any other
broadcast runs the numpy reference.

X is viewed as [pre, n, post] with Y of n values: out[p, j, q] = x[p, j, q] + y[j], and
dY[j] = the sum of dOut[p, j, q] over p and q, accumulated in double (numpy sums the
float32 values pairwise; both stay within the op's tolerances). Large arrays are split over
the kernels' thread team along p; for dY each part sums its own rows, and the parts' sums
are added in a fixed order."""
import math

import numpy as np
from cython.parallel cimport prange
from refimpl._kernels.blas cimport Team, loop_team, release_team, cut

from refimpl._kernels.out_variants import elementwise_out, fresh
from refimpl.broadcasting import unbroadcast

ctypedef fused real:
    float
    double


cdef void _add(const real[:, :, ::1] x, const real[::1] y, real[:, :, ::1] out) noexcept nogil:
    cdef Py_ssize_t p, j, q, n = x.shape[1], post = x.shape[2]
    cdef const real* src
    cdef real* dst
    cdef real v
    for p in range(x.shape[0]):
        if post == 1:   # the fc bias: one vectorized row add
            src = &x[p, 0, 0]
            dst = &out[p, 0, 0]
            for j in range(n):
                dst[j] = src[j] + y[j]
            continue
        for j in range(n):
            v = y[j]
            src = &x[p, j, 0]
            dst = &out[p, j, 0]
            for q in range(post):
                dst[q] = src[q] + v


cdef void _sum_to_bias(const real[:, :, ::1] g, double* acc) noexcept nogil:
    """acc[j] += the sum over p, q of g[p, j, q]."""
    cdef Py_ssize_t p, j, q, n = g.shape[1], post = g.shape[2]
    cdef double a0, a1, a2, a3
    cdef const real* src
    for p in range(g.shape[0]):
        src = &g[p, 0, 0]
        if post == 1:
            for j in range(n):
                acc[j] += src[j]
            continue
        for j in range(n):
            # four independent sums: one accumulator would wait on each add's latency
            a0 = a1 = a2 = a3 = 0
            q = 0
            while q + 4 <= post:
                a0 += src[q]
                a1 += src[q + 1]
                a2 += src[q + 2]
                a3 += src[q + 3]
                q += 4
            while q < post:
                a0 += src[q]
                q += 1
            acc[j] += (a0 + a1) + (a2 + a3)
            src += post


def _add_into(const real[:, :, ::1] x, const real[::1] y, real[:, :, ::1] out):
    cdef Py_ssize_t pre = x.shape[0], lo, hi
    cdef Team team = loop_team(x.shape[0] * x.shape[1] * x.shape[2])
    cdef int p
    if team.parts == 1:   # no parallel region (entering one costs ~0.7 us)
        with nogil:
            _add(x, y, out)
    else:
        for p in prange(team.parts, nogil=True, num_threads=team.threads, schedule="static"):
            lo, hi = cut(pre, p, team.parts), cut(pre, p + 1, team.parts)
            _add(x[lo:hi], y, out[lo:hi])
    release_team()


def _sum_into(const real[:, :, ::1] g, real[::1] dy):
    cdef Py_ssize_t pre = g.shape[0], lo, hi
    cdef double[:, ::1] acc_v
    cdef int p
    cdef Team team = loop_team(g.shape[0] * g.shape[1] * g.shape[2])
    try:   # the allocation may raise: the team must be released anyway
        acc = np.zeros((team.parts, g.shape[1]), np.float64)   # one row of sums per part
        acc_v = acc
        if team.parts == 1:   # no parallel region (entering one costs ~0.7 us)
            with nogil:
                _sum_to_bias(g, &acc_v[0, 0])
        else:
            for p in prange(team.parts, nogil=True, num_threads=team.threads,
                            schedule="static"):
                lo, hi = cut(pre, p, team.parts), cut(pre, p + 1, team.parts)
                _sum_to_bias(g[lo:hi], &acc_v[p, 0])
    finally:
        release_team()
    total = acc[0]
    for p in range(1, team.parts):
        total += acc[p]
    np.asarray(dy)[:] = total


def _blocks(x, y, axis):
    """(pre, n, post) when Y's shape equals X's dims from `axis` (Paddle's rule; -1 aligns
    on the right) and both are contiguous float arrays of one dtype, else None."""
    if (x.dtype != y.dtype or x.dtype not in (np.float32, np.float64) or y.ndim == 0
            or y.ndim > x.ndim or not x.flags.c_contiguous or not y.flags.c_contiguous):
        return None
    start = x.ndim - y.ndim if axis == -1 else axis
    if tuple(x.shape[start:start + y.ndim]) != y.shape:
        return None
    pre = math.prod(x.shape[:start])   # (np.prod of a tuple costs a few us)
    return pre, y.size, x.size // (pre * y.size) if y.size else 0


_add_any_shapes = elementwise_out(np.add)   # numpy broadcasting, the other shapes


def add_forward(x, y, axis=-1, alloc=None):
    """(alloc: memory_optimize's buffer for the result, as the out variant's)"""
    blocks = _blocks(x, y, axis)
    if blocks is None or 0 in blocks:
        return _add_any_shapes(x, y, axis, alloc=alloc if alloc is not None else fresh)
    out = np.empty_like(x) if alloc is None else alloc(x.shape, x.dtype)
    _add_into(x.reshape(blocks), y.reshape(-1), out.reshape(blocks))
    return out


def add_backward(x, y, dout, axis=-1):
    blocks = _blocks(x, y, axis)
    if blocks is None or 0 in blocks or dout.shape != x.shape or y.shape == x.shape:
        # same shapes (a residual add): both grads are dout, as the reference gives them;
        # summing Y's over no axis would copy it
        return unbroadcast(dout, x, y, axis)
    dy = np.empty_like(y)
    _sum_into(np.ascontiguousarray(dout).reshape(blocks), dy.reshape(-1))
    return dout, dy
