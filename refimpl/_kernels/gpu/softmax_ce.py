"""softmax_with_cross_entropy with hard labels along the last axis: one block per row
computes the row's max, the sum of exponentials (shared-memory reductions), the softmax and
the loss log(sum) - shifted[label] (0 for ignore_index); the gradient is one element-wise
pass, (softmax - one_hot(label)) * dLoss, ignored rows 0."""
import cupy

from ...xp import defer_check
from .source import elementwise, raw_per_dtype

__all__ = ["softmax_ce_forward", "softmax_ce_backward"]

_CODE = r"""
template <typename T> __device__ T block_reduce(T v, T* shared, bool is_max) {
  shared[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      T o = shared[threadIdx.x + s];
      shared[threadIdx.x] = is_max ? max(shared[threadIdx.x], o) : shared[threadIdx.x] + o;
    }
    __syncthreads();
  }
  T r = shared[0];
  __syncthreads();
  return r;
}

template <typename T> __device__ void forward(const T* logits, const long long* label,
    T* softmax, T* loss, long long classes, long long ignore_index) {
  __shared__ T shared[256];
  const T* x = logits + blockIdx.x * classes;
  T* sm = softmax + blockIdx.x * classes;
  T m = x[0];
  for (long long j = threadIdx.x; j < classes; j += blockDim.x) m = max(m, x[j]);
  m = block_reduce(m, shared, true);
  T s = 0;
  for (long long j = threadIdx.x; j < classes; j += blockDim.x) s += exp(x[j] - m);
  s = block_reduce(s, shared, false);
  for (long long j = threadIdx.x; j < classes; j += blockDim.x) sm[j] = exp(x[j] - m) / s;
  if (threadIdx.x == 0) {
    long long lab = label[blockIdx.x];
    loss[blockIdx.x] = lab == ignore_index ? (T)0 : log(s) - (x[lab] - m);
  }
}
extern "C" __global__ void refimpl_softmax_ce_f(const float* logits, const long long* label,
    float* softmax, float* loss, long long classes, long long ignore_index) {
  forward(logits, label, softmax, loss, classes, ignore_index); }
extern "C" __global__ void refimpl_softmax_ce_d(const double* logits, const long long* label,
    double* softmax, double* loss, long long classes, long long ignore_index) {
  forward(logits, label, softmax, loss, classes, ignore_index); }
"""
_FORWARD = raw_per_dtype(_CODE, "refimpl_softmax_ce")
_BLOCK = 256    # the shared array's size
_GRAD = elementwise(
    "T softmax, raw int64 label, raw T dloss, int64 classes, int64 ignore_index", "T dx",
    "long long row = i / classes; long long lab = label[row]; "
    "T hit = (lab != ignore_index && lab == i % classes) ? (T)1 : (T)0; "
    "dx = lab == ignore_index ? (T)0 : dloss[row] * (softmax - hit)", "refimpl_softmax_ce_grad")


def _labels(label, classes, ignore_index):
    lab = cupy.ascontiguousarray(label, dtype=cupy.int64).reshape(-1)
    bad = ((lab < 0) | (lab >= classes)) & (lab != ignore_index)
    # the reference's IndexError, not garbage; checked when the run ends (xp.defer_check),
    # since reading `bad` now would stop the host until the GPU caught up
    defer_check(lambda: _check_labels(lab, bad, classes, ignore_index))
    return lab


def _check_labels(lab, bad, classes, ignore_index):
    if bool(bad.any()):
        raise IndexError("softmax_with_cross_entropy: Label class %d is out of range for %d "
                         "classes (ignore_index=%d)" % (int(lab[bad][0]), classes, ignore_index))


def softmax_ce_forward(logits, label, soft_label=False, ignore_index=-100,
                       numeric_stable_mode=True, axis=-1):
    classes = logits.shape[-1]
    x = cupy.ascontiguousarray(logits)
    rows = x.size // classes
    lab = _labels(label, classes, ignore_index)
    softmax = cupy.empty_like(x)
    loss = cupy.empty(logits.shape[:-1] + (1,), logits.dtype)
    if rows:
        _FORWARD[x.dtype.name]((rows,), (_BLOCK,), (x, lab, softmax, loss,
                                                    cupy.int64(classes),
                                                    cupy.int64(ignore_index)))
    return softmax, loss


def softmax_ce_backward(label, softmax, dloss, soft_label=False, ignore_index=-100,
                        numeric_stable_mode=True, axis=-1):
    classes = softmax.shape[-1]
    lab = _labels(label, classes, ignore_index)
    dloss = cupy.ascontiguousarray(dloss, dtype=softmax.dtype).reshape(-1)
    return _GRAD(softmax, lab, dloss, classes, ignore_index)
