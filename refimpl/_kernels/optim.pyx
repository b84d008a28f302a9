# cython: language_level=3
"""In-place optimizer updates over flat views (GIL released, large parameters split over
the kernels' thread team): drop-ins for the sgd, momentum and adam ops in refimpl.ops."""
import numpy as np
cimport numpy as cnp
from cython.parallel cimport prange
from libc.math cimport sqrt
from refimpl._kernels.blas cimport Team, loop_team, release_team, cut

cnp.import_array()

ctypedef fused real:
    float
    double


cdef void _sgd(real* p, const real* g, real lr, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        p[i] -= lr * g[i]


cdef void _momentum(real* p, const real* g, real* v, real lr, real mu, bint nesterov,
                    Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        v[i] = v[i] * mu + g[i]
        if nesterov:
            p[i] -= (g[i] + mu * v[i]) * lr
        else:
            p[i] -= lr * v[i]


cdef void _adam(real[::1] p, real[::1] g, real[::1] m1, real[::1] m2, real lr_t, real b1,
                real b2, real eps_t) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(p.shape[0]):
        m1[i] = b1 * m1[i] + (1 - b1) * g[i]
        m2[i] = b2 * m2[i] + (1 - b2) * g[i] * g[i]
        p[i] -= lr_t * (m1[i] / (<real>sqrt(m2[i]) + eps_t))


cdef void _sgd_parts(real* p, const real* g, real lr, Py_ssize_t n) noexcept:
    cdef Py_ssize_t lo, hi
    cdef Team team = loop_team(n)
    cdef int k
    if team.parts == 1:   # no parallel region (entering one costs ~0.7 us)
        with nogil:
            _sgd(p, g, lr, n)
    else:
        for k in prange(team.parts, nogil=True, num_threads=team.threads, schedule="static"):
            lo, hi = cut(n, k, team.parts), cut(n, k + 1, team.parts)
            _sgd(p + lo, g + lo, lr, hi - lo)
    release_team()


cdef void _momentum_parts(real* p, const real* g, real* v, real lr, real mu, bint nesterov,
                          Py_ssize_t n) noexcept:
    cdef Py_ssize_t lo, hi
    cdef Team team = loop_team(n)
    cdef int k
    if team.parts == 1:
        with nogil:
            _momentum(p, g, v, lr, mu, nesterov, n)
    else:
        for k in prange(team.parts, nogil=True, num_threads=team.threads, schedule="static"):
            lo, hi = cut(n, k, team.parts), cut(n, k + 1, team.parts)
            _momentum(p + lo, g + lo, v + lo, lr, mu, nesterov, hi - lo)
    release_team()


cdef _adam_into(real[::1] p, real[::1] g, real[::1] m1, real[::1] m2, real lr_t, real b1,
               real b2, real eps_t):
    cdef Py_ssize_t n = p.shape[0], lo, hi
    cdef Team team = loop_team(n)
    cdef int k
    if team.parts == 1:   # no parallel region (entering one costs ~0.7 us)
        with nogil:
            _adam(p, g, m1, m2, lr_t, b1, b2, eps_t)
    else:
        for k in prange(team.parts, nogil=True, num_threads=team.threads, schedule="static"):
            lo, hi = cut(n, k, team.parts), cut(n, k + 1, team.parts)
            _adam(p[lo:hi], g[lo:hi], m1[lo:hi], m2[lo:hi], lr_t, b1, b2, eps_t)
    release_team()


def _flat(a):
    if not a.flags.c_contiguous:
        raise ValueError("in-place update needs a contiguous array")
    return a.reshape(-1)


cdef cnp.ndarray _updated(a, int dtype, Py_ssize_t n, what):
    """`a`, updated in place: a C-contiguous array of `dtype` and n elements."""
    if not isinstance(a, np.ndarray) or not cnp.PyArray_IS_C_CONTIGUOUS(a) or \
            cnp.PyArray_TYPE(a) != dtype or cnp.PyArray_SIZE(a) != n:
        raise ValueError("in-place update needs %s as a contiguous array of the "
                         "parameter's dtype and size" % what)
    return a


cdef cnp.ndarray _read(a, int dtype, Py_ssize_t n, what):
    """`a` as a C-contiguous array of `dtype` (itself when it is one) of n elements."""
    if not (type(a) is np.ndarray and cnp.PyArray_IS_C_CONTIGUOUS(a) and
            cnp.PyArray_TYPE(a) == dtype):
        a = np.ascontiguousarray(a, cnp.PyArray_DescrFromType(dtype))
    if cnp.PyArray_SIZE(a) != n:
        raise ValueError("%s has %d elements, the parameter %d" % (what, a.size, n))
    return a


cdef double _first(a):
    """The learning rate's value (a [1] tensor)."""
    if type(a) is np.ndarray and cnp.PyArray_IS_C_CONTIGUOUS(a) and cnp.PyArray_SIZE(a):
        if cnp.PyArray_TYPE(a) == cnp.NPY_FLOAT32:
            return (<float*>cnp.PyArray_DATA(a))[0]
        if cnp.PyArray_TYPE(a) == cnp.NPY_FLOAT64:
            return (<double*>cnp.PyArray_DATA(a))[0]
    return a.reshape(-1)[0]


def sgd(param, lr, grad):
    cdef int dtype = cnp.PyArray_TYPE(param)
    cdef Py_ssize_t n = cnp.PyArray_SIZE(param)
    cdef cnp.ndarray p = _updated(param, dtype, n, "Param")
    cdef cnp.ndarray g = _read(grad, dtype, n, "Grad")
    if dtype == cnp.NPY_FLOAT32:
        _sgd_parts(<float*>cnp.PyArray_DATA(p), <const float*>cnp.PyArray_DATA(g),
                   <float>_first(lr), n)
    else:
        _sgd_parts(<double*>cnp.PyArray_DATA(p), <const double*>cnp.PyArray_DATA(g),
                   _first(lr), n)
    return param


def momentum(param, grad, velocity, lr, mu=0.9, use_nesterov=False, regularization_method="",
             regularization_coeff=0.0):
    cdef int dtype = cnp.PyArray_TYPE(param)
    cdef Py_ssize_t n = cnp.PyArray_SIZE(param)
    cdef cnp.ndarray p = _updated(param, dtype, n, "Param")
    cdef cnp.ndarray v = _updated(velocity, dtype, n, "Velocity")
    cdef cnp.ndarray g = _read(grad, dtype, n, "Grad")
    if dtype == cnp.NPY_FLOAT32:
        _momentum_parts[float](<float*>cnp.PyArray_DATA(p),
                               <const float*>cnp.PyArray_DATA(g), <float*>cnp.PyArray_DATA(v),
                               <float>_first(lr), <float>mu, use_nesterov, n)
    else:
        _momentum_parts[double](<double*>cnp.PyArray_DATA(p),
                                <const double*>cnp.PyArray_DATA(g),
                                <double*>cnp.PyArray_DATA(v), _first(lr), mu, use_nesterov, n)
    return param, velocity


def adam(param, grad, lr, m1, m2, b1p, b2p, b1t=None, b2t=None, beta1=0.9, beta2=0.999,
         epsilon=1e-8, lazy_mode=False):
    if b1t is not None:     # Beta1Tensor / Beta2Tensor win over the attributes
        beta1 = float(b1t.reshape(-1)[0])
    if b2t is not None:
        beta2 = float(b2t.reshape(-1)[0])
    g = np.ascontiguousarray(grad, param.dtype).reshape(-1)
    corr2 = sqrt(1 - float(b2p.reshape(-1)[0]))
    lr_t = float(lr.reshape(-1)[0]) * corr2 / (1 - float(b1p.reshape(-1)[0]))
    if param.dtype == np.float32:
        _adam_into[float](_flat(param), g, _flat(m1), _flat(m2), lr_t, beta1, beta2,
                          epsilon * corr2)
    else:
        _adam_into[double](_flat(param), g, _flat(m1), _flat(m2), lr_t, beta1, beta2,
                           epsilon * corr2)
    b1p *= beta1
    b2p *= beta2
    return param, m1, m2, b1p, b2p
