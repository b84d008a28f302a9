"""layer_norm on rows of X flattened to [rows, cols] (cols: the dims from begin_norm_axis).
Forward: one block per row: the row's mean, then its biased variance from the mean (two
passes over the row, as numpy's var; sums in double), then Y = (x - mean) / sqrt(var + eps)
* scale + bias. Backward: one block per row forms dX from the row's sums of g = dy * scale
and g * xhat; dScale and dBias, sums over rows, are a column kernel (a warp's threads on
consecutive columns, 8 row strides per block, the rows cut into chunks so that enough
blocks run) writing each chunk's double partial sums, and a last kernel adding the chunks.
Formulas as refimpl/ops/layer_norm.py; the element-wise passes in X's type with the row's
mean and variance rounded to it, as the reference computes them. Where the reference is
several CuPy passes (mean, var, subtract, divide, scale, bias; backward a dozen) these are
one launch forward and three backward."""
import cupy

from .source import BLOCK_REDUCE, raw_per_dtype, row_block

__all__ = ["layer_norm_forward", "layer_norm_backward"]

_CODE = BLOCK_REDUCE + r"""
// row blockIdx.x of x [rows, cols]; scale / bias read only when has_scale / has_bias
template <typename T> __device__ void forward(const T* x, const T* scale, const T* bias,
    T* y, T* mean, T* var, long long cols, double epsilon, int has_scale, int has_bias) {
  __shared__ double shared[MAX_ROW_BLOCK];
  long long row = blockIdx.x;
  const T* xr = x + row * cols;
  T* yr = y + row * cols;
  double s = 0;
  for (long long j = threadIdx.x; j < cols; j += blockDim.x) s += (double)xr[j];
  double m = block_reduce(s, shared, false) / (double)cols;
  double q = 0;
  for (long long j = threadIdx.x; j < cols; j += blockDim.x) {
    double d = (double)xr[j] - m;
    q += d * d;
  }
  T mt = (T)m, vt = (T)(block_reduce(q, shared, false) / (double)cols);
  T sd = sqrt(vt + (T)epsilon);
  for (long long j = threadIdx.x; j < cols; j += blockDim.x) {
    T h = (xr[j] - mt) / sd;
    if (has_scale) h = h * scale[j];
    if (has_bias) h = h + bias[j];
    yr[j] = h;
  }
  if (threadIdx.x == 0) { mean[row] = mt; var[row] = vt; }
}

// dX of row blockIdx.x: inv / n * (n * g - sum(g) - xhat * sum(g * xhat)), g = dy * scale
template <typename T> __device__ void input_grad(const T* x, const T* scale, const T* mean,
    const T* var, const T* dy, T* dx, long long cols, double epsilon, int has_scale) {
  __shared__ double shared[MAX_ROW_BLOCK];
  long long row = blockIdx.x;
  const T* xr = x + row * cols;
  const T* dyr = dy + row * cols;
  T* dxr = dx + row * cols;
  T mt = mean[row], inv = (T)1 / sqrt(var[row] + (T)epsilon);
  double sg = 0, sgx = 0;
  for (long long j = threadIdx.x; j < cols; j += blockDim.x) {
    T g = has_scale ? dyr[j] * scale[j] : dyr[j];
    sg += (double)g;
    sgx += (double)(g * ((xr[j] - mt) * inv));
  }
  T sum_g = (T)block_reduce(sg, shared, false), sum_gx = (T)block_reduce(sgx, shared, false);
  T n = (T)cols, a = inv / n;
  for (long long j = threadIdx.x; j < cols; j += blockDim.x) {
    T g = has_scale ? dyr[j] * scale[j] : dyr[j];
    dxr[j] = a * (n * g - sum_g - (xr[j] - mt) * inv * sum_gx);
  }
}

// Block (32, COLUMN_ROWS): column blockIdx.x * 32 + threadIdx.x, the rows of chunk
// blockIdx.y strided by COLUMN_ROWS; partial[chunk][0][col] = sum of dy * xhat,
// partial[chunk][1][col] = sum of dy over the chunk's rows.
#define COLUMN_ROWS 8
template <typename T> __device__ void column_sums(const T* x, const T* mean, const T* var,
    const T* dy, double* partial, long long rows, long long cols, long long chunk_rows,
    double epsilon) {
  __shared__ double sums[2][COLUMN_ROWS][32];
  long long col = blockIdx.x * 32LL + threadIdx.x;
  long long lo = blockIdx.y * chunk_rows, hi = min(rows, lo + chunk_rows);
  double a = 0, b = 0;
  if (col < cols) {
    for (long long r = lo + threadIdx.y; r < hi; r += COLUMN_ROWS) {
      T d = dy[r * cols + col];
      T xhat = (x[r * cols + col] - mean[r]) * ((T)1 / sqrt(var[r] + (T)epsilon));
      a += (double)(d * xhat);
      b += (double)d;
    }
  }
  sums[0][threadIdx.y][threadIdx.x] = a;
  sums[1][threadIdx.y][threadIdx.x] = b;
  __syncthreads();
  if (threadIdx.y == 0 && col < cols) {
    for (int k = 1; k < COLUMN_ROWS; ++k) {
      a += sums[0][k][threadIdx.x];
      b += sums[1][k][threadIdx.x];
    }
    partial[2 * blockIdx.y * cols + col] = a;
    partial[(2 * blockIdx.y + 1) * cols + col] = b;
  }
}

// one thread per column: the chunks' partial sums added up
template <typename T> __device__ void finish_sums(T* dscale, T* dbias, const double* partial,
                                                  long long chunks, long long cols) {
  long long col = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (col >= cols) return;
  double a = 0, b = 0;
  for (long long k = 0; k < chunks; ++k) {
    a += partial[2 * k * cols + col];
    b += partial[(2 * k + 1) * cols + col];
  }
  dscale[col] = (T)a;
  dbias[col] = (T)b;
}

extern "C" __global__ void refimpl_layer_norm_f(const float* x, const float* scale,
    const float* bias, float* y, float* mean, float* var, long long cols, double epsilon,
    int has_scale, int has_bias) {
  forward(x, scale, bias, y, mean, var, cols, epsilon, has_scale, has_bias); }
extern "C" __global__ void refimpl_layer_norm_d(const double* x, const double* scale,
    const double* bias, double* y, double* mean, double* var, long long cols, double epsilon,
    int has_scale, int has_bias) {
  forward(x, scale, bias, y, mean, var, cols, epsilon, has_scale, has_bias); }
extern "C" __global__ void refimpl_layer_norm_input_grad_f(const float* x,
    const float* scale, const float* mean, const float* var, const float* dy, float* dx,
    long long cols, double epsilon, int has_scale) {
  input_grad(x, scale, mean, var, dy, dx, cols, epsilon, has_scale); }
extern "C" __global__ void refimpl_layer_norm_input_grad_d(const double* x,
    const double* scale, const double* mean, const double* var, const double* dy, double* dx,
    long long cols, double epsilon, int has_scale) {
  input_grad(x, scale, mean, var, dy, dx, cols, epsilon, has_scale); }
extern "C" __global__ void refimpl_layer_norm_column_sums_f(const float* x,
    const float* mean, const float* var, const float* dy, double* partial, long long rows,
    long long cols, long long chunk_rows, double epsilon) {
  column_sums(x, mean, var, dy, partial, rows, cols, chunk_rows, epsilon); }
extern "C" __global__ void refimpl_layer_norm_column_sums_d(const double* x,
    const double* mean, const double* var, const double* dy, double* partial, long long rows,
    long long cols, long long chunk_rows, double epsilon) {
  column_sums(x, mean, var, dy, partial, rows, cols, chunk_rows, epsilon); }
extern "C" __global__ void refimpl_layer_norm_finish_sums_f(float* dscale, float* dbias,
    const double* partial, long long chunks, long long cols) {
  finish_sums(dscale, dbias, partial, chunks, cols); }
extern "C" __global__ void refimpl_layer_norm_finish_sums_d(double* dscale, double* dbias,
    const double* partial, long long chunks, long long cols) {
  finish_sums(dscale, dbias, partial, chunks, cols); }
"""
_KERNELS = {op: raw_per_dtype(_CODE, "refimpl_layer_norm" + op) for op in (
    "", "_input_grad", "_column_sums", "_finish_sums")}
