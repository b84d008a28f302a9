# The softmax row loops of fast_exp.h (max, exp of the shifted row with its sum, scaling),
# and the floor of the shifted logits (Paddle's -64), shared by softmax.pyx and softmax_ce.pyx.

cdef extern from "fast_exp.h":
    const float REFIMPL_SOFTMAX_SHIFT_FLOOR
    float refimpl_max_f(const float *x, Py_ssize_t n) noexcept nogil
    double refimpl_exp_shifted_sum_f(const float *x, float *out, float shift,
                                     Py_ssize_t n) noexcept nogil
    void refimpl_scale_f(float *a, float scale, Py_ssize_t n) noexcept nogil
