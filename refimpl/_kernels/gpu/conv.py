"""conv2d (and depthwise_conv2d) as im2col + GEMM over the whole batch: a RawKernel gathers
every image's windows into one column matrix [C * KH * KW, N * HO * WO] (rows grouped by
channel group), cuBLAS multiplies each group's filter by its rows (one GEMM, or one batched
GEMM over groups); the backward forms dFilter as dY @ columns^T and scatters dColumns back
to dX with col2im (one thread per input pixel, no atomics). NHWC inputs are transposed to
NCHW around the same path. A launch per layer, not per image: launches, not FLOPs, bound a
small batch's step on a GPU."""
import cupy

from ...geometry import conv_out_size, explicit_pads
from .source import raw_per_dtype

__all__ = ["conv2d_forward", "conv2d_backward"]

_CODE = r"""
template <typename T>
__device__ void im2col(const T* x, T* cols, int images, int c, int h, int w, int kh, int kw,
                       int sh, int sw, int ph, int pw, int dh, int dw, int ho, int wo) {
  // one thread per column element: row (ci, ki, kj), column (image, oi, oj)
  long long hw = (long long)ho * wo;
  long long n = (long long)c * kh * kw * images * hw;
  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < n;
       t += (long long)blockDim.x * gridDim.x) {
    long long p = t % hw, rest = t / hw;
    int oj = p % wo, oi = p / wo, img = rest % images;
    long long row = rest / images;
    int kj = row % kw, ki = (row / kw) % kh, ci = row / ((long long)kw * kh);
    int r = oi * sh - ph + ki * dh, col = oj * sw - pw + kj * dw;
    cols[t] = (r >= 0 && r < h && col >= 0 && col < w)
        ? x[(((long long)img * c + ci) * h + r) * w + col] : (T)0;
  }
}

template <typename T>
__device__ void col2im(const T* cols, T* dx, int images, int c, int h, int w, int kh, int kw,
                       int sh, int sw, int ph, int pw, int dh, int dw, int ho, int wo) {
  // one thread per input pixel: the sum over every (window, tap) that read it
  long long hw = (long long)ho * wo;
  long long n = (long long)images * c * h * w;
  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < n;
       t += (long long)blockDim.x * gridDim.x) {
    int x0 = t % w, y0 = (t / w) % h;
    long long plane = t / ((long long)w * h);
    int ci = plane % c, img = plane / c;
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
        long long row = ((long long)ci * kh + ki) * kw + kj;
        sum += cols[(row * images + img) * hw + (long long)oi * wo + oj];
      }
    }
    dx[t] = sum;
  }
}

#define GEOMETRY int images, int c, int h, int w, int kh, int kw, int sh, int sw, int ph, \
                 int pw, int dh, int dw, int ho, int wo
#define ARGS images, c, h, w, kh, kw, sh, sw, ph, pw, dh, dw, ho, wo
extern "C" __global__ void refimpl_im2col_f(const float* x, float* cols, GEOMETRY) {
  im2col(x, cols, ARGS); }
extern "C" __global__ void refimpl_im2col_d(const double* x, double* cols, GEOMETRY) {
  im2col(x, cols, ARGS); }
extern "C" __global__ void refimpl_col2im_f(const float* cols, float* dx, GEOMETRY) {
  col2im(cols, dx, ARGS); }
extern "C" __global__ void refimpl_col2im_d(const double* cols, double* dx, GEOMETRY) {
  col2im(cols, dx, ARGS); }
"""
_KERNELS = {op: raw_per_dtype(_CODE, "refimpl_" + op) for op in ("im2col", "col2im")}
_BLOCK = 256


