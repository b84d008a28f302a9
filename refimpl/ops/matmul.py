"""matmul (transpose_X, transpose_Y, alpha) and matmul_v2 (trans_x, trans_y): batched
matrix products with numpy's broadcasting of batch dims and 1-D promotion rules."""
import numpy as np

from ._common import FLOATS, broadcast_shape, rand, sum_to_shape
from .registry import OpDef, Sample, register


def _t(a):
    return np.swapaxes(a, -1, -2) if a.ndim >= 2 else a


def _matmul(x, y, tx, ty):
    return np.matmul(_t(x) if tx else x, _t(y) if ty else y)


def _matmul_grad(x, y, dout, tx, ty):
    """Gradients of out = op(x) @ op(y), for any ranks (1-D operands promoted like numpy)."""
    x2 = x[None, :] if x.ndim == 1 else x
    y2 = y[:, None] if y.ndim == 1 else y
    a = _t(x2) if tx and x.ndim > 1 else x2
    b = _t(y2) if ty and y.ndim > 1 else y2
    d = dout
    if x.ndim == 1:
        d = np.expand_dims(d, -2)
    if y.ndim == 1:
        d = np.expand_dims(d, -1)
    da = np.matmul(d, _t(b))
    db = np.matmul(_t(a), d)
    dx = _t(da) if tx and x.ndim > 1 else da
    dy = _t(db) if ty and y.ndim > 1 else db
    dx = sum_to_shape(dx, x2.shape).reshape(x.shape)
    dy = sum_to_shape(dy, y2.shape).reshape(y.shape)
    return dx, dy


def _infer(ctx, tx, ty):
    x, y = ctx.input_var("X"), ctx.input_var("Y")
    ctx.check_dtype("X", FLOATS)
    xs, ys = list(x.shape), list(y.shape)
    if len(xs) == 1:
        xs = [1] + xs
    elif tx:
        xs[-1], xs[-2] = xs[-2], xs[-1]
    if len(ys) == 1:
        ys = ys + [1]
    elif ty:
        ys[-1], ys[-2] = ys[-2], ys[-1]
    if xs[-1] >= 0 and ys[-2] >= 0 and xs[-1] != ys[-2]:
        ctx.fail("X %r %s and Y %r %s: inner dims %d and %d differ"
                 % (x.name, list(x.shape), y.name, list(y.shape), xs[-1], ys[-2]))
    batch = broadcast_shape(xs[:-2], ys[:-2], ctx)
    out = list(batch) + ([xs[-2]] if len(x.shape) > 1 else []) + \
        ([ys[-1]] if len(y.shape) > 1 else [])
    ctx.set_output("Out", out or [1], x.dtype)


@register
class MatmulV2(OpDef):
    type = "matmul_v2"
    inputs = ("X", "Y")
    outputs = ("Out",)
    attrs = {"trans_x": False, "trans_y": False}
    grad_inputs = ("X", "Y", "Out@GRAD")

    def infer_shape(self, ctx):
        _infer(ctx, ctx.attr("trans_x"), ctx.attr("trans_y"))

    @staticmethod
    def forward(x, y, trans_x=False, trans_y=False):
        return _matmul(x, y, trans_x, trans_y)

    @staticmethod
    def backward(x, y, dout, trans_x=False, trans_y=False):
        return _matmul_grad(x, y, dout, trans_x, trans_y)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 4), "Y": rand(rng, 4, 5)})
        yield Sample({"X": rand(rng, 2, 4, 3), "Y": rand(rng, 5, 4)},
                     {"trans_x": True, "trans_y": True})
        yield Sample({"X": rand(rng, 2, 3, 4), "Y": rand(rng, 4)})


@register
class Matmul(OpDef):
    type = "matmul"
    inputs = ("X", "Y")
    outputs = ("Out",)
    attrs = {"transpose_X": False, "transpose_Y": False, "alpha": 1.0}
    grad_inputs = ("X", "Y", "Out@GRAD")

    def infer_shape(self, ctx):
        _infer(ctx, ctx.attr("transpose_X"), ctx.attr("transpose_Y"))

    @staticmethod
    def forward(x, y, transpose_X=False, transpose_Y=False, alpha=1.0):
        out = _matmul(x, y, transpose_X, transpose_Y)
        return out if alpha == 1.0 else (out * alpha).astype(out.dtype)

    @staticmethod
    def backward(x, y, dout, transpose_X=False, transpose_Y=False, alpha=1.0):
        return _matmul_grad(x, y, dout * alpha, transpose_X, transpose_Y)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 4), "Y": rand(rng, 5, 4)},
                     {"transpose_Y": True, "alpha": 0.5})
        yield Sample({"X": rand(rng, 2, 3, 4), "Y": rand(rng, 2, 4, 2)})
