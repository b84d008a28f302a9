# cython: language_level=3
"""mul (fc's GEMM), matmul_v2 and matmul forward and backward through the team GEMM
(refimpl._kernels.blas), so a plan's GEMMs and its conv loops share one set of threads.
Drop-ins for refimpl.ops.mul / matmul, with and without memory_optimize's `alloc`;
mul_backward_sgd is mul's backward and the sgd op on its weight in one (the executor pairs
them: refimpl/executor/folded_updates.py); mul_bias_forward and mul_bias_relu_forward are
fc's forward chain mul -> elementwise_add of the bias [-> relu] in one call
(refimpl/executor/folded_chains.py).
Batched products (attention's [batch, heads, seq, d] matrices) are one BLAS GEMM per
matrix, the matrices split over the team: numpy's stacked matmul would call OpenBLAS's
threaded GEMM per matrix (64^3 is above its one-thread limit), whose spinning workers take
the cores from the team's next kernels."""
import numpy as np
cimport numpy as cnp
from cython.parallel cimport prange

from refimpl._kernels.blas cimport (Team, Gemm, sgemm, dgemm, gemm_team, release_team, cut,
                                    small_gemm, fill_gemm, gemm_block, gemm_part)
from refimpl._kernels import blas
from refimpl._kernels.activation import relu_forward
from refimpl._kernels.elementwise import add_forward
from refimpl._kernels.blas import gemm_into, require_gemm
from refimpl._kernels.optim import sgd
from refimpl._kernels.out_variants import fresh, matmul_v2_out

require_gemm()
cnp.import_array()


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


def mul_backward_sgd(x, y, dout, lr, x_num_col_dims=1, y_num_col_dims=1, need_x=True,
                     alloc=None):
    """mul's backward followed by the sgd op on its weight y (y -= lr * dy, in place).
    A large dy (numpy's GEMM limit or more multiply-adds) takes the update inside its GEMM
    (y = -lr * x2^T @ dout + y): dy is never stored, nor read again by a separate update
    pass, and each element of y is rounded once (BLAS's fused multiply-add), not after the
    product and again after the difference as the sgd op does. A small one (where the BLAS
    call's checks cost more than the pass saved), or a y BLAS cannot write beside x (not a
    C-contiguous array of x's dtype), takes the two kernels. Returns dx (None unless
    need_x)."""
    x2 = _matrix(x, x_num_col_dims)
    if <double>x2.shape[0] * y.size < blas.NUMPY_GEMM_WORK or not (
            type(y) is np.ndarray and y.flags.c_contiguous and y.dtype == x2.dtype):
        dx, dy = mul_backward(x, y, dout, x_num_col_dims, y_num_col_dims, (need_x, True),
                              alloc)
        sgd(y, lr, dy)
        return dx
    rate = lr.reshape(-1)[0].astype(x2.dtype)       # as the sgd op rounds it
    dx = mul_backward(x, y, dout, x_num_col_dims, y_num_col_dims, (need_x, False), alloc)[0]
    y2 = y.reshape(x2.shape[1], -1)
    d2 = np.ascontiguousarray(dout, x2.dtype).reshape(x2.shape[0], y2.shape[1])
    gemm_into(x2, d2, y2, trans_a=True, alpha=-rate, beta=1)
    return dx


ctypedef fused real:
    float
    double


cdef void _bias_act(real* out, Py_ssize_t ld, const real* bias, Py_ssize_t r0, Py_ssize_t r1,
                    Py_ssize_t c0, Py_ssize_t c1, bint relu) noexcept nogil:
    """out[r0:r1, c0:c1] += bias[c0:c1], then relu where asked: the elementwise_add and
    relu kernels' arithmetic (x + y; 0 if v < 0 else v), so the values are theirs."""
    cdef Py_ssize_t i, j
    cdef real* row
    cdef real v
    for i in range(r0, r1):
        row = out + i * ld
        if relu:
            for j in range(c0, c1):
                v = row[j] + bias[j]
                row[j] = 0 if v < 0 else v
        else:
            for j in range(c0, c1):
                row[j] = row[j] + bias[j]


cdef void _gemm_bias_act(const Gemm* g, const char* bias, bint relu, int part,
                         int parts) noexcept nogil:
    """Part `part` of the product, then the bias [and relu] on the block it made (still in
    this core's cache)."""
    cdef Py_ssize_t rows[2]
    cdef Py_ssize_t cols[2]
    gemm_part(g, part, parts)
    gemm_block(g, part, parts, rows, cols)
    if g.single:
        _bias_act(<float*>g.c, g.ldc, <const float*>bias, rows[0], rows[1], cols[0], cols[1],
                  relu)
    else:
        _bias_act(<double*>g.c, g.ldc, <const double*>bias, rows[0], rows[1], cols[0],
                  cols[1], relu)


