"""softmax over the last axis, one block per row. Forward: the row's max (NaN wins, as
numpy's), then exp(max(x - max, -64)) (the reference's clipped shift, ops/activation.py)
written out and summed, then the row divided by the sum. Backward: the row's
sum(dout * out), then dx = out * (dout - sum). Sums in double, element-wise work in the
data's type. Where the reference is four or five CuPy passes a row kernel is one launch.
Other axes, empty or non-float inputs run the reference (a factory: the table's
falls_back)."""
import cupy

from .source import BLOCK_REDUCE, raw_per_dtype, row_block

__all__ = ["softmax_forward", "softmax_backward"]

_CODE = BLOCK_REDUCE + r"""
#define SHIFT_FLOOR -64.0
// row blockIdx.x of x [rows, cols], cols >= 1
template <typename T> __device__ void forward(const T* x, T* out, long long cols) {
  __shared__ double shared[MAX_ROW_BLOCK];
  long long row = blockIdx.x;
  const T* xr = x + row * cols;
  T* o = out + row * cols;
  double m = (double)xr[0];
  for (long long j = threadIdx.x; j < cols; j += blockDim.x) m = nan_max((double)xr[j], m);
  T mt = (T)block_reduce(m, shared, true);
  double s = 0;
  for (long long j = threadIdx.x; j < cols; j += blockDim.x) {
    T d = xr[j] - mt;
    T e = exp(d < (T)SHIFT_FLOOR ? (T)SHIFT_FLOOR : d);    // (NaN stays NaN)
    o[j] = e;
    s += (double)e;
  }
  T st = (T)block_reduce(s, shared, false);
  // each thread divides the elements it wrote itself: no barrier needed before
  for (long long j = threadIdx.x; j < cols; j += blockDim.x) o[j] = o[j] / st;
}

template <typename T> __device__ void backward(const T* out, const T* dout, T* dx,
                                               long long cols) {
  __shared__ double shared[MAX_ROW_BLOCK];
  long long row = blockIdx.x;
  const T* o = out + row * cols;
  const T* d = dout + row * cols;
  T* g = dx + row * cols;
  double s = 0;
  for (long long j = threadIdx.x; j < cols; j += blockDim.x) s += (double)(d[j] * o[j]);
  T st = (T)block_reduce(s, shared, false);
  for (long long j = threadIdx.x; j < cols; j += blockDim.x) g[j] = o[j] * (d[j] - st);
}

extern "C" __global__ void refimpl_softmax_f(const float* x, float* out, long long cols) {
  forward(x, out, cols); }
extern "C" __global__ void refimpl_softmax_d(const double* x, double* out, long long cols) {
  forward(x, out, cols); }
extern "C" __global__ void refimpl_softmax_grad_f(const float* out, const float* dout,
                                                  float* dx, long long cols) {
  backward(out, dout, dx, cols); }
extern "C" __global__ void refimpl_softmax_grad_d(const double* out, const double* dout,
                                                  double* dx, long long cols) {
  backward(out, dout, dx, cols); }
"""
_FORWARD = raw_per_dtype(_CODE, "refimpl_softmax")
_BACKWARD = raw_per_dtype(_CODE, "refimpl_softmax_grad")


def _last_axis_rows(a, axis):
    """Whether the kernels take `a` with this axis: the last one, float, not empty."""
    return a.dtype.name in _FORWARD and a.size > 0 and axis in (-1, a.ndim - 1)


def _launch(kernel, arrays, cols):
    rows = arrays[0].size // cols
    out = cupy.empty_like(arrays[0])
    kernel[arrays[0].dtype.name]((rows,), (row_block(cols),), tuple(arrays) + (
        out, cupy.int64(cols)))
    return out


def softmax_forward(reference):
    def forward(x, axis=-1):
        if not _last_axis_rows(x, axis):
            return reference(x, axis)
        return _launch(_FORWARD, [cupy.ascontiguousarray(x)], x.shape[-1])
    forward.__wrapped__ = reference
    return forward


def softmax_backward(reference):
    def backward(out, dout, axis=-1):
        if not _last_axis_rows(out, axis):
            return reference(out, dout, axis)
        return _launch(_BACKWARD, [cupy.ascontiguousarray(out),
                                   cupy.ascontiguousarray(dout, dtype=out.dtype)],
                       out.shape[-1])
    backward.__wrapped__ = reference
    return backward
