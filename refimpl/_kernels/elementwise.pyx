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
import numpy as np
cimport numpy as cnp
from cython.parallel cimport prange
from refimpl._kernels.blas cimport Team, loop_team, release_team, cut

from refimpl._kernels.out_variants import elementwise_out, fresh
from refimpl.broadcasting import unbroadcast

cnp.import_array()

ctypedef fused real:
    float
    double


cdef void _add(const real* x, const real* y, real* out, Py_ssize_t pre, Py_ssize_t n,
               Py_ssize_t post) noexcept nogil:
    cdef Py_ssize_t p, j, q
    cdef real v
    for p in range(pre):
        if post == 1:   # the fc bias: one vectorized row add
            for j in range(n):
                out[j] = x[j] + y[j]
            x += n
            out += n
            continue
        for j in range(n):
            v = y[j]
            for q in range(post):
                out[q] = x[q] + v
            x += post
            out += post


cdef void _sum_to_bias(const real* g, double* acc, Py_ssize_t pre, Py_ssize_t n,
                       Py_ssize_t post) noexcept nogil:
    """acc[j] += the sum over p, q of g[p, j, q]."""
    cdef Py_ssize_t p, j, q
    cdef double a0, a1, a2, a3
    for p in range(pre):
        if post == 1:
            for j in range(n):
                acc[j] += g[j]
            g += n
            continue
        for j in range(n):
            # four independent sums: one accumulator would wait on each add's latency
            a0 = a1 = a2 = a3 = 0
            q = 0
            while q + 4 <= post:
                a0 += g[q]
                a1 += g[q + 1]
                a2 += g[q + 2]
                a3 += g[q + 3]
                q += 4
            while q < post:
                a0 += g[q]
                q += 1
            acc[j] += (a0 + a1) + (a2 + a3)
            g += post


cdef void _add_parts(const real* x, const real* y, real* out, Py_ssize_t pre, Py_ssize_t n,
                     Py_ssize_t post) noexcept:
    cdef Py_ssize_t lo, hi, row = n * post
    cdef Team team = loop_team(pre * row)
    cdef int p
    if team.parts == 1:   # no parallel region (entering one costs ~0.7 us)
        with nogil:
            _add(x, y, out, pre, n, post)
    else:
        for p in prange(team.parts, nogil=True, num_threads=team.threads, schedule="static"):
            lo, hi = cut(pre, p, team.parts), cut(pre, p + 1, team.parts)
            _add(x + lo * row, y, out + lo * row, hi - lo, n, post)
    release_team()


cdef void _sum_parts(const real* g, double* acc, Py_ssize_t pre, Py_ssize_t n,
                     Py_ssize_t post, int parts, int threads) noexcept nogil:
    """acc: `parts` rows of n sums, one per part of g's rows."""
    cdef Py_ssize_t lo, hi, row = n * post
    cdef int p
    if parts == 1:
        _sum_to_bias(g, acc, pre, n, post)
        return
    for p in prange(parts, num_threads=threads, schedule="static"):
        lo, hi = cut(pre, p, parts), cut(pre, p + 1, parts)
        _sum_to_bias(g + lo * row, acc + p * n, hi - lo, n, post)


cdef bint _blocks(cnp.ndarray x, cnp.ndarray y, Py_ssize_t axis, Py_ssize_t* blocks,
                  bint contiguous=True) noexcept:
    """Fills blocks (pre, n, post) when Y's shape equals X's dims from `axis` (Paddle's rule;
    -1 aligns on the right) and both are float arrays of one dtype, contiguous unless only
    their shapes are read (`contiguous` False: the backward, where X may be the executor's
    buffer-less stand-in); else False. (C-API reads: the Python-level checks cost more than
    a small add.)"""
    cdef int xt = cnp.PyArray_TYPE(x), nx = cnp.PyArray_NDIM(x), ny = cnp.PyArray_NDIM(y)
    cdef cnp.npy_intp* xs = cnp.PyArray_DIMS(x)
    cdef cnp.npy_intp* ys = cnp.PyArray_DIMS(y)
    cdef Py_ssize_t start, d, pre = 1, n = 1, post = 1
    if (xt != cnp.PyArray_TYPE(y) or (xt != cnp.NPY_FLOAT32 and xt != cnp.NPY_FLOAT64)
            or ny == 0 or ny > nx or (contiguous and not (cnp.PyArray_IS_C_CONTIGUOUS(x)
                                                          and cnp.PyArray_IS_C_CONTIGUOUS(y)))):
        return False
    start = nx - ny if axis == -1 else axis
    if start < 0 or start + ny > nx:
        return False
    for d in range(ny):
        if xs[start + d] != ys[d]:
            return False
        n *= ys[d]
    for d in range(start):
        pre *= xs[d]
    for d in range(start + ny, nx):
        post *= xs[d]
    blocks[0], blocks[1], blocks[2] = pre, n, post
    return pre * n * post != 0