cdef _mul_bias(x, y, b, int x_num_col_dims, int y_num_col_dims, int axis, bint relu, alloc):
    """mul, elementwise_add of the bias b along the product's last axis [, relu], with the
    values of the three kernels run in turn: the product is gemm_into's (the same split, or
    numpy's matmul for a small one), and each part adds the bias to its block right after
    its GEMM. Shapes other than fc's (b not [N] on the last axis of a 2-D weight's product,
    or of another dtype) run the three kernels."""
    x2, y2 = _matrix(x, x_num_col_dims), _matrix(y, y_num_col_dims)
    cdef cnp.ndarray xx = x2, yy = y2, bias
    cdef int dtype = cnp.PyArray_TYPE(xx)
    # (C-API checks: the Python-level ones cost more than a small layer's bias add)
    if not (type(b) is np.ndarray and y_num_col_dims == 1 and cnp.PyArray_NDIM(y) == 2
            and (dtype == cnp.NPY_FLOAT32 or dtype == cnp.NPY_FLOAT64)
            and cnp.PyArray_TYPE(yy) == dtype and cnp.PyArray_TYPE(b) == dtype
            and cnp.PyArray_NDIM(b) == 1 and cnp.PyArray_IS_C_CONTIGUOUS(b)
            and cnp.PyArray_DIMS(b)[0] == cnp.PyArray_DIMS(yy)[1]
            and (axis == -1 or axis == x_num_col_dims)):
        out = add_forward(mul_forward(x, y, x_num_col_dims, y_num_col_dims), b, axis,
                          alloc=None if relu else alloc)
        return relu_forward(out, alloc=alloc) if relu else out
    bias = b
    out = _empty(x.shape[:x_num_col_dims] + y.shape[1:], x2.dtype, alloc)
    o2 = out.reshape(x2.shape[0], y2.shape[1])
    cdef Gemm g
    cdef Team team
    cdef int p
    if small_gemm(x2, y2, o2, False, 1, 0) or x2.shape[1] == 0:
        gemm_into(x2, y2, o2)    # numpy's matmul, or an empty sum's zeros
        _add_bias(o2, bias, relu)
        return out
    fill_gemm(&g, x2, y2, o2, False, False, 1, 0)
    team = gemm_team(<double>g.m * g.n * g.k, max(g.m, g.n))
    for p in prange(team.parts, nogil=True, num_threads=team.threads, schedule="static"):
        _gemm_bias_act(&g, bias.data, relu, p, team.parts)
    release_team()
    return out


cdef _add_bias(cnp.ndarray o2, cnp.ndarray bias, bint relu):
    """The bias [and relu] on all of the product o2 [rows, N], on this thread."""
    cdef Py_ssize_t m = o2.shape[0], n = o2.shape[1]
    if cnp.PyArray_TYPE(o2) == cnp.NPY_FLOAT32:
        with nogil:
            _bias_act(<float*>o2.data, n, <const float*>bias.data, 0, m, 0, n, relu)
    else:
        with nogil:
            _bias_act(<double*>o2.data, n, <const double*>bias.data, 0, m, 0, n, relu)


def mul_bias_forward(x, y, b, x_num_col_dims=1, y_num_col_dims=1, axis=-1, alloc=None):
    """fc without an activation: mul(x, y) + b (b: [N], added along the last axis)."""
    return _mul_bias(x, y, b, x_num_col_dims, y_num_col_dims, axis, False, alloc)


def mul_bias_relu_forward(x, y, b, x_num_col_dims=1, y_num_col_dims=1, axis=-1, alloc=None):
    """fc with relu: relu(mul(x, y) + b)."""
    return _mul_bias(x, y, b, x_num_col_dims, y_num_col_dims, axis, True, alloc)


cdef bint _is_gemm(x, y, bint trans_x):
    """x [..., M, K] (transposed only when 2-D) times a matrix y: one GEMM over x's rows,
    the case of paddle.nn.Linear. Other shapes run the reference, empty ones too (an
    [N, 0] @ [0, P] product is zeros: AdaptiveLogSoftmaxWithLoss's narrowest cluster)."""
    return x.ndim >= 2 and y.ndim == 2 and (x.ndim == 2 or not trans_x) and \
        x.dtype == y.dtype and x.size > 0 and y.size > 0


