# cython: language_level=3
"""softmax_with_cross_entropy with hard labels over the last axis (GIL released): drop-ins
for refimpl.ops.softmax_with_cross_entropy. Forward, float32: one row at a time (a row of
a 10k-class vocabulary stays in L1/L2 between its passes): row max, exp of the shifted row
and its sum in one vectorized pass (fast_exp.h), normalization, the loss. float64: a block
of rows at a time through numpy's exp, the same passes. Logits are read and probabilities
written once from memory. Backward in one pass. float32 forward and the backward split
their rows over the kernels' team. Labels are range-checked before the loops, which then
run without bounds checks."""
import numpy as np
from cython.parallel cimport prange
from libc.math cimport log
from refimpl._kernels.blas cimport Team, loop_team, release_team, cut

from refimpl._kernels.softmax_rows cimport (REFIMPL_SOFTMAX_SHIFT_FLOOR,
                                            refimpl_exp_shifted_sum_f, refimpl_max_f,
                                            refimpl_scale_f)

ctypedef fused real:
    float
    double


cdef inline double _floored(double shifted) noexcept nogil:
    """A logit minus its row max, clipped as Paddle's softmax clips it (fast_exp.h)."""
    return REFIMPL_SOFTMAX_SHIFT_FLOOR if shifted < REFIMPL_SOFTMAX_SHIFT_FLOOR else shifted


cdef void _shift_by_row_max(const double[:, ::1] logits, double[:, ::1] shifted,
                            double[::1] row_max) noexcept nogil:
    cdef Py_ssize_t i, j, k = logits.shape[1]
    cdef double m
    for i in range(logits.shape[0]):
        m = logits[i, 0]
        for j in range(1, k):
            if logits[i, j] > m:
                m = logits[i, j]
        row_max[i] = m
        for j in range(k):
            shifted[i, j] = _floored(logits[i, j] - m)


cdef void _normalize_and_loss(const double[:, ::1] logits, const double[::1] row_max,
                              double[:, ::1] prob, const long[::1] label, double[::1] loss,
                              long ignore_index) noexcept nogil:
    """prob holds exp(logits - row max); scale each row to sum 1 and take -log prob[label]."""
    cdef Py_ssize_t i, j, k = prob.shape[1]
    cdef double total
    cdef double inv
    for i in range(prob.shape[0]):
        total = 0
        for j in range(k):
            total = total + prob[i, j]
        inv = <double>(1.0 / total)
        for j in range(k):
            prob[i, j] = prob[i, j] * inv
        if label[i] == ignore_index:
            loss[i] = 0
        else:
            loss[i] = <double>(log(total) - _floored(logits[i, label[i]] - row_max[i]))