_COLUMN_ROWS = 8        # the kernel's COLUMN_ROWS
_BLOCKS_WANTED = 264    # two per SM of an H100: enough column-sum blocks to fill the GPU
_FINISH_BLOCK = 256


def _rows(a, rows):
    return cupy.ascontiguousarray(a).reshape(rows, -1)


def _vector(v, dtype):
    """A Scale or Bias as a contiguous vector of X's dtype."""
    return cupy.ascontiguousarray(v, dtype=dtype).reshape(-1)


def _row_count(x, begin_norm_axis):
    rows = 1
    for d in x.shape[:begin_norm_axis]:
        rows *= d
    return rows


def layer_norm_forward(x, scale, bias, epsilon=1e-5, begin_norm_axis=1):
    rows = _row_count(x, begin_norm_axis)
    xr = _rows(x, rows)
    cols = xr.shape[1]
    y = cupy.empty_like(xr)
    mean, var = cupy.empty(rows, x.dtype), cupy.empty(rows, x.dtype)
    if rows:
        # an absent Scale / Bias: X stands in for the pointer, never read
        s = xr if scale is None else _vector(scale, x.dtype)
        b = xr if bias is None else _vector(bias, x.dtype)
        _KERNELS[""][x.dtype.name]((rows,), (row_block(cols),), (
            xr, s, b, y, mean, var, cupy.int64(cols), cupy.float64(epsilon),
            cupy.int32(scale is not None), cupy.int32(bias is not None)))
    return y.reshape(x.shape), mean, var