_add_any_shapes = elementwise_out(np.add)   # numpy broadcasting, the other shapes


def add_forward(x, y, axis=-1, alloc=None):
    """(alloc: memory_optimize's buffer for the result, as the out variant's)"""
    cdef Py_ssize_t blocks[3]
    if not isinstance(x, np.ndarray) or not isinstance(y, np.ndarray) or \
            not _blocks(x, y, axis, blocks):
        return _add_any_shapes(x, y, axis, alloc=alloc if alloc is not None else fresh)
    cdef cnp.ndarray out
    if alloc is not None:
        out = alloc(x.shape, x.dtype)
        if not cnp.PyArray_IS_C_CONTIGUOUS(out) or out.dtype != x.dtype:
            raise ValueError("add_forward: alloc must give a C-contiguous %s buffer"
                             % x.dtype)
    elif type(x) is np.ndarray:
        out = cnp.PyArray_EMPTY(cnp.PyArray_NDIM(x), cnp.PyArray_DIMS(x), cnp.PyArray_TYPE(x), 0)
    else:
        out = np.empty_like(x)    # a subclass (LoD values) stays one
    if cnp.PyArray_TYPE(x) == cnp.NPY_FLOAT32:
        _add_parts(<const float*>cnp.PyArray_DATA(x), <const float*>cnp.PyArray_DATA(y),
                   <float*>cnp.PyArray_DATA(out), blocks[0], blocks[1], blocks[2])
    else:
        _add_parts(<const double*>cnp.PyArray_DATA(x), <const double*>cnp.PyArray_DATA(y),
                   <double*>cnp.PyArray_DATA(out), blocks[0], blocks[1], blocks[2])
    return out


cdef _cast_into(const double* acc, cnp.ndarray dy):
    cdef Py_ssize_t j, n = cnp.PyArray_SIZE(dy)
    cdef float* f
    cdef double* d
    if cnp.PyArray_TYPE(dy) == cnp.NPY_FLOAT32:
        f = <float*>cnp.PyArray_DATA(dy)
        for j in range(n):
            f[j] = <float>acc[j]
    else:
        d = <double*>cnp.PyArray_DATA(dy)
        for j in range(n):
            d[j] = acc[j]


def add_backward(x, y, dout, axis=-1):
    cdef Py_ssize_t blocks[3]
    if not isinstance(x, np.ndarray) or not isinstance(y, np.ndarray) or \
            not isinstance(dout, np.ndarray) or not _blocks(x, y, axis, blocks, False) or \
            dout.shape != x.shape or cnp.PyArray_NDIM(x) == cnp.PyArray_NDIM(y):
        # same shapes (a residual add): both grads are dout, as the reference gives them;
        # summing Y's over no axis would copy it
        return unbroadcast(dout, x, y, axis)
    cdef cnp.ndarray d = dout
    if not cnp.PyArray_IS_C_CONTIGUOUS(d) or cnp.PyArray_TYPE(d) != cnp.PyArray_TYPE(x):
        d = np.ascontiguousarray(dout, x.dtype)
    cdef Py_ssize_t pre = blocks[0], n = blocks[1], post = blocks[2], j
    cdef cnp.npy_intp sums[2]
    cdef Team team = loop_team(pre * n * post)
    cdef int parts = team.parts, threads = team.threads, p
    cdef double* acc
    try:   # the allocation may raise: the team must be released anyway
        sums[0], sums[1] = parts, n
        acc_array = cnp.PyArray_ZEROS(2, sums, cnp.NPY_FLOAT64, 0)  # a row of sums per part
        acc = <double*>cnp.PyArray_DATA(acc_array)
        if cnp.PyArray_TYPE(d) == cnp.NPY_FLOAT32:
            with nogil:
                _sum_parts(<const float*>cnp.PyArray_DATA(d), acc, pre, n, post, parts,
                           threads)
        else:
            with nogil:
                _sum_parts(<const double*>cnp.PyArray_DATA(d), acc, pre, n, post, parts,
                           threads)
    finally:
        release_team()
    for p in range(1, parts):    # the parts' sums added in a fixed order
        for j in range(n):
            acc[j] += acc[p * n + j]
    dy = cnp.PyArray_EMPTY(cnp.PyArray_NDIM(y), cnp.PyArray_DIMS(y), cnp.PyArray_TYPE(y), 0)
    _cast_into(acc, dy)
    return dout, dy
