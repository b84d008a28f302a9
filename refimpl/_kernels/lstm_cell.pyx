# cython: language_level=3
"""The rnn op's LSTM cell for float32 on the CPU, one pass over a step's rows (GIL
released), where the reference's numpy cell is a dozen array ops a step each way: drop-ins
for the (step, grad_step) pair that refimpl.ops.rnn takes as `lstm_kernels`, with its
formulas (fast_exp.h holds the vectorized loops). Arrays are [batch, width] with unit
stride along the width; rows may be strided (views into Reserve)."""
import numpy as np

from refimpl._kernels.lstm_rows cimport refimpl_lstm_grad_row_f, refimpl_lstm_row_f


def lstm_step(const float[:, :] xw_t, const float[:, :] hw, const float[:, :] c, record,
              Py_ssize_t hidden):
    """Fills record [B, 6H] from the gate sums xw_t + hw [B, 4H] and c [B, H]; returns
    (h', c') as views into record."""
    _check_rows("lstm_step", record, 6 * hidden, (xw_t, 4 * hidden), (hw, 4 * hidden),
                (c, hidden))
    cdef float[:, :] rec = record
    cdef Py_ssize_t b
    with nogil:
        for b in range(rec.shape[0]):
            refimpl_lstm_row_f(&xw_t[b, 0], &hw[b, 0], &c[b, 0], &rec[b, 0], hidden)
    return record[:, 5 * hidden:], record[:, 4 * hidden:5 * hidden]


def lstm_grad_step(const float[:, :] record, const float[:, :] c_prev, const float[:, :] dh,
                   const float[:, :] dc, float[:, :] grads, Py_ssize_t hidden):
    """Writes the gate sums' grads [B, 4H] into grads; returns the carried dc [B, H]."""
    _check_rows("lstm_grad_step", grads, 4 * hidden, (record, 6 * hidden),
                (c_prev, hidden), (dh, hidden), (dc, hidden))
    out = np.empty((grads.shape[0], hidden), np.float32)
    cdef float[:, ::1] dc_out = out
    cdef Py_ssize_t b
    with nogil:
        for b in range(grads.shape[0]):
            refimpl_lstm_grad_row_f(&record[b, 0], &c_prev[b, 0], &dh[b, 0], &dc[b, 0],
                                    &grads[b, 0], &dc_out[b, 0], hidden)
    return out


def _check_rows(name, first, first_width, *others):
    """Every array [rows, its width] with unit stride along the width (the C loops index
    each row from its first element)."""
    rows = first.shape[0]
    for a, width in ((first, first_width),) + others:
        if a.shape[0] != rows or a.shape[1] != width:
            raise ValueError("%s: expected [%d, %d], got %s"
                             % (name, rows, width, list(a.shape[:2])))
        if rows and width and a.strides[1] != sizeof(float):
            raise ValueError("%s: expected unit stride along the width, got strides %s"
                             % (name, list(a.strides[:2])))