cdef _rows(x):
    """x [..., K] as a C-contiguous matrix [rows, K] (this module compiles with wraparound
    off: no negative indices)."""
    return np.ascontiguousarray(x).reshape(-1, x.shape[x.ndim - 1])


def matmul_v2_forward(x, y, trans_x=False, trans_y=False, alloc=None):
    if _is_batched(x, y, trans_x, trans_y):
        return _batched_product(x, y, trans_x, trans_y, 1.0, alloc)
    if not _is_gemm(x, y, trans_x):   # numpy's rules: broadcasting, 1-D
        return matmul_v2_out(x, y, trans_x, trans_y, alloc=alloc if alloc is not None else fresh)
    return _gemm_product(x, y, trans_x, trans_y, alloc)


cdef _gemm_product(x, y, bint trans_x, bint trans_y, alloc):
    """op(x) @ op(y) for _is_gemm's shapes: one GEMM over x's rows."""
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
        if _is_batched(x, y, trans_x, trans_y):
            return _batched_backward(x, y, dout, trans_x, trans_y, 1.0, need)
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


# -- batched products: x [..., M, K] and y [..., K, N] with the same batch dims

def matmul_forward(fallback):
    """fluid's matmul (alpha * op(X) @ op(Y)): batched products of one batch shape through
    the team, alpha applied by the GEMM; `fallback` (the reference) computes the rest."""
    def forward(x, y, transpose_X=False, transpose_Y=False, alpha=1.0, head_number=1):
        if head_number == 1 and _is_batched(x, y, transpose_X, transpose_Y):
            return _batched_product(x, y, transpose_X, transpose_Y, alpha, None)
        if head_number == 1 and alpha == 1.0 and _is_gemm(x, y, transpose_X):
            # Paddle 2.0's nn.Linear (switch linear_op): matmul_v2's one GEMM, the same
            # product (v1's 1-D rules do not reach a rank >= 2 X and a 2-D Y)
            return _gemm_product(x, y, transpose_X, transpose_Y, None)
        return fallback(x, y, transpose_X, transpose_Y, alpha, head_number)
    return forward


def matmul_backward(fallback):
    def backward(x, y, dout, transpose_X=False, transpose_Y=False, alpha=1.0, head_number=1,
                 need=(True, True)):
        if head_number == 1 and _is_batched(x, y, transpose_X, transpose_Y):
            return _batched_backward(x, y, dout, transpose_X, transpose_Y, alpha, need)
        if head_number == 1 and alpha == 1.0 and _is_gemm(x, y, transpose_X):
            return _matmul_v2_backward(x, y, dout, transpose_X, transpose_Y, need)
        return fallback(x, y, dout, transpose_X, transpose_Y, alpha, head_number)
    return backward


cdef bint _is_batched(x, y, bint trans_x, bint trans_y):
    """Stacks of matrices of one batch shape, one float dtype, not empty, large enough to
    split (the smaller ones, numpy's stacked matmul runs on one BLAS thread of its own
    accord)."""
    if not (type(x) is np.ndarray and type(y) is np.ndarray and x.ndim >= 3
            and x.size > 0 and y.size > 0
            and x.ndim == y.ndim and x.dtype == y.dtype
            and x.dtype in (np.float32, np.float64) and x.shape[:x.ndim - 2] == y.shape[:y.ndim - 2]):
        return False
    m, k = (x.shape[x.ndim - 1], x.shape[x.ndim - 2]) if trans_x else x.shape[x.ndim - 2:]
    kb, n = (y.shape[y.ndim - 1], y.shape[y.ndim - 2]) if trans_y else y.shape[y.ndim - 2:]
    return k == kb and <double>x.size * n >= blas.NUMPY_GEMM_WORK   # multiply-adds


cdef tuple _stack(a, bint trans):
    """a [..., r, c] as BLAS reads it: (the array, op's transpose, leading dimension, batch
    stride, in items). In place when its matrices have unit stride along rows or columns
    (a transposed view is read transposed) and its batch dims collapse into one stride;
    otherwise copied."""
    cdef Py_ssize_t item = a.itemsize
    t = a.reshape((-1,) + a.shape[a.ndim - 2:])   # copies only batch dims that cannot merge
    cdef Py_ssize_t r = t.shape[1], c = t.shape[2]
    cdef Py_ssize_t s0 = t.strides[0], s1 = t.strides[1], s2 = t.strides[2]
    if s0 >= 0 and s0 % item == 0:
        if s2 == item and s1 >= c * item and s1 % item == 0:
            return t, trans, s1 // item, s0 // item
        if s1 == item and s2 >= r * item and s2 % item == 0:
            return t, not trans, s2 // item, s0 // item
    t = np.ascontiguousarray(t)
    return t, trans, c, r * c


