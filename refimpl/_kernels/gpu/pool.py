"""pool2d max and avg (adaptive too), forward and backward: RawKernels over NCHW, one
thread per output cell forward and one per input pixel backward (so no atomics). The
windows are the reference's: clipped to the input, or adaptive ([floor(i H / HO),
ceil((i+1) H / HO)), divided by their size); a max over no cells is -FLT_MAX; the average
divides by the clipped window (exclusive) or the window clipped to the padded input; max's
gradient goes to the first maximum of its window."""
import cupy

from ...geometry import flat_pads, pool_geometry
from .source import raw_per_dtype

__all__ = ["pool2d_forward", "pool2d_backward"]

_CODE = r"""
#define GEOMETRY int h, int w, int kh, int kw, int sh, int sw, int pt, int pb, int pl, \
                 int pr, int ho, int wo, bool is_max, bool exclusive, bool adaptive, long long n
template <typename T> __device__ void window(int i, int j, int h, int w, int kh, int kw,
    int sh, int sw, int pt, int pb, int pl, int pr, int ho, int wo, bool adaptive, int* r0,
    int* r1, int* c0, int* c1, int* full) {
  int a = i * sh - pt, b = min(a + kh, h + pb), c = j * sw - pl, d = min(c + kw, w + pr);
  if (adaptive) {
    a = i * h / ho; b = ((i + 1) * h + ho - 1) / ho;
    c = j * w / wo; d = ((j + 1) * w + wo - 1) / wo;
  }
  b = max(b, a); d = max(d, c);
  *full = (b - a) * (d - c);
  // a window wholly in the padding is empty (r1 == r0), never of negative size
  *r0 = max(a, 0); *r1 = max(min(b, h), *r0); *c0 = max(c, 0); *c1 = max(min(d, w), *c0);
}

template <typename T> __device__ void forward(const T* x, T* out, GEOMETRY) {
  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < n;
       t += (long long)blockDim.x * gridDim.x) {
    int j = t % wo, i = (t / wo) % ho;
    const T* plane = x + (t / ((long long)ho * wo)) * h * w;
    int r0, r1, c0, c1, full;
    window<T>(i, j, h, w, kh, kw, sh, sw, pt, pb, pl, pr, ho, wo, adaptive, &r0, &r1, &c0,
              &c1, &full);
    T acc = is_max ? (T)-3.402823466e38 : (T)0;
    for (int r = r0; r < r1; ++r)
      for (int c = c0; c < c1; ++c)
        acc = is_max ? max(acc, plane[r * w + c]) : acc + plane[r * w + c];
    if (!is_max) {
      int area = exclusive ? (r1 - r0) * (c1 - c0) : full;
      acc = area ? acc / (T)area : (T)nan("");
    }
    out[t] = acc;
  }
}

template <typename T> __device__ void backward(const T* x, const T* dout, T* dx, GEOMETRY) {
  // n: input pixels; each sums what the windows covering it send it
  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < n;
       t += (long long)blockDim.x * gridDim.x) {
    int xc = t % w, yr = (t / w) % h;
    long long plane_i = t / ((long long)h * w);
    const T* plane = x + plane_i * h * w;
    const T* g = dout + plane_i * ho * wo;
    T sum = 0;
    int i_lo = max(0, (yr + pt - kh + sh) / sh), i_hi = min(ho - 1, (yr + pt) / sh);
    int j_lo = max(0, (xc + pl - kw + sw) / sw), j_hi = min(wo - 1, (xc + pl) / sw);
    if (adaptive) {   // a superset of the windows holding (yr, xc); the test below picks
      i_lo = max(0, max(yr - 1, 0) * ho / h - 1); i_hi = min(ho - 1, (yr + 1) * ho / h + 1);
      j_lo = max(0, max(xc - 1, 0) * wo / w - 1); j_hi = min(wo - 1, (xc + 1) * wo / w + 1);
    }
    for (int i = i_lo; i <= i_hi; ++i)
      for (int j = j_lo; j <= j_hi; ++j) {
        int r0, r1, c0, c1, full;
        window<T>(i, j, h, w, kh, kw, sh, sw, pt, pb, pl, pr, ho, wo, adaptive, &r0, &r1,
                  &c0, &c1, &full);
        if (yr < r0 || yr >= r1 || xc < c0 || xc >= c1) continue;
        if (is_max) {   // the first maximum of the window, in row-major order
          int br = r0, bc = c0;
          for (int r = r0; r < r1; ++r)
            for (int c = c0; c < c1; ++c)
              if (plane[r * w + c] > plane[br * w + bc]) { br = r; bc = c; }
          if (br == yr && bc == xc) sum += g[i * wo + j];
        } else {
          int area = exclusive ? (r1 - r0) * (c1 - c0) : full;
          sum += g[i * wo + j] / (T)area;
        }
      }
    dx[t] = sum;
  }
}
#define ARGS h, w, kh, kw, sh, sw, pt, pb, pl, pr, ho, wo, is_max, exclusive, adaptive, n
extern "C" __global__ void refimpl_pool_forward_f(const float* x, float* out, GEOMETRY) {
  forward(x, out, ARGS); }
extern "C" __global__ void refimpl_pool_forward_d(const double* x, double* out, GEOMETRY) {
  forward(x, out, ARGS); }
extern "C" __global__ void refimpl_pool_backward_f(const float* x, const float* dout,
    float* dx, GEOMETRY) { backward(x, dout, dx, ARGS); }
extern "C" __global__ void refimpl_pool_backward_d(const double* x, const double* dout,
    double* dx, GEOMETRY) { backward(x, dout, dx, ARGS); }
"""
_KERNELS = {op: raw_per_dtype(_CODE, "refimpl_pool_" + op) for op in ("forward", "backward")}
_BLOCK = 256


