# cython: language_level=3
"""elementwise_add + relu with a per-column bias (the fc epilogue) in one pass over the
data, GIL released. Drop-in for the fused_elemwise_add_relu op (refimpl/ops/fused.py); the
fusion pass picks that op only for a 2-D X and a 1-D Y on its last axis, so that is the
only layout handled here.

relu_bias_backward is that chain's gradient, relu_grad followed by elementwise_add_grad of
the bias, in one pass: each element's masked gradient is stored and added to its column's
sum (the executor runs the two grad ops as one call: refimpl/executor/folded_chains.py).
The values are the two kernels': the product d * (out > 0), the sums in double over the
same parts of the rows, added in the same order. (A first one-pass loop measured 10x
slower than numpy's two vectorized passes on 640x256: gcc left the masked product scalar
and branchy; setup.py's -fno-trapping-math vectorizes it.)"""
import numpy as np
cimport numpy as cnp
from cython.parallel cimport prange
from refimpl._kernels.blas cimport Team, loop_team, release_team, cut

from refimpl._kernels.activation import relu_backward
from refimpl._kernels.elementwise import add_backward

cnp.import_array()

ctypedef fused real:
    float
    double


cdef void _bias_relu(real[:, ::1] x, real[::1] b, real[:, ::1] out) noexcept nogil:
    cdef Py_ssize_t i, j
    cdef real v
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            v = x[i, j] + b[j]
            out[i, j] = v if v > 0 else 0


cdef _bias_relu_into(real[:, ::1] x, real[::1] b, real[:, ::1] out):
    cdef Py_ssize_t rows = x.shape[0], lo, hi
    cdef Team team = loop_team(x.shape[0] * x.shape[1])
    cdef int p
    if team.parts == 1:   # no parallel region (entering one costs ~0.7 us)
        with nogil:
            _bias_relu(x, b, out)
    else:
        for p in prange(team.parts, nogil=True, num_threads=team.threads, schedule="static"):
            lo, hi = cut(rows, p, team.parts), cut(rows, p + 1, team.parts)
            _bias_relu(x[lo:hi], b, out[lo:hi])
    release_team()


def add_relu(xs, sub_ops=(), functor_list=(), input_names=(), output_names=()):
    inputs = sub_ops[0][1]
    value = dict(zip(input_names, xs))
    x = np.ascontiguousarray(value[inputs["X"][0]])
    b = np.ascontiguousarray(value[inputs["Y"][0]], dtype=x.dtype)
    out = np.empty_like(x)
    if x.dtype == np.float32:
        _bias_relu_into[float](x, b, out)
    else:
        _bias_relu_into[double](x, b, out)
    return [out]


cdef extern from "relu_bias_rows.h":
    void relu_bias_rows_f32(const float* out, const float* d, float* dx, double* acc,
                            Py_ssize_t rows, Py_ssize_t n) noexcept nogil
    void relu_bias_rows_f64(const double* out, const double* d, double* dx, double* acc,
                            Py_ssize_t rows, Py_ssize_t n) noexcept nogil


cdef inline void _relu_grad_bias(const real* out, const real* d, real* dx, double* acc,
                                 Py_ssize_t rows, Py_ssize_t n) noexcept nogil:
    """dx = d * (out > 0) over rows x n, each row's values added to acc[0:n]."""
    if real is float:
        relu_bias_rows_f32(out, d, dx, acc, rows, n)
    else:
        relu_bias_rows_f64(out, d, dx, acc, rows, n)


cdef void _relu_grad_bias_parts(const real* out, const real* d, real* dx, double* acc,
                                Py_ssize_t rows, Py_ssize_t n, int parts,
                                int threads) noexcept nogil:
    """acc: `parts` rows of n sums, one per part of the rows (elementwise_add's backward
    kernel cuts them the same way)."""
    cdef Py_ssize_t lo, hi
    cdef int p
    if parts == 1:
        _relu_grad_bias(out, d, dx, acc, rows, n)
        return
    for p in prange(parts, num_threads=threads, schedule="static"):
        lo, hi = cut(rows, p, parts), cut(rows, p + 1, parts)
        _relu_grad_bias(out + lo * n, d + lo * n, dx + lo * n, acc + p * n, hi - lo, n)


