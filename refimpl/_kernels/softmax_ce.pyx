# cython: language_level=3, boundscheck=True
# Bounds checks stay on here (a label indexes a row); their cost is negligible per row.
"""softmax_with_cross_entropy with hard labels over the last axis, fused in one pass per
row (GIL released): drop-ins for refimpl.ops.softmax_with_cross_entropy."""
import numpy as np
from libc.math cimport exp, log

ctypedef fused real:
    float
    double


cdef void _forward(real[:, ::1] logits, long[::1] label, real[:, ::1] prob, real[::1] loss,
                   long ignore_index) noexcept nogil:
    cdef Py_ssize_t i, j, rows = logits.shape[0], k = logits.shape[1]
    cdef double m, total
    for i in range(rows):
        m = logits[i, 0]
        for j in range(1, k):
            if logits[i, j] > m:
                m = logits[i, j]
        total = 0
        for j in range(k):
            prob[i, j] = <real>exp(logits[i, j] - m)
            total = total + prob[i, j]
        for j in range(k):
            prob[i, j] = <real>(prob[i, j] / total)
        if label[i] == ignore_index:
            loss[i] = 0
        else:
            loss[i] = <real>(log(total) - (logits[i, label[i]] - m))


cdef void _backward(real[:, ::1] prob, long[::1] label, real[::1] dloss, real[:, ::1] dx,
                    long ignore_index) noexcept nogil:
    cdef Py_ssize_t i, j, rows = prob.shape[0], k = prob.shape[1]
    for i in range(rows):
        if label[i] == ignore_index:
            for j in range(k):
                dx[i, j] = 0
            continue
        for j in range(k):
            dx[i, j] = prob[i, j] * dloss[i]
        dx[i, label[i]] -= dloss[i]


def _rows(a):
    return np.ascontiguousarray(a).reshape(-1, a.shape[-1])


def _labels(label, rows, k):
    lab = np.ascontiguousarray(label, dtype=np.int64).reshape(-1)
    if lab.size != rows:
        raise ValueError("Label has %d entries for %d rows of Logits" % (lab.size, rows))
    return lab


def softmax_ce_forward(logits, label, soft_label=False, ignore_index=-100,
                       numeric_stable_mode=True, axis=-1):
    x = _rows(logits)
    lab = _labels(label, x.shape[0], x.shape[1])
    valid = lab[lab != ignore_index]
    if valid.size and (valid.min() < 0 or valid.max() >= x.shape[1]):
        raise IndexError("label %d is out of range for %d classes"
                         % (valid[(valid < 0) | (valid >= x.shape[1])][0], x.shape[1]))
    prob = np.empty_like(x)
    loss = np.empty(x.shape[0], x.dtype)
    if x.dtype == np.float32:
        _forward[float](x, lab, prob, loss, ignore_index)
    else:
        _forward[double](x, lab, prob, loss, ignore_index)
    return prob.reshape(logits.shape), loss.reshape(logits.shape[:-1] + (1,))


def softmax_ce_backward(label, softmax, dloss, soft_label=False, ignore_index=-100,
                        numeric_stable_mode=True, axis=-1):
    p = _rows(softmax)
    lab = _labels(label, p.shape[0], p.shape[1])
    d = np.ascontiguousarray(dloss, dtype=p.dtype).reshape(-1)
    dx = np.empty_like(p)
    if p.dtype == np.float32:
        _backward[float](p, lab, d, dx, ignore_index)
    else:
        _backward[double](p, lab, d, dx, ignore_index)
    return dx.reshape(softmax.shape)