def _geometry(x, ksize, strides, paddings, global_pooling, ceil_mode, adaptive,
              padding_algorithm):
    k, s, pads, (ho, wo) = pool_geometry(x.shape[2:], ksize, strides, paddings,
                                         global_pooling, ceil_mode, adaptive, padding_algorithm)
    return [x.shape[2], x.shape[3], k[0], k[1], s[0], s[1]] + flat_pads(pads) + [ho, wo]


def _launch(op, args, geometry, pooling_type, exclusive, adaptive, n):
    grid = max(min((n + _BLOCK - 1) // _BLOCK, 65535), 1)
    _KERNELS[op][args[0].dtype.name]((grid,), (_BLOCK,), tuple(args) + tuple(
        cupy.int32(g) for g in geometry) + (cupy.bool_(pooling_type == "max"),
                                            cupy.bool_(exclusive or adaptive),
                                            cupy.bool_(adaptive), cupy.int64(n)))


def _nchw(a, data_format):
    return cupy.ascontiguousarray(a.transpose(0, 3, 1, 2) if data_format == "NHWC" else a)


def _back(a, data_format):
    return cupy.ascontiguousarray(a.transpose(0, 2, 3, 1)) if data_format == "NHWC" else a


def pool2d_forward(x, pooling_type="max", ksize=(2, 2), strides=(1, 1), paddings=(0, 0),
                   global_pooling=False, ceil_mode=False, exclusive=True, adaptive=False,
                   padding_algorithm="EXPLICIT", data_format="NCHW", use_cudnn=False):
    x = _nchw(x, data_format)
    geometry = _geometry(x, ksize, strides, paddings, global_pooling, ceil_mode, adaptive,
                         padding_algorithm)
    out = cupy.empty(x.shape[:2] + tuple(geometry[-2:]), x.dtype)
    _launch("forward", (x, out), geometry, pooling_type, exclusive, adaptive, out.size)
    return _back(out, data_format)


def pool2d_backward(x, out, dout, pooling_type="max", ksize=(2, 2), strides=(1, 1),
                    paddings=(0, 0), global_pooling=False, ceil_mode=False, exclusive=True,
                    adaptive=False, padding_algorithm="EXPLICIT", data_format="NCHW",
                    use_cudnn=False):
    x, dout = _nchw(x, data_format), _nchw(dout, data_format)
    geometry = _geometry(x, ksize, strides, paddings, global_pooling, ceil_mode, adaptive,
                         padding_algorithm)
    dx = cupy.empty_like(x)
    _launch("backward", (x, dout, dx), geometry, pooling_type, exclusive, adaptive, dx.size)
    return _back(dx, data_format)
