"""conv2d (and depthwise_conv2d) as im2col + GEMM: a RawKernel gathers each image's
windows into columns [C/groups * KH * KW, HO * WO], cuBLAS multiplies them by the filter; the
backward scatters dX back with col2im (one thread per input pixel, no atomics) and forms
dFilter as dY @ columns^T. NHWC inputs are transposed to NCHW around the same path."""
import cupy

from ...geometry import conv_dilations, conv_out_size, explicit_pads
from .source import raw

__all__ = ["conv2d_forward", "conv2d_backward"]

_CODE = r"""
template <typename T>
__device__ void im2col(const T* x, T* cols, int c, int h, int w, int kh, int kw, int sh,
                       int sw, int ph, int pw, int dh, int dw, int ho, int wo) {
  // one thread per column element: row (ci, ki, kj), column (oi, oj)
  long long n = (long long)c * kh * kw * ho * wo;
  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < n;
       t += (long long)blockDim.x * gridDim.x) {
    int oj = t % wo, oi = (t / wo) % ho;
    long long row = t / ((long long)ho * wo);
    int kj = row % kw, ki = (row / kw) % kh, ci = row / ((long long)kw * kh);
    int r = oi * sh - ph + ki * dh, col = oj * sw - pw + kj * dw;
    cols[t] = (r >= 0 && r < h && col >= 0 && col < w) ? x[((long long)ci * h + r) * w + col]
                                                       : (T)0;
  }
}

template <typename T>
__device__ void col2im(const T* cols, T* dx, int c, int h, int w, int kh, int kw, int sh,
                       int sw, int ph, int pw, int dh, int dw, int ho, int wo) {
  // one thread per input pixel: the sum over every (window, tap) that read it
  long long n = (long long)c * h * w;
  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < n;
       t += (long long)blockDim.x * gridDim.x) {
    int x0 = t % w, y0 = (t / w) % h, ci = t / ((long long)w * h);
    T sum = 0;
    for (int ki = 0; ki < kh; ++ki) {
      int ry = y0 + ph - ki * dh;
      if (ry < 0 || ry % sh) continue;
      int oi = ry / sh;
      if (oi >= ho) continue;
      for (int kj = 0; kj < kw; ++kj) {
        int rx = x0 + pw - kj * dw;
        if (rx < 0 || rx % sw) continue;
        int oj = rx / sw;
        if (oj >= wo) continue;
        sum += cols[(((long long)ci * kh + ki) * kw + kj) * ho * wo + (long long)oi * wo + oj];
      }
    }
    dx[t] = sum;
  }
}

#define GEOMETRY int c, int h, int w, int kh, int kw, int sh, int sw, int ph, int pw, \
                 int dh, int dw, int ho, int wo
#define ARGS c, h, w, kh, kw, sh, sw, ph, pw, dh, dw, ho, wo
extern "C" __global__ void refimpl_im2col_f(const float* x, float* cols, GEOMETRY) {
  im2col(x, cols, ARGS); }
extern "C" __global__ void refimpl_im2col_d(const double* x, double* cols, GEOMETRY) {
  im2col(x, cols, ARGS); }
extern "C" __global__ void refimpl_col2im_f(const float* cols, float* dx, GEOMETRY) {
  col2im(cols, dx, ARGS); }
extern "C" __global__ void refimpl_col2im_d(const double* cols, double* dx, GEOMETRY) {
  col2im(cols, dx, ARGS); }
"""
_KERNELS = {(op, dtype): raw(_CODE, "refimpl_%s_%s" % (op, dtype[0]))
            for op in ("im2col", "col2im") for dtype in ("float32", "float64")}
_BLOCK = 256


