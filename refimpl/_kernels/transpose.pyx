# cython: language_level=3
"""transpose2 forward and backward when the permutation keeps the last axis in place
(attention's heads: [batch, seq, heads, d] <-> [batch, heads, seq, d]): each row of the
last axis is one memcpy, the output's rows split over the kernels' team. Other
permutations, and inputs whose last axis is not contiguous, run the reference
(`fallback`). numpy's copy ran serially: 3.7 ms of one-thread CPU a Transformer step
(issue 21)."""
import numpy as np
from cython.parallel cimport prange
from libc.string cimport memcpy
from refimpl._kernels.blas cimport Team, loop_team, release_team, cut

cdef enum:
    MAX_DIMS = 16

cdef struct Rows:
    # out's rows (all dims but the last, C order) read from x: x's byte strides permuted
    # to out's dim order
    int dims
    Py_ssize_t shape[MAX_DIMS]
    Py_ssize_t strides[MAX_DIMS]
    Py_ssize_t row_bytes
    const char* src
    char* dst


cdef void _copy_rows(const Rows* r, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    cdef Py_ssize_t row, rest, offset
    cdef int d
    for row in range(lo, hi):
        rest, offset = row, 0
        for d in range(r.dims - 1, -1, -1):
            offset = offset + (rest % r.shape[d]) * r.strides[d]
            rest = rest // r.shape[d]
        memcpy(r.dst + row * r.row_bytes, r.src + offset, r.row_bytes)


cdef object _permuted(x, perm):
    """x.transpose(perm) as a new C-contiguous array, or None where this kernel does not
    apply."""
    cdef Py_ssize_t n = x.ndim
    if type(x) is not np.ndarray or n < 2 or n > MAX_DIMS or x.size == 0 \
            or perm[n - 1] != n - 1 or x.strides[n - 1] != x.itemsize or x.dtype.hasobject:
        return None
    out = np.empty([x.shape[a] for a in perm], x.dtype)
    cdef Rows r
    cdef int d
    r.dims = n - 1
    for d in range(n - 1):
        r.shape[d], r.strides[d] = x.shape[perm[d]], x.strides[perm[d]]
    r.row_bytes = x.shape[n - 1] * x.itemsize
    cdef Py_ssize_t address = x.__array_interface__["data"][0]
    r.src = <const char*>address
    address = out.__array_interface__["data"][0]
    r.dst = <char*>address
    cdef Py_ssize_t rows = x.size // x.shape[n - 1]
    cdef Team team = loop_team(x.size)
    cdef int p
    for p in prange(team.parts, nogil=True, num_threads=team.threads, schedule="static"):
        _copy_rows(&r, cut(rows, p, team.parts), cut(rows, p + 1, team.parts))
    release_team()
    return out


def transpose2_forward(fallback):
    def forward(x, axis=()):
        out = _permuted(x, list(axis))
        if out is None:
            return fallback(x, axis=axis)
        return out, np.zeros((0,) + x.shape, x.dtype)
    return forward


def transpose2_backward(fallback):
    def backward(xshape, dout, axis=()):
        out = _permuted(dout, np.argsort(axis).tolist())
        return fallback(xshape, dout, axis=axis) if out is None else out
    return backward
