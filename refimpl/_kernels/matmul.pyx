# cython: language_level=3
"""mul (fc's GEMM) forward and backward through the team GEMM (refimpl._kernels.blas), so a
plan's GEMMs and its conv loops share one set of threads. Drop-ins for refimpl.ops.mul,
with and without memory_optimize's `alloc`."""
import numpy as np

from refimpl._kernels.blas import gemm_into


cdef _matrix(a, int num_col_dims):
    cdef Py_ssize_t rows = 1
    for d in a.shape[:num_col_dims]:
        rows *= d
    return np.ascontiguousarray(a).reshape(rows, -1)


cdef _empty(shape, dtype, alloc):
    return alloc(shape, dtype) if alloc is not None else np.empty(shape, dtype)


def mul_forward(x, y, x_num_col_dims=1, y_num_col_dims=1, alloc=None):
    x2, y2 = _matrix(x, x_num_col_dims), _matrix(y, y_num_col_dims)
    out = _empty(x.shape[:x_num_col_dims] + y.shape[y_num_col_dims:], x2.dtype, alloc)
    gemm_into(x2, y2, out.reshape(x2.shape[0], y2.shape[1]))
    return out


def mul_backward(x, y, dout, x_num_col_dims=1, y_num_col_dims=1, need=(True, True),
                 alloc=None):
    x2, y2 = _matrix(x, x_num_col_dims), _matrix(y, y_num_col_dims)
    d2 = np.ascontiguousarray(dout, x2.dtype).reshape(x2.shape[0], y2.shape[1])
    dx = dy = None
    if need[0]:
        dx = _empty(x.shape, x2.dtype, alloc)
        gemm_into(d2, y2, dx.reshape(x2.shape), trans_b=True)
    if need[1]:
        dy = _empty(y.shape, x2.dtype, alloc)
        gemm_into(x2, d2, dy.reshape(y2.shape), trans_a=True)
    return dx, dy
