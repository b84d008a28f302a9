# cython: language_level=3
"""Activation kernels, one pass per element with the GIL released, large arrays split over
the kernels' thread team: drop-ins for the numpy references. gelu uses libm's erf (the
reference's erf is a per-element Python call); relu's forward and backward are single
vectorized passes where numpy takes two (the backward's comparison, then the product) or a
slower NaN-aware maximum."""
import numpy as np
cimport numpy as cnp
from cython.parallel cimport prange
from libc.math cimport erf, exp, tanh, sqrt, M_PI
from refimpl._kernels.blas cimport Team, loop_team, release_team, cut

ctypedef fused real:
    float
    double

cnp.import_array()

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


cdef void _relu(const real* x, real* out, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        out[i] = 0 if x[i] < 0 else x[i]   # NaN passes through, as with np.maximum


cdef void _relu_grad(const real* out, const real* d, real* dx, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        # a product as in the reference (NaN * 0 stays NaN); vectorized only because
        # setup.py compiles with -fno-trapping-math (else gcc branches per element)
        dx[i] = d[i] * (out[i] > 0)


cdef void _relu_parts(const real* x, real* out, Py_ssize_t n) noexcept:
    cdef Py_ssize_t lo, hi
    cdef Team team = loop_team(n)
    cdef int p
    if team.parts == 1:   # no parallel region (entering one costs ~0.7 us)
        with nogil:
            _relu(x, out, n)
    else:
        for p in prange(team.parts, nogil=True, num_threads=team.threads, schedule="static"):
            lo, hi = cut(n, p, team.parts), cut(n, p + 1, team.parts)
            _relu(x + lo, out + lo, hi - lo)
    release_team()


cdef void _relu_grad_parts(const real* out, const real* d, real* dx, Py_ssize_t n) noexcept:
    cdef Py_ssize_t lo, hi
    cdef Team team = loop_team(n)
    cdef int p
    if team.parts == 1:
        with nogil:
            _relu_grad(out, d, dx, n)
    else:
        for p in prange(team.parts, nogil=True, num_threads=team.threads, schedule="static"):
            lo, hi = cut(n, p, team.parts), cut(n, p + 1, team.parts)
            _relu_grad(out + lo, d + lo, dx + lo, hi - lo)
    release_team()


cdef cnp.ndarray _contiguous(a, int dtype):
    """`a` itself when it is a C-contiguous array of `dtype` (numpy's type number), else
    such a copy. (C-API checks: the Python-level ones cost more than a small relu.)"""
    if type(a) is np.ndarray and cnp.PyArray_IS_C_CONTIGUOUS(a) and \
            cnp.PyArray_TYPE(a) == dtype:
        return a
    return np.ascontiguousarray(a, cnp.PyArray_DescrFromType(dtype))


cdef cnp.ndarray _result(like, int dtype, alloc):
    """A C-contiguous array shaped like `like` of `dtype`: new, or memory_optimize's."""
    if alloc is None:
        return cnp.PyArray_EMPTY(cnp.PyArray_NDIM(like), cnp.PyArray_DIMS(like), dtype, 0)
    out = alloc(like.shape, cnp.PyArray_DescrFromType(dtype))
    if not cnp.PyArray_IS_C_CONTIGUOUS(out) or cnp.PyArray_TYPE(out) != dtype:
        raise ValueError("alloc must give a C-contiguous buffer of the input's dtype")
    return out


def relu_forward(x, alloc=None):
    """(alloc: memory_optimize's buffer for the result, as the reference's forward_out)"""
    cdef int dtype = cnp.PyArray_TYPE(x)
    cdef cnp.ndarray flat = _contiguous(x, dtype)
    cdef cnp.ndarray out = _result(flat, dtype, alloc)
    if dtype == cnp.NPY_FLOAT32:
        _relu_parts(<const float*>cnp.PyArray_DATA(flat), <float*>cnp.PyArray_DATA(out),
                    cnp.PyArray_SIZE(flat))
    else:
        _relu_parts(<const double*>cnp.PyArray_DATA(flat), <double*>cnp.PyArray_DATA(out),
                    cnp.PyArray_SIZE(flat))
    return out


def relu_backward(out, dout, alloc=None):
    cdef int dtype = cnp.PyArray_TYPE(out)
    cdef cnp.ndarray o = _contiguous(out, dtype), d = _contiguous(dout, dtype)
    cdef cnp.ndarray dx = _result(o, dtype, alloc)
    if d.size != o.size:
        raise ValueError("relu_grad: Out@GRAD %s does not match Out %s"
                         % (list(dout.shape), list(out.shape)))
    if dtype == cnp.NPY_FLOAT32:
        _relu_grad_parts(<const float*>cnp.PyArray_DATA(o), <const float*>cnp.PyArray_DATA(d),
                         <float*>cnp.PyArray_DATA(dx), cnp.PyArray_SIZE(o))
    else:
        _relu_grad_parts(<const double*>cnp.PyArray_DATA(o),
                         <const double*>cnp.PyArray_DATA(d), <double*>cnp.PyArray_DATA(dx),
                         cnp.PyArray_SIZE(o))
    return dx