def _launch(op, src, dst, geometry):
    n = dst.size
    grid = min((n + _BLOCK - 1) // _BLOCK, 65535)
    _KERNELS[(op, src.dtype.name)]((grid,), (_BLOCK,), (src, dst) + tuple(
        cupy.int32(g) for g in geometry))


class _Conv:
    """The geometry of one conv2d call, channels first."""

    def __init__(self, x, f, strides, paddings, padding_algorithm, dilations, groups):
        dilations = conv_dilations(padding_algorithm, dilations)
        self.n, self.c, self.h, self.w = x.shape
        self.m, _, self.kh, self.kw = f.shape
        self.groups = groups or 1
        (ph, _), (pw, _) = pads = explicit_pads(paddings, padding_algorithm, (self.h, self.w),
                                                (self.kh, self.kw), strides, dilations)
        self.ho, self.wo = (conv_out_size(s, k, st, lo, hi, d) for s, k, st, (lo, hi), d in
                            zip((self.h, self.w), (self.kh, self.kw), strides, pads, dilations))
        self.geometry = (self.c // self.groups, self.h, self.w, self.kh, self.kw,
                         strides[0], strides[1], ph, pw, dilations[0], dilations[1], self.ho,
                         self.wo)

    def columns(self, image_group, dtype):
        cg = self.c // self.groups
        cols = cupy.empty((cg * self.kh * self.kw, self.ho * self.wo), dtype)
        _launch("im2col", cupy.ascontiguousarray(image_group), cols, self.geometry)
        return cols


def _channels_first(a, data_format):
    return a.transpose(0, 3, 1, 2) if data_format == "NHWC" else a


def _channels_last(a, data_format):
    return cupy.ascontiguousarray(a.transpose(0, 2, 3, 1)) if data_format == "NHWC" else a


def conv2d_forward(x, f, strides=(1, 1), paddings=(0, 0), padding_algorithm="EXPLICIT",
                   dilations=(1, 1), groups=1, data_format="NCHW", **_unused):
    x_cf = _channels_first(x, data_format)
    g = _Conv(x_cf, f, strides, paddings, padding_algorithm, dilations, groups)
    cg, mg = g.c // g.groups, g.m // g.groups
    out = cupy.empty((g.n, g.m, g.ho * g.wo), x.dtype)
    w = f.reshape(g.groups, mg, -1)
    for i in range(g.n):
        for k in range(g.groups):
            cols = g.columns(x_cf[i, k * cg:(k + 1) * cg], x.dtype)
            cupy.matmul(w[k], cols, out=out[i, k * mg:(k + 1) * mg])
    return _channels_last(out.reshape(g.n, g.m, g.ho, g.wo), data_format)


def conv2d_backward(x, f, dy, strides=(1, 1), paddings=(0, 0), padding_algorithm="EXPLICIT",
                    dilations=(1, 1), groups=1, data_format="NCHW", need=(True, True),
                    **_unused):
    x_cf, dy_cf = _channels_first(x, data_format), _channels_first(dy, data_format)
    g = _Conv(x_cf, f, strides, paddings, padding_algorithm, dilations, groups)
    cg, mg = g.c // g.groups, g.m // g.groups
    w = f.reshape(g.groups, mg, -1)
    d = cupy.ascontiguousarray(dy_cf).reshape(g.n, g.groups, mg, -1)
    dx = cupy.empty((g.n, g.c, g.h, g.w), x.dtype) if need[0] else None
    df = cupy.zeros_like(w) if need[1] else None
    for i in range(g.n):
        for k in range(g.groups):
            if need[1]:
                cols = g.columns(x_cf[i, k * cg:(k + 1) * cg], x.dtype)
                df[k] += cupy.matmul(d[i, k], cols.T)
            if need[0]:
                dcols = cupy.matmul(w[k].T, d[i, k])
                part = cupy.empty((cg, g.h, g.w), x.dtype)
                _launch("col2im", dcols, part, g.geometry)
                dx[i, k * cg:(k + 1) * cg] = part
    return (_channels_last(dx, data_format) if need[0] else None,
            df.reshape(f.shape) if need[1] else None)