cdef void _softmax_loss_f(const float[:, ::1] logits, float[:, ::1] prob,
                         const long[::1] label, float[::1] loss, long ignore_index,
                         Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    cdef Py_ssize_t i, k = logits.shape[1]
    cdef float m
    cdef double total
    for i in range(lo, hi):
        m = refimpl_max_f(&logits[i, 0], k)
        total = refimpl_exp_shifted_sum_f(&logits[i, 0], &prob[i, 0], m, k)
        refimpl_scale_f(&prob[i, 0], <float>(1.0 / total), k)
        if label[i] == ignore_index:
            loss[i] = 0
        else:
            loss[i] = <float>(log(total) - _floored(<double>(logits[i, label[i]] - m)))


cdef void _backward(real[:, ::1] prob, long[::1] label, real[::1] dloss, real[:, ::1] dx,
                    long ignore_index, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    cdef Py_ssize_t i, j, k = prob.shape[1]
    cdef real d
    for i in range(lo, hi):
        if label[i] == ignore_index:
            for j in range(k):
                dx[i, j] = 0
            continue
        d = dloss[i]
        for j in range(k):
            dx[i, j] = prob[i, j] * d
        dx[i, label[i]] -= d


def _rows(a):
    # a.shape[a.ndim - 1], not [-1]: this module compiles with wraparound off
    return np.ascontiguousarray(a).reshape(-1, a.shape[a.ndim - 1])


cdef Py_ssize_t _first_bad_label(const long[::1] label, long classes,
                                 long ignore_index) noexcept nogil:
    """The index of the first label that is neither a class nor ignore_index, else -1 (one
    pass: numpy's masks cost several us on a small batch)."""
    cdef Py_ssize_t i
    for i in range(label.shape[0]):
        if label[i] != ignore_index and (label[i] < 0 or label[i] >= classes):
            return i
    return -1


def _labels(label, rows, classes, ignore_index):
    """Flat int64 labels, checked: integers, one per row, each a class or ignore_index."""
    if label.dtype.kind not in "iu":     # (a fed Label whose declared dtype did not say)
        raise TypeError("Label must be int64 (or int32) class indices when soft_label is "
                        "False, got %s" % label.dtype.name)
    lab = np.ascontiguousarray(label, dtype=np.int64).reshape(-1)
    if lab.size != rows:
        raise ValueError("Label has %d entries for %d rows of Logits" % (lab.size, rows))
    bad = _first_bad_label(lab, classes, ignore_index)
    if bad >= 0:
        raise IndexError("Label: class %d is out of range for %d classes (ignore_index=%d)"
                         % (lab[bad], classes, ignore_index))
    return lab


# Rows per block: about this many bytes of logits, which stay in L2 between the passes.
_BLOCK_BYTES = 256 << 10


def _softmax_loss(x, lab, prob, row_max, loss, ignore_index):
    """float64: prob = softmax(x) and loss = -log prob[lab] for rows that fit in cache."""
    _shift_by_row_max(x, prob, row_max)
    np.exp(prob, out=prob)
    _normalize_and_loss(x, row_max, prob, lab, loss, ignore_index)


cdef _softmax_loss_split(const float[:, ::1] x, float[:, ::1] prob, const long[::1] lab,
                         float[::1] loss, long ignore_index):
    """_softmax_loss_f over row ranges split over the kernels' team."""
    cdef Team team = loop_team(x.shape[0] * x.shape[1])
    cdef Py_ssize_t rows = x.shape[0]
    cdef int p
    for p in prange(team.parts, nogil=True, num_threads=team.threads, schedule="static"):
        _softmax_loss_f(x, prob, lab, loss, ignore_index, cut(rows, p, team.parts),
                        cut(rows, p + 1, team.parts))
    release_team()


def softmax_ce_forward(logits, label, soft_label=False, ignore_index=-100,
                       numeric_stable_mode=True, axis=-1):
    x = _rows(logits)
    lab = _labels(label, x.shape[0], x.shape[1], ignore_index)
    prob = np.empty_like(x)
    loss = np.empty(x.shape[0], x.dtype)
    if x.dtype == np.float32:
        _softmax_loss_split(x, prob, lab, loss, ignore_index)
        return prob.reshape(logits.shape), loss.reshape(logits.shape[:logits.ndim - 1] + (1,))
    row_max = np.empty(x.shape[0], x.dtype)
    rows = x.shape[0]
    block = max(1, _BLOCK_BYTES // max(1, x.shape[1] * x.itemsize))
    if block >= rows:
        _softmax_loss(x, lab, prob, row_max, loss, ignore_index)
    else:
        for lo in range(0, rows, block):
            hi = min(lo + block, rows)
            _softmax_loss(x[lo:hi], lab[lo:hi], prob[lo:hi], row_max[lo:hi], loss[lo:hi],
                          ignore_index)
    return prob.reshape(logits.shape), loss.reshape(logits.shape[:logits.ndim - 1] + (1,))


def softmax_ce_backward(label, softmax, dloss, soft_label=False, ignore_index=-100,
                        numeric_stable_mode=True, axis=-1):
    p = _rows(softmax)
    lab = _labels(label, p.shape[0], p.shape[1], ignore_index)
    d = np.ascontiguousarray(dloss, dtype=p.dtype).reshape(-1)
    dx = np.empty_like(p)
    if p.dtype == np.float32:
        _backward_split[float](p, lab, d, dx, ignore_index)
    else:
        _backward_split[double](p, lab, d, dx, ignore_index)
    return dx.reshape(softmax.shape)


cdef _backward_split(real[:, ::1] prob, long[::1] label, real[::1] dloss, real[:, ::1] dx,
                     long ignore_index):
    cdef Team team = loop_team(prob.shape[0] * prob.shape[1])
    cdef Py_ssize_t rows = prob.shape[0]
    cdef int p
    for p in prange(team.parts, nogil=True, num_threads=team.threads, schedule="static"):
        _backward(prob, label, dloss, dx, ignore_index, cut(rows, p, team.parts),
                  cut(rows, p + 1, team.parts))
    release_team()
