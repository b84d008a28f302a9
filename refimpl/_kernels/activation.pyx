# cython: language_level=3
"""Activation kernels, one pass per element with the GIL released, large arrays split over
the kernels' thread team: drop-ins for the numpy references. gelu uses libm's erf (the
reference's erf is a per-element Python call); relu's forward and backward are single
vectorized passes where numpy takes two (the backward's comparison, then the product) or a
slower NaN-aware maximum."""
import numpy as np
from cython.parallel cimport prange
from libc.math cimport erf, exp, tanh, sqrt, M_PI
from refimpl._kernels.blas cimport Team, loop_team, release_team, cut

ctypedef fused real:
    float
    double

cdef double _SQRT_2_OVER_PI = sqrt(2.0 / M_PI)
cdef double _INV_SQRT_2 = sqrt(0.5)
cdef double _INV_SQRT_2PI = 1.0 / sqrt(2.0 * M_PI)
cdef double _CUBIC = 0.044715


cdef void _gelu(const real[::1] x, real[::1] out, bint approximate) noexcept nogil:
    cdef Py_ssize_t i
    cdef double v
    for i in range(x.shape[0]):
        v = x[i]
        if approximate:
            out[i] = <real>(0.5 * v * (1.0 + tanh(_SQRT_2_OVER_PI * (v + _CUBIC * v * v * v))))
        else:
            out[i] = <real>(0.5 * v * (1.0 + erf(v * _INV_SQRT_2)))


cdef void _gelu_grad(const real[::1] x, const real[::1] d, real[::1] dx,
                     bint approximate) noexcept nogil:
    cdef Py_ssize_t i
    cdef double v, t
    for i in range(x.shape[0]):
        v = x[i]
        if approximate:
            t = tanh(_SQRT_2_OVER_PI * (v + _CUBIC * v * v * v))
            dx[i] = <real>(d[i] * (0.5 * (1.0 + t) + 0.5 * v * (1.0 - t * t) * _SQRT_2_OVER_PI
                                   * (1.0 + 3.0 * _CUBIC * v * v)))
        else:
            dx[i] = <real>(d[i] * (0.5 * (1.0 + erf(v * _INV_SQRT_2))
                                   + v * exp(-0.5 * v * v) * _INV_SQRT_2PI))


def _gelu_into(const real[::1] x, real[::1] out, bint approximate):
    cdef Py_ssize_t n = x.shape[0], lo, hi
    cdef Team team = loop_team(n)
    cdef int p
    if team.parts == 1:   # no parallel region (entering one costs ~0.7 us)
        with nogil:
            _gelu(x, out, approximate)
    else:
        for p in prange(team.parts, nogil=True, num_threads=team.threads, schedule="static"):
            lo, hi = cut(n, p, team.parts), cut(n, p + 1, team.parts)
            _gelu(x[lo:hi], out[lo:hi], approximate)
    release_team()


def _gelu_grad_into(const real[::1] x, const real[::1] d, real[::1] dx, bint approximate):
    cdef Py_ssize_t n = x.shape[0], lo, hi
    cdef Team team = loop_team(n)
    cdef int p
    if team.parts == 1:   # no parallel region (entering one costs ~0.7 us)
        with nogil:
            _gelu_grad(x, d, dx, approximate)
    else:
        for p in prange(team.parts, nogil=True, num_threads=team.threads, schedule="static"):
            lo, hi = cut(n, p, team.parts), cut(n, p + 1, team.parts)
            _gelu_grad(x[lo:hi], d[lo:hi], dx[lo:hi], approximate)
    release_team()


def gelu_forward(x, approximate=False):
    flat = np.ascontiguousarray(x).reshape(-1)
    out = np.empty_like(flat)
    _gelu_into(flat, out, approximate)
    return out.reshape(x.shape)


def gelu_backward(x, dout, approximate=False):
    flat = np.ascontiguousarray(x).reshape(-1)
    dx = np.empty_like(flat)
    _gelu_grad_into(flat, np.ascontiguousarray(dout, flat.dtype).reshape(-1), dx, approximate)
    return dx.reshape(x.shape)


cdef void _relu(const real[::1] x, real[::1] out) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(x.shape[0]):
        out[i] = 0 if x[i] < 0 else x[i]   # NaN passes through, as with np.maximum


cdef void _relu_grad(const real[::1] out, const real[::1] d, real[::1] dx) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(out.shape[0]):
        # a product as in the reference (NaN * 0 stays NaN); vectorized only because
        # setup.py compiles with -fno-trapping-math (else gcc branches per element)
        dx[i] = d[i] * (out[i] > 0)


def _relu_into(const real[::1] x, real[::1] out):
    cdef Py_ssize_t n = x.shape[0], lo, hi
    cdef Team team = loop_team(n)
    cdef int p
    if team.parts == 1:   # no parallel region (entering one costs ~0.7 us)
        with nogil:
            _relu(x, out)
    else:
        for p in prange(team.parts, nogil=True, num_threads=team.threads, schedule="static"):
            lo, hi = cut(n, p, team.parts), cut(n, p + 1, team.parts)
            _relu(x[lo:hi], out[lo:hi])
    release_team()


def _relu_grad_into(const real[::1] out, const real[::1] d, real[::1] dx):
    cdef Py_ssize_t n = out.shape[0], lo, hi
    cdef Team team = loop_team(n)
    cdef int p
    if team.parts == 1:   # no parallel region (entering one costs ~0.7 us)
        with nogil:
            _relu_grad(out, d, dx)
    else:
        for p in prange(team.parts, nogil=True, num_threads=team.threads, schedule="static"):
            lo, hi = cut(n, p, team.parts), cut(n, p + 1, team.parts)
            _relu_grad(out[lo:hi], d[lo:hi], dx[lo:hi])
    release_team()


def relu_forward(x, alloc=None):
    """(alloc: memory_optimize's buffer for the result, as the reference's forward_out)"""
    flat = np.ascontiguousarray(x).reshape(-1)
    out = np.empty(x.shape, flat.dtype) if alloc is None else alloc(x.shape, flat.dtype)
    _relu_into(flat, out.reshape(-1))
    return out


def relu_backward(out, dout, alloc=None):
    flat = np.ascontiguousarray(out).reshape(-1)
    dx = np.empty(out.shape, flat.dtype) if alloc is None else alloc(out.shape, flat.dtype)
    _relu_grad_into(flat, np.ascontiguousarray(dout, flat.dtype).reshape(-1), dx.reshape(-1))
    return dx
