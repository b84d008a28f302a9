"""matmul (transpose_X, transpose_Y, alpha), matmul_v2 (trans_x, trans_y), bmm and dot:
matrix products with numpy's broadcasting of batch dims and 1-D promotion rules."""
import numpy as np

from ..broadcasting import sum_to_shape
from ._common import COMPLEX, FLOATS, broadcast_shape, conj, rand
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
    # dOut with the dims 1-D promotion squeezed away put back: [..., M, N]
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    d = dout.reshape(batch + (a.shape[-2], b.shape[-1]))
    da = np.matmul(d, _t(conj(b)))
    db = np.matmul(_t(conj(a)), d)
    dx = _t(da) if tx and x.ndim > 1 else da
    dy = _t(db) if ty and y.ndim > 1 else db
    dx = sum_to_shape(dx, x2.shape).reshape(x.shape)
    dy = sum_to_shape(dy, y2.shape).reshape(y.shape)
    return dx, dy


def _infer(ctx, tx, ty):
    x, y = ctx.input_var("X"), ctx.input_var("Y")
    ctx.check_dtype("X", FLOATS + COMPLEX)
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
    # vector . vector is 0-D, as numpy and Paddle >= 2.5 (2.0 gave [1]; specs/ops/matmul.md)
    ctx.set_output("Out", out, x.dtype)


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
        yield Sample({"X": rand(rng, 4), "Y": rand(rng, 3, 4, 2)}, name="vector_batch")
        yield Sample({"X": rand(rng, 4), "Y": rand(rng, 4)}, name="dot")
        yield Sample({"X": rand(rng, 2, 1, 3, 4), "Y": rand(rng, 5, 4, 2)}, name="broadcast")
        # the compiled kernel's single-GEMM cases (x [..., M, K] times a matrix)
        yield Sample({"X": rand(rng, 4, 3), "Y": rand(rng, 4, 5)}, {"trans_x": True})
        yield Sample({"X": rand(rng, 4, 3), "Y": rand(rng, 5, 4)},
                     {"trans_x": True, "trans_y": True})
        yield Sample({"X": rand(rng, 2, 3, 4), "Y": rand(rng, 5, 4)}, {"trans_y": True})


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


@register
class Bmm(OpDef):
    """Batched matmul of two 3-D tensors with the same batch size (no broadcasting)."""
    type = "bmm"
    inputs = ("X", "Y")
    outputs = ("Out",)
    grad_inputs = ("X", "Y", "Out@GRAD")

    def infer_shape(self, ctx):
        xs, ys = ctx.input_shape("X"), ctx.input_shape("Y")
        ctx.expect(len(xs) == 3 and len(ys) == 3, "X %r and Y %r must be 3-D, got %s and %s"
                   % (ctx.input_var("X").name, ctx.input_var("Y").name, list(xs), list(ys)))
        ctx.expect(xs[0] < 0 or ys[0] < 0 or xs[0] == ys[0],
                   "batch sizes of X (%d) and Y (%d) differ" % (xs[0], ys[0]))
        _infer(ctx, False, False)

    @staticmethod
    def forward(x, y):
        return np.matmul(x, y)

    @staticmethod
    def backward(x, y, dout):
        return _matmul_grad(x, y, dout, False, False)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 2, 3, 4), "Y": rand(rng, 2, 4, 5)})


@register
class Dot(OpDef):
    """Inner product along the last dim: [N] . [N] -> 0-D, [B, N] . [B, N] -> [B]."""
    type = "dot"
    inputs = ("X", "Y")
    outputs = ("Out",)
    grad_inputs = ("X", "Y", "Out@GRAD")

    def infer_shape(self, ctx):
        x, y = ctx.input_var("X"), ctx.input_var("Y")
        ctx.expect(len(x.shape) in (1, 2) and tuple(x.shape) == tuple(y.shape),
                   "X %r and Y %r must be 1-D or 2-D of one shape, got %s and %s"
                   % (x.name, y.name, list(x.shape), list(y.shape)))
        ctx.set_output("Out", tuple(x.shape[:-1]), x.dtype)

    @staticmethod
    def forward(x, y):
        return (x * y).sum(axis=-1)

    @staticmethod
    def backward(x, y, dout):
        d = np.expand_dims(dout, -1)
        return d * y, d * x

    def samples(self, rng):
        yield Sample({"X": rand(rng, 5), "Y": rand(rng, 5)})
        yield Sample({"X": rand(rng, 3, 5), "Y": rand(rng, 3, 5)})
