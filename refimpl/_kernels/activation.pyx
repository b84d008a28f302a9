# cython: language_level=3
"""gelu forward/backward in one pass per element (GIL released), with libm's erf: drop-ins
for the gelu op's numpy reference, whose erf is a per-element Python call."""
import numpy as np
from libc.math cimport erf, exp, tanh, sqrt, M_PI

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
    with nogil:
        _gelu(x, out, approximate)


def _gelu_grad_into(const real[::1] x, const real[::1] d, real[::1] dx, bint approximate):
    with nogil:
        _gelu_grad(x, d, dx, approximate)


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
