# cython: language_level=3
"""mul (fc's GEMM) forward and backward through the team GEMM (refimpl._kernels.blas), so a
plan's GEMMs and its conv loops share one set of threads. Drop-ins for refimpl.ops.mul,
with and without memory_optimize's `alloc`."""
import numpy as np

from refimpl._kernels.blas import gemm_into, require_gemm
from refimpl._kernels.out_variants import fresh, matmul_v2_out

require_gemm()


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


cdef bint _is_gemm(x, y, bint trans_x):
    """x [..., M, K] (transposed only when 2-D) times a matrix y: one GEMM over x's rows,
    the case of paddle.nn.Linear. Other shapes run the reference."""
    return x.ndim >= 2 and y.ndim == 2 and (x.ndim == 2 or not trans_x) and x.dtype == y.dtype


cdef _rows(x):
    """x [..., K] as a C-contiguous matrix [rows, K] (this module compiles with wraparound
    off: no negative indices)."""
    return np.ascontiguousarray(x).reshape(-1, x.shape[x.ndim - 1])


def matmul_v2_forward(x, y, trans_x=False, trans_y=False, alloc=None):
    if not _is_gemm(x, y, trans_x):   # numpy's rules: batches, broadcasting, 1-D
        return matmul_v2_out(x, y, trans_x, trans_y, alloc=alloc if alloc is not None else fresh)
    x2, y2 = _rows(x), np.ascontiguousarray(y)
    m = x2.shape[1] if trans_x else x2.shape[0]
    n = y2.shape[0] if trans_y else y2.shape[1]
    out = _empty((m, n) if trans_x else x.shape[:x.ndim - 1] + (n,), x2.dtype, alloc)
    gemm_into(x2, y2, out.reshape(m, n), trans_a=trans_x, trans_b=trans_y)
    return out


def matmul_v2_backward(fallback):
    """The kernel: `fallback` (the reference, same arguments) computes the shapes that are
    not one GEMM (batches, broadcasting, 1-D). `need` skips the input gradient nobody
    reads (a first layer's input): one GEMM of the three a Linear's step makes."""
    def backward(x, y, dout, trans_x=False, trans_y=False, need=(True, True)):
        if not _is_gemm(x, y, trans_x):
            return fallback(x, y, dout, trans_x, trans_y)
        return _matmul_v2_backward(x, y, dout, trans_x, trans_y, need)
    return backward


def _matmul_v2_backward(x, y, dout, trans_x, trans_y, need):
    """With a = op(x), b = op(y), out = a @ b: da = dout @ b.T, db = a.T @ dout, each
    written straight into x's or y's layout (transposed products where x or y was)."""
    x2, y2 = _rows(x), np.ascontiguousarray(y)
    d = np.ascontiguousarray(dout, x2.dtype).reshape(-1, y2.shape[0] if trans_y else y2.shape[1])
    dx = dy = None
    if need[0]:
        dx = np.empty(x.shape, x2.dtype)
        if trans_x:   # dx = da.T = b @ dout.T
            gemm_into(y2, d, dx, trans_a=trans_y, trans_b=True)
        else:
            gemm_into(d, y2, dx.reshape(x2.shape), trans_b=not trans_y)
    if need[1]:
        dy = np.empty(y.shape, x2.dtype)
        if trans_y:   # dy = db.T = dout.T @ a
            gemm_into(d, x2, dy, trans_a=True, trans_b=trans_x)
        else:
            gemm_into(x2, d, dy, trans_a=not trans_x)
    return dx, dy
