"""mul (fc's GEMM) and matmul_v2 on cuBLAS through cupy.matmul; the bias and activation
that follow an fc are its epilogue: the fused bias + ReLU pass (activation.add_relu)."""
import cupy

from ...geometry import as_matrix

__all__ = ["mul_forward", "mul_backward", "matmul_v2_forward"]


def mul_forward(x, y, x_num_col_dims=1, y_num_col_dims=1):
    out = cupy.matmul(as_matrix(x, x_num_col_dims), as_matrix(y, y_num_col_dims))
    return out.reshape(x.shape[:x_num_col_dims] + y.shape[y_num_col_dims:])


def mul_backward(x, y, dout, x_num_col_dims=1, y_num_col_dims=1, need=(True, True)):
    x2, y2 = as_matrix(x, x_num_col_dims), as_matrix(y, y_num_col_dims)
    d2 = dout.reshape(x2.shape[0], y2.shape[1])
    dx = cupy.matmul(d2, y2.T).reshape(x.shape) if need[0] else None
    dy = cupy.matmul(x2.T, d2).reshape(y.shape) if need[1] else None
    return dx, dy


def _t(a, trans):
    return cupy.swapaxes(a, -1, -2) if trans and a.ndim >= 2 else a


def matmul_v2_forward(x, y, trans_x=False, trans_y=False):
    return cupy.matmul(_t(x, trans_x), _t(y, trans_y))
