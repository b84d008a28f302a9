/* softmax's float32 backward rows (softmax.pyx): dx = out * (dout - sum(dout * out)), the
   row's sum in double over SIMD lanes. */
#include "simd.h"

REFIMPL_SIMD_CLONES
static void refimpl_softmax_grad_row_f(const float *restrict out, const float *restrict dout,
                                       float *restrict dx, Py_ssize_t n)
{
    double dot = 0.0;
#pragma omp simd reduction(+:dot)
    for (Py_ssize_t j = 0; j < n; j++)
        dot += dout[j] * out[j];
    float d = (float)dot;
#pragma omp simd
    for (Py_ssize_t j = 0; j < n; j++)
        dx[j] = out[j] * (dout[j] - d);
}
