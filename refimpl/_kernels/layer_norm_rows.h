/* layer_norm's float32 rows (layer_norm.pyx): the row sums in double over SIMD lanes, the
   element-wise passes in float, as the reference computes them. */
#include "simd.h"

/* mean and biased variance of x[0..n), two passes (the row is in cache for the second) */
REFIMPL_SIMD_CLONES
static void refimpl_row_moments_f(const float *x, Py_ssize_t n, double *mean, double *var)
{
    double s = 0.0, v = 0.0, m;
#pragma omp simd reduction(+:s)
    for (Py_ssize_t j = 0; j < n; j++)
        s += x[j];
    m = s / (double)n;
#pragma omp simd reduction(+:v)
    for (Py_ssize_t j = 0; j < n; j++) {
        double d = x[j] - m;
        v += d * d;
    }
    *mean = m;
    *var = v / (double)n;
}

/* y = (x - mean) * inv_std * scale + bias */
REFIMPL_SIMD_CLONES
static void refimpl_row_normalize_f(const float *restrict x, const float *restrict scale,
                                    const float *restrict bias, float *restrict y,
                                    Py_ssize_t n, float mean, float inv_std)
{
#pragma omp simd
    for (Py_ssize_t j = 0; j < n; j++)
        y[j] = (x[j] - mean) * inv_std * scale[j] + bias[j];
}

/* dx of one row from dy (g = dy * scale), and the row's dy * xhat, dy added to the column
   sums dscale, dbias */
REFIMPL_SIMD_CLONES
static void refimpl_row_grad_f(const float *restrict x, const float *restrict scale,
                               const float *restrict dy, float *restrict dx,
                               double *restrict dscale, double *restrict dbias,
                               Py_ssize_t n, float mean, float inv_std)
{
    double sum_g = 0.0, sum_gx = 0.0;
#pragma omp simd reduction(+:sum_g, sum_gx)
    for (Py_ssize_t j = 0; j < n; j++) {
        float xhat = (x[j] - mean) * inv_std, g = dy[j] * scale[j];
        sum_g += g;
        sum_gx += g * xhat;
        dscale[j] += dy[j] * xhat;
        dbias[j] += dy[j];
    }
    float a = inv_std / (float)n, sg = (float)sum_g, sgx = (float)sum_gx;
#pragma omp simd
    for (Py_ssize_t j = 0; j < n; j++) {
        float xhat = (x[j] - mean) * inv_std;
        dx[j] = a * ((float)n * dy[j] * scale[j] - sg - xhat * sgx);
    }
}