def _launch(op, src, dst, geometry):
    grid = max(min((dst.size + _BLOCK - 1) // _BLOCK, 65535), 1)
    _KERNELS[op][src.dtype.name]((grid,), (_BLOCK,), (src, dst) + tuple(
        cupy.int32(g) for g in geometry))


class _Conv:
    """The geometry of one conv2d call, channels first."""

    def __init__(self, x, f, strides, paddings, padding_algorithm, dilations, groups):
        self.n, self.c, self.h, self.w = x.shape
        self.m, _, self.kh, self.kw = f.shape
        self.groups = groups or 1
        (ph, _), (pw, _) = pads = explicit_pads(paddings, padding_algorithm, (self.h, self.w),
                                                (self.kh, self.kw), strides, dilations)
        self.ho, self.wo = (conv_out_size(s, k, st, lo, hi, d) for s, k, st, (lo, hi), d in
                            zip((self.h, self.w), (self.kh, self.kw), strides, pads, dilations))
        self.geometry = (self.n, self.c, self.h, self.w, self.kh, self.kw, strides[0],
                         strides[1], ph, pw, dilations[0], dilations[1], self.ho, self.wo)
        self.taps = self.c // self.groups * self.kh * self.kw    # rows per group

    def columns(self, x):
        """[groups, taps, N * HO * WO]: each group's rows of the batch's column matrix."""
        cols = cupy.empty((self.groups, self.taps, self.n * self.ho * self.wo), x.dtype)
        _launch("im2col", cupy.ascontiguousarray(x), cols, self.geometry)
        return cols

    def filters(self, f):
        return f.reshape(self.groups, self.m // self.groups, self.taps)

    def to_images(self, rows):
        """[groups, M / groups, N * HO * WO] -> [N, M, HO, WO]."""
        return cupy.ascontiguousarray(
            rows.reshape(self.m, self.n, self.ho * self.wo).transpose(1, 0, 2)).reshape(
            self.n, self.m, self.ho, self.wo)

    def to_rows(self, images):
        """[N, M, HO, WO] -> [groups, M / groups, N * HO * WO]."""
        return cupy.ascontiguousarray(
            images.reshape(self.n, self.m, self.ho * self.wo).transpose(1, 0, 2)).reshape(
            self.groups, self.m // self.groups, -1)


def _gemm(a, b):
    """a @ b per group: one GEMM for a single group, one batched GEMM otherwise."""
    if a.shape[0] == 1:
        return cupy.matmul(a[0], b[0])[None]
    return cupy.matmul(a, b)


def _channels_first(a, data_format):
    return a.transpose(0, 3, 1, 2) if data_format == "NHWC" else a


def _channels_last(a, data_format):
    return cupy.ascontiguousarray(a.transpose(0, 2, 3, 1)) if data_format == "NHWC" else a


def conv2d_forward(x, f, strides=(1, 1), paddings=(0, 0), padding_algorithm="EXPLICIT",
                   dilations=(1, 1), groups=1, data_format="NCHW", **_unused):
    x_cf = _channels_first(x, data_format)
    g = _Conv(x_cf, f, strides, paddings, padding_algorithm, dilations, groups)
    out = g.to_images(_gemm(g.filters(f), g.columns(x_cf)))
    return _channels_last(out, data_format)


def conv2d_backward(x, f, dy, strides=(1, 1), paddings=(0, 0), padding_algorithm="EXPLICIT",
                    dilations=(1, 1), groups=1, data_format="NCHW", need=(True, True),
                    **_unused):
    x_cf, dy_cf = _channels_first(x, data_format), _channels_first(dy, data_format)
    g = _Conv(x_cf, f, strides, paddings, padding_algorithm, dilations, groups)
    d = g.to_rows(dy_cf)
    dx = df = None
    if need[1]:
        df = _gemm(d, g.columns(x_cf).transpose(0, 2, 1)).reshape(f.shape)
    if need[0]:
        dcols = cupy.ascontiguousarray(_gemm(g.filters(f).transpose(0, 2, 1), d))
        dx = cupy.empty((g.n, g.c, g.h, g.w), x.dtype)
        _launch("col2im", dcols, dx, g.geometry)
        dx = _channels_last(dx, data_format)
    return dx, df