def layer_norm_backward(x, scale, bias, mean, var, dy, epsilon=1e-5, begin_norm_axis=1):
    rows = mean.shape[0]
    xr = _rows(x, rows)
    cols = xr.shape[1]
    d = cupy.ascontiguousarray(dy, dtype=x.dtype).reshape(rows, cols)
    m, v = _vector(mean, x.dtype), _vector(var, x.dtype)
    dx = cupy.empty_like(xr)
    if rows:
        s = xr if scale is None else _vector(scale, x.dtype)
        _KERNELS["_input_grad"][x.dtype.name]((rows,), (row_block(cols),), (
            xr, s, m, v, d, dx, cupy.int64(cols), cupy.float64(epsilon),
            cupy.int32(scale is not None)))
    dscale = dbias = None
    if scale is not None or bias is not None:
        sums = _column_sums(xr, m, v, d, epsilon)
        if scale is not None:
            dscale = sums[0].astype(scale.dtype, copy=False).reshape(scale.shape)
        if bias is not None:
            dbias = sums[1].astype(bias.dtype, copy=False).reshape(bias.shape)
    return dx.reshape(x.shape), dscale, dbias


def _column_sums(xr, mean, var, dy, epsilon):
    """[2, cols]: the column sums of dy * xhat (dScale) and of dy (dBias), X's dtype."""
    rows, cols = xr.shape
    sums = cupy.empty((2, cols), xr.dtype)
    if not cols:
        return sums
    tiles = (cols + 31) // 32
    # chunks of at least one row per thread, as many as fill the GPU's SMs
    chunks = max(1, min(-(-_BLOCKS_WANTED // tiles), -(-rows // _COLUMN_ROWS)))
    chunk_rows = max(1, -(-rows // chunks))
    chunks = -(-rows // chunk_rows)           # none empty (0 when there are no rows)
    partial = cupy.empty((chunks, 2, cols), cupy.float64)
    dtype = xr.dtype.name
    if chunks:
        _KERNELS["_column_sums"][dtype]((tiles, chunks), (32, _COLUMN_ROWS), (
            xr, mean, var, dy, partial, cupy.int64(rows), cupy.int64(cols),
            cupy.int64(chunk_rows), cupy.float64(epsilon)))
    _KERNELS["_finish_sums"][dtype](((cols + _FINISH_BLOCK - 1) // _FINISH_BLOCK,),
                                    (_FINISH_BLOCK,), (sums[0], sums[1], partial,
                                                       cupy.int64(chunks), cupy.int64(cols)))
    return sums
