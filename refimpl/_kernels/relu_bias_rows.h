/* relu_grad and the bias gradient of fc's relu(x + b) in one pass over rows of n values:
   dx = d * (out > 0) (the relu_grad kernel's product), each row's dx added to acc[0:n] in
   double (the elementwise_add_grad kernel's sums). Built for AVX2 too (simd.h): the
   float-to-double widening of the sums left the baseline SSE2 loop slower than the two
   kernels' separate passes. */
#ifndef REFIMPL_RELU_BIAS_ROWS_H
#define REFIMPL_RELU_BIAS_ROWS_H
#include <stddef.h>
#include "simd.h"

#define REFIMPL_RELU_BIAS_ROWS(name, real)                                               \
REFIMPL_SIMD_CLONES                                                                       \
static void name(const real* out, const real* d, real* dx, double* acc, ptrdiff_t rows,   \
                 ptrdiff_t n) {                                                           \
    for (ptrdiff_t i = 0; i < rows; i++) {                                                \
        _Pragma("omp simd")                                                               \
        for (ptrdiff_t j = 0; j < n; j++) {                                               \
            real v = d[j] * (real)(out[j] > 0);                                           \
            dx[j] = v;                                                                    \
            acc[j] += (double)v;                                                          \
        }                                                                                 \
        out += n;                                                                         \
        d += n;                                                                           \
        dx += n;                                                                          \
    }                                                                                     \
}

REFIMPL_RELU_BIAS_ROWS(relu_bias_rows_f32, float)
REFIMPL_RELU_BIAS_ROWS(relu_bias_rows_f64, double)

#endif