cdef struct Batched:
    # c[i] = alpha * op(a[i]) @ op(b[i]), i < batch: row-major matrices with leading
    # dimensions and batch strides (items); double when not single
    bint single, trans_a, trans_b
    Py_ssize_t batch, m, n, k, lda, ldb, ldc, stride_a, stride_b, stride_c
    double alpha
    const char* a
    const char* b
    char* c


cdef void _batched_part(const Batched* g, int part, int parts) noexcept nogil:
    """The matrices of one of `parts` consecutive ranges of the batch."""
    cdef Py_ssize_t i
    for i in range(cut(g.batch, part, parts), cut(g.batch, part + 1, parts)):
        if g.single:
            sgemm(g.trans_a, g.trans_b, g.m, g.n, g.k, <float>g.alpha,
                  <const float*>g.a + i * g.stride_a, g.lda,
                  <const float*>g.b + i * g.stride_b, g.ldb, 0,
                  <float*>g.c + i * g.stride_c, g.ldc)
        else:
            dgemm(g.trans_a, g.trans_b, g.m, g.n, g.k, g.alpha,
                  <const double*>g.a + i * g.stride_a, g.lda,
                  <const double*>g.b + i * g.stride_b, g.ldb, 0,
                  <double*>g.c + i * g.stride_c, g.ldc)


cdef _batched_into(x, y, cnp.ndarray out, bint trans_x, bint trans_y, double alpha):
    """out [..., M, N] (C-contiguous) = alpha * op(x) @ op(y) for each matrix of the batch."""
    cdef Batched g
    xs, g.trans_a, g.lda, g.stride_a = _stack(x, trans_x)
    ys, g.trans_b, g.ldb, g.stride_b = _stack(y, trans_y)
    cdef cnp.ndarray a = xs, b = ys
    g.single = out.dtype == np.float32
    g.batch = a.shape[0]
    g.m, g.n = out.shape[out.ndim - 2], out.shape[out.ndim - 1]
    g.k = x.shape[x.ndim - 2] if trans_x else x.shape[x.ndim - 1]   # (g.trans_a: as stored)
    g.ldc, g.stride_c = g.n, g.m * g.n
    g.alpha = alpha
    g.a, g.b, g.c = <const char*>a.data, <const char*>b.data, out.data
    cdef Team t = gemm_team(<double>g.batch * g.m * g.n * g.k, g.batch)
    cdef int p
    for p in prange(t.parts, nogil=True, num_threads=t.threads, schedule="static"):
        _batched_part(&g, p, t.parts)
    release_team()
    return out


cdef _batched_product(x, y, bint trans_x, bint trans_y, double alpha, alloc):
    m = x.shape[x.ndim - 1] if trans_x else x.shape[x.ndim - 2]
    n = y.shape[y.ndim - 2] if trans_y else y.shape[y.ndim - 1]
    out = _empty(x.shape[:x.ndim - 2] + (m, n), x.dtype, alloc)
    return _batched_into(x, y, out, trans_x, trans_y, alpha)


cdef tuple _batched_backward(x, y, dout, bint trans_x, bint trans_y, double alpha, need):
    """With a = op(x), b = op(y), out = alpha a @ b: da = alpha dout @ b.T and
    db = alpha a.T @ dout, each written straight into x's or y's layout. dout may come
    0-D (an out of one element is a scalar output under the version's scalar shape)."""
    m = x.shape[x.ndim - 1] if trans_x else x.shape[x.ndim - 2]
    n = y.shape[y.ndim - 2] if trans_y else y.shape[y.ndim - 1]
    d = np.asarray(dout, x.dtype).reshape(x.shape[:x.ndim - 2] + (m, n))
    dx = dy = None
    if need[0]:
        dx = np.empty(x.shape, x.dtype)
        if trans_x:   # dx = da.T = b @ dout.T
            _batched_into(y, d, dx, trans_y, True, alpha)
        else:
            _batched_into(d, y, dx, False, not trans_y, alpha)
    if need[1]:
        dy = np.empty(y.shape, x.dtype)
        if trans_y:   # dy = db.T = dout.T @ a
            _batched_into(d, x, dy, True, trans_x, alpha)
        else:
            _batched_into(x, d, dy, not trans_x, False, alpha)
    return dx, dy
