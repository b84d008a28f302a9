"""relu and gelu, forward and backward, and the bias + ReLU epilogue of the fused
elementwise_add + relu (fc's GEMM output plus its bias, then ReLU, in one pass)."""
import cupy

from .source import elementwise

__all__ = ["relu_forward", "relu_backward", "gelu_forward", "gelu_backward", "add_relu"]

_relu = elementwise("T x", "T y", "y = x > (T)0 ? x : (T)0", "refimpl_relu")
_relu_grad = elementwise("T out, T dout", "T dx", "dx = out > (T)0 ? dout : (T)0",
                         "refimpl_relu_grad")

# exact: x Phi(x); approximate: Paddle's tanh formula
_GELU = """
template <typename T> __device__ T gelu_cdf(T x, bool approximate, T* dcdf) {
  if (approximate) {
    const T k = (T)0.7978845608028654, c = (T)0.044715;
    T t = tanh(k * (x + c * x * x * x));
    *dcdf = (T)0.5 * ((T)1 - t * t) * k * ((T)1 + (T)3 * c * x * x);
    return (T)0.5 * ((T)1 + t);
  }
  *dcdf = exp((T)-0.5 * x * x) * (T)0.3989422804014327;
  return (T)0.5 * ((T)1 + erf(x * (T)0.7071067811865476));
}
"""
_gelu = elementwise("T x, bool approximate", "T y",
                    "T d; y = x * gelu_cdf(x, approximate, &d)", "refimpl_gelu",
                    preamble=_GELU)
_gelu_grad = elementwise("T x, T dout, bool approximate", "T dx",
                         "T d; T cdf = gelu_cdf(x, approximate, &d); dx = dout * (cdf + x * d)",
                         "refimpl_gelu_grad", preamble=_GELU)
_bias_relu = elementwise("T x, raw T b, int64 n", "T y",
                         "T v = x + b[i % n]; y = v > (T)0 ? v : (T)0", "refimpl_bias_relu")


def relu_forward(x):
    return _relu(x)


def relu_backward(out, dout):
    return _relu_grad(out, dout)


def gelu_forward(x, approximate=False):
    return _gelu(x, bool(approximate))


def gelu_backward(x, dout, approximate=False):
    return _gelu_grad(x, dout, bool(approximate))


def add_relu(xs, sub_ops=(), functor_list=(), input_names=(), output_names=()):
    """fused_elemwise_add_relu: X + bias (on X's last axis: the fusion pass's case) then
    ReLU, one pass over X."""
    inputs = sub_ops[0][1]
    value = dict(zip(input_names, xs))
    x = cupy.ascontiguousarray(value[inputs["X"][0]])
    b = cupy.ascontiguousarray(value[inputs["Y"][0]], dtype=x.dtype)
    return [_bias_relu(x, b, b.size)]