cdef bint _fc_layout(out, dout, x, y, Py_ssize_t axis):
    """Whether out, dout and x are float arrays of one shape (x may be a stand-in: its
    shape is read), out and dout C-contiguous, and y [N] of their dtype on their last axis.
    (C-API checks: the Python-level ones cost more than a small layer's pass.)"""
    if not (type(out) is np.ndarray and type(dout) is np.ndarray and type(y) is np.ndarray
            and type(x) is np.ndarray):
        return False
    cdef int dtype = cnp.PyArray_TYPE(out), nd = cnp.PyArray_NDIM(out), i
    if not ((dtype == cnp.NPY_FLOAT32 or dtype == cnp.NPY_FLOAT64)
            and cnp.PyArray_TYPE(dout) == dtype and cnp.PyArray_TYPE(y) == dtype
            and nd >= 2 and cnp.PyArray_NDIM(dout) == nd and cnp.PyArray_NDIM(x) == nd
            and cnp.PyArray_NDIM(y) == 1 and (axis == -1 or axis == nd - 1)
            and cnp.PyArray_DIMS(y)[0] == cnp.PyArray_DIMS(out)[nd - 1]
            and cnp.PyArray_IS_C_CONTIGUOUS(out) and cnp.PyArray_IS_C_CONTIGUOUS(dout)):
        return False
    for i in range(nd):
        if cnp.PyArray_DIMS(dout)[i] != cnp.PyArray_DIMS(out)[i] or \
                cnp.PyArray_DIMS(x)[i] != cnp.PyArray_DIMS(out)[i]:
            return False
    return True


def relu_bias_backward(out, dout, x, y, axis=-1):
    """(dX, dY) of relu(x + y) for a bias y [N] on x's last axis, given relu's output
    `out` and its gradient `dout`: relu_grad then elementwise_add_grad in one pass (x is
    read for its shape only). Other layouts run the two kernels."""
    if not _fc_layout(out, dout, x, y, axis):
        return add_backward(x, y, relu_backward(out, dout), axis)
    cdef int dtype = cnp.PyArray_TYPE(out)
    cdef Py_ssize_t n = cnp.PyArray_DIMS(y)[0], j
    cdef Py_ssize_t rows = cnp.PyArray_SIZE(out) // n if n else 0
    cdef cnp.npy_intp sums[2]
    cdef cnp.ndarray o = out, d = dout
    cdef cnp.ndarray dx = cnp.PyArray_EMPTY(cnp.PyArray_NDIM(o), cnp.PyArray_DIMS(o), dtype, 0)
    cdef Team team = loop_team(rows * n)
    cdef int parts = team.parts, threads = team.threads, p
    cdef double* acc
    try:   # the allocation may raise: the team must be released anyway
        sums[0], sums[1] = parts, n
        acc_array = cnp.PyArray_ZEROS(2, sums, cnp.NPY_FLOAT64, 0)
        acc = <double*>cnp.PyArray_DATA(acc_array)
        if dtype == cnp.NPY_FLOAT32:
            with nogil:
                _relu_grad_bias_parts(<const float*>o.data, <const float*>d.data,
                                      <float*>dx.data, acc, rows, n, parts, threads)
        else:
            with nogil:
                _relu_grad_bias_parts(<const double*>o.data, <const double*>d.data,
                                      <double*>dx.data, acc, rows, n, parts, threads)
    finally:
        release_team()
    for p in range(1, parts):    # the parts' sums added in a fixed order
        for j in range(n):
            acc[j] += acc[p * n + j]
    dy = cnp.PyArray_EMPTY(1, cnp.PyArray_DIMS(y), dtype, 0)
    if dtype == cnp.NPY_FLOAT32:
        for j in range(n):
            (<float*>cnp.PyArray_DATA(dy))[j] = <float>acc[j]
    else:
        for j in range(n):
            (<double*>cnp.PyArray_DATA(dy))[j] = acc[j]
    return dx, dy
