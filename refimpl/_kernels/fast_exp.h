/* A vectorizable float exp, and the softmax rows and LSTM cell built on it: branch-free, so
   that the loops (omp simd, see simd.h) vectorize (numpy's float32 exp measured ~1.5 ns per
   element here, a third of the LSTM LM's softmax-CE forward). The
   polynomial is Cephes' expf: after x = n ln2 + r, |r| <= ln2/2, the error is about 1 ulp.
   Below -87.3 (where expf turns subnormal) the result is 0, above 88.7 inf; NaN stays NaN.
   simd.h: the AVX2 copies. */
#include <string.h>
#include <stdint.h>

#include "simd.h"

static inline float refimpl_expf(float x)
{
    const float lo = -87.33654f, hi = 88.72283f;
    float c = x < lo ? lo : (x > hi ? hi : x);
    /* round to nearest by the 1.5 * 2^23 trick (floorf would not vectorize on SSE2) */
    float n = (c * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
    float r = c - n * 0.693359375f;
    r = r - n * -2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    int32_t bits = ((int32_t)n + 127) << 23;
    float scale;
    memcpy(&scale, &bits, sizeof scale);
    float y = p * scale;
    y = x < lo ? 0.0f : y;
    return x > hi ? (float)INFINITY : y;
}

/* Paddle's softmax clips x - max(x) at -64 before exp (refimpl/ops/activation.py) */
#define REFIMPL_SOFTMAX_SHIFT_FLOOR (-64.0f)

/* out[j] = exp(max(in[j] - shift, -64)) for j < n; returns their sum (in double) */
REFIMPL_SIMD_CLONES
static double refimpl_exp_shifted_sum_f(const float *in, float *out, float shift, Py_ssize_t n)
{
    float total = 0.0f;   /* SIMD lanes (omp simd may reorder the sum) */
    double sum = 0.0;
    Py_ssize_t j = 0;
    while (j < n) {   /* float partial sums over chunks of 1024, accumulated in double */
        Py_ssize_t end = n - j > 1024 ? j + 1024 : n;
        total = 0.0f;
#pragma omp simd reduction(+:total)
        for (Py_ssize_t i = j; i < end; i++) {
            float d = in[i] - shift;
            float e = refimpl_expf(d < REFIMPL_SOFTMAX_SHIFT_FLOOR ? REFIMPL_SOFTMAX_SHIFT_FLOOR : d);
            out[i] = e;
            total += e;
        }
        sum += total;
        j = end;
    }
    return sum;
}

/* out[j] = in[j] * scale */
REFIMPL_SIMD_CLONES
static void refimpl_scale_f(float *a, float scale, Py_ssize_t n)
{
#pragma omp simd
    for (Py_ssize_t j = 0; j < n; j++)
        a[j] *= scale;
}

/* max of in[0..n) (n >= 1); NaN if any is NaN, like numpy's max */
REFIMPL_SIMD_CLONES
static float refimpl_max_f(const float *in, Py_ssize_t n)
{
    float m = in[0];
    int nan = 0;
#pragma omp simd reduction(max:m) reduction(|:nan)
    for (Py_ssize_t j = 0; j < n; j++) {
        m = in[j] > m ? in[j] : m;
        nan |= in[j] != in[j];
    }
    return nan ? (float)NAN : m;
}

static inline float refimpl_sigmoidf(float x)
{
    return 1.0f / (1.0f + refimpl_expf(-x));
}

/* tanh = 1 - 2 / (exp(2x) + 1): +-1 at the ends, within ~1e-7 of tanh near 0 */
static inline float refimpl_tanhf(float x)
{
    return 1.0f - 2.0f / (refimpl_expf(2.0f * x) + 1.0f);
}

/* One LSTM step's cell for one batch row (the rnn op's formulas, refimpl/ops/rnn.py):
   gate sums xw + hw [4H] in the order i f g o; writes the record row [6H]: the activated
   gates, c' = f c + i g and h' = o tanh(c'). */
REFIMPL_SIMD_CLONES
static void refimpl_lstm_row_f(const float *restrict xw, const float *restrict hw,
                               const float *restrict c, float *restrict rec, Py_ssize_t hidden)
{
    const Py_ssize_t H = hidden;
#pragma omp simd
    for (Py_ssize_t k = 0; k < H; k++) {
        float gi = refimpl_sigmoidf(xw[k] + hw[k]);
        float gf = refimpl_sigmoidf(xw[k + H] + hw[k + H]);
        float gg = refimpl_tanhf(xw[k + 2 * H] + hw[k + 2 * H]);
        float go = refimpl_sigmoidf(xw[k + 3 * H] + hw[k + 3 * H]);
        float cn = gf * c[k] + gi * gg;
        rec[k] = gi;
        rec[k + H] = gf;
        rec[k + 2 * H] = gg;
        rec[k + 3 * H] = go;
        rec[k + 4 * H] = cn;
        rec[k + 5 * H] = go * refimpl_tanhf(cn);
    }
}

/* Back through refimpl_lstm_row_f for one batch row, from dh (into h') and dc (carried
   into c'): the gate sums' grads [4H] and the dc carried to the step before. */
REFIMPL_SIMD_CLONES
static void refimpl_lstm_grad_row_f(const float *restrict rec, const float *restrict c_prev,
                                    const float *restrict dh, const float *restrict dc,
                                    float *restrict grads, float *restrict dc_out,
                                    Py_ssize_t hidden)
{
    const Py_ssize_t H = hidden;
#pragma omp simd
    for (Py_ssize_t k = 0; k < H; k++) {
        float gi = rec[k], gf = rec[k + H], gg = rec[k + 2 * H], go = rec[k + 3 * H];
        float tc = refimpl_tanhf(rec[k + 4 * H]);
        float dcn = dh[k] * go * (1.0f - tc * tc) + dc[k];
        grads[k] = dcn * gg * gi * (1.0f - gi);
        grads[k + H] = dcn * c_prev[k] * gf * (1.0f - gf);
        grads[k + 2 * H] = dcn * gi * (1.0f - gg * gg);
        grads[k + 3 * H] = dh[k] * tc * go * (1.0f - go);
        dc_out[k] = dcn * gf;
    }
}
