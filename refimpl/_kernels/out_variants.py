"""numpy variants of op functions that write into a buffer they are given instead of a new
array: `*_out(..., alloc)` puts each result into `alloc(shape, dtype)` (memory_optimize's
pool of dead temporaries' buffers), `*_inplace(x, ...)` into its first input (enable_inplace,
when that input dies at the op). Each overwrites every element and is bit-identical to the
op's reference (tests/test_ops.py checks both). They run on either backend; the compiled
kernels that take `alloc` fall back to them for the shapes they do not cover.
"""
import numpy as np

from ..broadcasting import align
from ..geometry import as_matrix

__all__ = ["fresh", "abs_out", "relu_out", "relu_grad_out", "relu_inplace", "scale_out", "scale_inplace",
           "sum_inplace", "elementwise_out", "elementwise_inplace", "mul_out", "mul_grad_out",
           "matmul_v2_out", "fused_add_relu_inplace"]


def fresh(shape, dtype):
    """An `alloc` that allocates: an out variant called with it is the plain function."""
    return np.empty(shape, dtype)


def abs_out(x, alloc=None):
    """|x| into a buffer of x's real dtype (the modulus of a complex x is real)."""
    return np.abs(x, out=alloc(x.shape, x.real.dtype))


def relu_out(x, alloc):
    return np.maximum(x, 0, out=alloc(x.shape, x.dtype))


def relu_grad_out(out, dout, alloc):
    return np.multiply(dout, out > 0, out=alloc(dout.shape, dout.dtype))


def relu_inplace(x):
    return np.maximum(x, 0, out=x)


def scale_out(x, scale_tensor=None, scale=1.0, bias=0.0, bias_after_scale=True, alloc=None):
    t = x.dtype.type
    if scale_tensor is not None:      # the op's ScaleTensor input (ops/scale.py)
        scale = float(np.asarray(scale_tensor).reshape(-1)[0])
    out = alloc(x.shape, x.dtype)
    if bias_after_scale:
        return np.add(np.multiply(x, t(scale), out=out), t(bias), out=out)
    return np.multiply(np.add(x, t(bias), out=out), t(scale), out=out)


def scale_inplace(x, scale_tensor=None, scale=1.0, bias=0.0, bias_after_scale=True):
    return scale_out(x, scale_tensor, scale, bias, bias_after_scale, alloc=lambda *_: x)


def sum_inplace(xs):
    """enable_addto: gradient accumulation into the first partial gradient, which dies
    here. Only into a buffer it owns: a view may share memory with a live variable (a
    partial gradient is read by this op alone, so nothing else views its buffer)."""
    out = xs[0] if xs[0].base is None else xs[0].copy()
    for x in xs[1:]:
        out += x
    return out


def elementwise_out(ufunc):
    """X ufunc Y under Paddle's `axis` broadcasting, into `alloc(...)`."""
    def out_variant(x, y, axis=-1, alloc=None):
        xa, ya = align(x, y, axis)
        out = alloc(np.broadcast_shapes(xa.shape, ya.shape), np.result_type(xa, ya))
        return ufunc(xa, ya, out=out)
    return out_variant


def elementwise_inplace(ufunc):
    """X ufunc Y into X's buffer when the result has X's shape and dtype, else a new array."""
    into = elementwise_out(ufunc)

    def inplace(x, y, axis=-1):
        xa, ya = align(x, y, axis)
        if np.broadcast_shapes(xa.shape, ya.shape) != x.shape or xa.dtype != ya.dtype:
            return into(x, y, axis, alloc=fresh)
        return ufunc(xa, ya, out=xa).reshape(x.shape)
    return inplace


def mul_out(x, y, x_num_col_dims=1, y_num_col_dims=1, alloc=None):
    x2, y2 = as_matrix(x, x_num_col_dims), as_matrix(y, y_num_col_dims)
    out = alloc(x.shape[:x_num_col_dims] + y.shape[y_num_col_dims:], np.result_type(x, y))
    np.matmul(x2, y2, out=out.reshape(x2.shape[0], y2.shape[1]))
    return out


def mul_grad_out(x, y, dout, x_num_col_dims=1, y_num_col_dims=1, need=(True, True),
                 alloc=None):
    x2, y2 = as_matrix(x, x_num_col_dims), as_matrix(y, y_num_col_dims)
    d2 = dout.reshape(x2.shape[0], y2.shape[1])
    dx = dy = None
    if need[0]:
        dx = alloc(x.shape, d2.dtype)
        np.matmul(d2, y2.T, out=dx.reshape(x2.shape))
    if need[1]:
        dy = alloc(y.shape, d2.dtype)
        np.matmul(x2.T, d2, out=dy.reshape(y2.shape))
    return dx, dy


def _t(a):
    return np.swapaxes(a, -1, -2) if a.ndim >= 2 else a


def matmul_v2_out(x, y, trans_x=False, trans_y=False, alloc=None):
    a, b = (_t(x) if trans_x else x), (_t(y) if trans_y else y)
    if a.ndim < 2 or b.ndim < 2:   # numpy's 1-D promotion shapes the result
        return np.matmul(a, b)
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (a.shape[-2], b.shape[-1])
    return np.matmul(a, b, out=alloc(shape, np.result_type(a, b)))


def fused_add_relu_inplace(xs, sub_ops=(), functor_list=(), input_names=(), output_names=()):
    """fused_elemwise_add_relu with X (the chain's first input) dead after it: into X."""
    x, b = xs   # the chain's inputs: elementwise_add's X, then its Y
    np.add(x, b, out=x)
    return [np.maximum(x, 0, out=x)]
