# The LSTM cell's row loops of fast_exp.h (one batch row of one step, each way), shared by
# lstm_cell.pyx (a step at a time) and lstm_pipeline.pyx (two layers' time loops).

cdef extern from "fast_exp.h":
    void refimpl_lstm_row_f(const float *xw, const float *hw, const float *c, float *rec,
                            Py_ssize_t hidden) noexcept nogil
    void refimpl_lstm_grad_row_f(const float *rec, const float *c_prev, const float *dh,
                                 const float *dc, float *grads, float *dc_out,
                                 Py_ssize_t hidden) noexcept nogil
