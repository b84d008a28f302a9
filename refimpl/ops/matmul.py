"""matmul (transpose_X, transpose_Y, alpha), matmul_v2 (trans_x, trans_y), bmm and dot:
matrix products with numpy's broadcasting of batch dims and 1-D promotion rules."""
import numpy as np

from .. import versions
from ..broadcasting import sum_to_shape
from ._common import (COMPLEX, FLOATS, broadcast_shape, complex_promotion, conj,
                      grads_in_operand_dtypes, rand)
from .registry import OpDef, Sample, register


def _t(a):
    return np.swapaxes(a, -1, -2) if a.ndim >= 2 else a


def _matmul(x, y, tx, ty):
    # [...]: two vectors give a 0-D array (numpy's matmul returns a scalar for them), which
    # the backward and the devices' arrays take as an output like any other
    return np.matmul(_t(x) if tx else x, _t(y) if ty else y)[...]


def _matmul_grad(x, y, dout, tx, ty):
    """Gradients of out = op(x) @ op(y), for any ranks (1-D operands promoted like numpy)."""
    if x.ndim > 2 and y.ndim == 2 and not tx:
        # a batch of rows times one matrix (a Linear layer on [batch, seq, features]): two
        # GEMMs over all rows, not a batched product summed over the batch afterwards
        rows = x.reshape(-1, x.shape[-1])
        d = dout.reshape(rows.shape[0], -1)
        b = _t(y) if ty else y    # [K, N]
        dy = _t(conj(rows)) @ d
        return (d @ _t(conj(b))).reshape(x.shape), (_t(dy).copy() if ty else dy)
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


def _scaled(dout, alpha):
    """dout * alpha in dout's dtype: numpy 1.x makes a 0-D float32 dout times a Python
    float a float64 (its value-based casting treats 0-D arrays as scalars)."""
    return dout * dout.dtype.type(alpha)


def _infer(ctx, tx, ty, shapes=None, promote_complex=False):
    """Out's shape; `shapes`: (X's, Y's) to use instead of the variables' (matmul v1);
    `promote_complex`: a real and a complex operand give a complex Out."""
    x, y = ctx.input_var("X"), ctx.input_var("Y")
    ctx.check_dtype("X", FLOATS + COMPLEX)
    # a real operand with a complex one (Paddle 2.0's type promotion: its
    # test_matmul_v2_op's TestMatMulTypePromotion): the product is complex
    promoted = complex_promotion(x, y) if promote_complex else None
    if promoted is None:
        ctx.check_same_dtype("X", "Y")
    xs, ys = [list(s) for s in shapes] if shapes else (list(x.shape), list(y.shape))
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
    x_rank, y_rank = (len(s) for s in shapes) if shapes else (len(x.shape), len(y.shape))
    out = list(batch) + ([xs[-2]] if x_rank > 1 else []) + ([ys[-1]] if y_rank > 1 else [])
    # vector . vector is one number (scalar_shape(): [1] in Paddle 2.0, 0-D in 3)
    ctx.set_output("Out", out, x.dtype if promoted is None else promoted)


@register
class MatmulV2(OpDef):
    type = "matmul_v2"
    inputs = ("X", "Y")
    outputs = ("Out",)
    scalar_outputs = ("Out",)
    attrs = {"trans_x": False, "trans_y": False}
    grad_inputs = ("X", "Y", "Out@GRAD")

    def infer_shape(self, ctx):
        _infer(ctx, ctx.attr("trans_x"), ctx.attr("trans_y"), promote_complex=True)

    @staticmethod
    def forward(x, y, trans_x=False, trans_y=False):
        return _matmul(x, y, trans_x, trans_y)

    @staticmethod
    def backward(x, y, dout, trans_x=False, trans_y=False):
        return grads_in_operand_dtypes(_matmul_grad(x, y, dout, trans_x, trans_y), x, y)

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
        # its batched cases (one batch shape: attention's heads), every transpose
        for tx in (False, True):
            for ty in (False, True):
                yield Sample({"X": rand(rng, 2, 3, *((4, 5) if tx else (5, 4))),
                              "Y": rand(rng, 2, 3, *((2, 4) if ty else (4, 2)))},
                             {"trans_x": tx, "trans_y": ty}, name="batched")


def _dot_shape(x_shape):
    """dot's output shape for inputs of x_shape (0-D for 1-D inputs under Paddle 3)."""
    if len(x_shape) > 1 and versions.switch("dot_keeps_last_dim"):
        return tuple(x_shape[:-1]) + (1,)
    return tuple(x_shape[:-1])


def _v1_operand(shape, transposed, column):
    """matmul (v1) under 1.8 / 2.0 reads a transposed 1-D operand as a matrix: X as a
    column [n, 1], Y as a row [1, n] (then untransposed); other operands as they are
    (Paddle 3 ignores the transpose of 1-D operands: `matmul_transposed_vectors`)."""
    if len(shape) == 1 and transposed and \
            versions.switch("matmul_transposed_vectors") == "matrix":
        return ([shape[0], 1] if column else [1, shape[0]]), False
    return list(shape), transposed


def _head_pieces(a, b, heads):
    """Paddle 1.8's multi-head matmul (head_number > 1) of a [.., M, K] and b: a's columns
    cut into `heads` pieces; b's rows cut likewise when K equals b's height, else b's
    columns (K / heads equals its height). The pieces' products are concatenated along the
    last axis: ([a pieces], [b pieces], b's axis cut)."""
    if a.ndim < 2 or b.ndim < 2 or a.shape[-1] % heads:
        raise ValueError("matmul: head_number %d needs X and Y of rank >= 2 with X's width "
                         "a multiple of it, got %s and %s" % (heads, list(a.shape),
                                                              list(b.shape)))
    axis = -2 if a.shape[-1] == b.shape[-2] else -1
    if axis == -1 and (a.shape[-1] // heads != b.shape[-2] or b.shape[-1] % heads):
        raise ValueError("matmul: head_number %d: X's width %d must equal Y's height %d, or "
                         "be %d times it" % (heads, a.shape[-1], b.shape[-2], heads))
    return _blocks(a, heads, -1), _blocks(b, heads, axis), axis


def _blocks(a, n, axis):
    """`a` cut into n equal blocks along axis -1 or -2 (slices: the eager double backward
    records them)."""
    size = a.shape[axis] // n
    if axis == -1:
        return [a[..., i * size:(i + 1) * size] for i in range(n)]
    return [a[..., i * size:(i + 1) * size, :] for i in range(n)]


def _head_width(x_width, y_height, y_width, heads):
    """Out's last dim under head_number: the heads' products side by side."""
    return y_width * heads if x_width == y_height else y_width


@register
class Matmul(OpDef):
    """fluid 1.x matmul: matmul_v2's products, times alpha; under 1.8 / 2.0 a transposed
    1-D X is a column [n, 1] and a transposed 1-D Y a row [1, n]. head_number > 1: the
    multi-head product of Paddle 1.8's CPU kernel (_head_pieces)."""
    type = "matmul"
    inputs = ("X", "Y")
    outputs = ("Out",)
    attrs = {"transpose_X": False, "transpose_Y": False, "alpha": 1.0, "head_number": 1}
    grad_inputs = ("X", "Y", "Out@GRAD")
    scalar_outputs = ("Out",)

    def infer_shape(self, ctx):
        (xs, tx), (ys, ty) = (_v1_operand(ctx.input_shape("X"), ctx.attr("transpose_X"), True),
                              _v1_operand(ctx.input_shape("Y"), ctx.attr("transpose_Y"), False))
        heads = ctx.attr("head_number")
        if heads <= 1:
            _infer(ctx, tx, ty, (xs, ys))
            return
        ctx.expect(len(xs) >= 2 and len(ys) >= 2, "head_number %d needs X and Y of rank >= 2, "
                   "got %s and %s" % (heads, xs, ys))
        (m, k), (kh, n) = (xs[-2:][::-1] if tx else xs[-2:]), (ys[-2:][::-1] if ty else ys[-2:])
        out = list(broadcast_shape(xs[:-2], ys[:-2], ctx)) + [m, _head_width(k, kh, n, heads)]
        ctx.set_output("Out", out, ctx.input_var("X").dtype)

    @staticmethod
    def forward(x, y, transpose_X=False, transpose_Y=False, alpha=1.0, head_number=1):
        if head_number > 1:
            xs, ys, _ = _head_pieces(_t(x) if transpose_X else x, _t(y) if transpose_Y else y,
                                     head_number)
            out = np.concatenate([np.matmul(a, b) for a, b in zip(xs, ys)], axis=-1)
        else:
            (xs, tx), (ys, ty) = (_v1_operand(x.shape, transpose_X, True),
                                  _v1_operand(y.shape, transpose_Y, False))
            out = _matmul(x.reshape(xs), y.reshape(ys), tx, ty)
        return out if alpha == 1.0 else (out * alpha).astype(out.dtype)

    @staticmethod
    def backward(x, y, dout, transpose_X=False, transpose_Y=False, alpha=1.0, head_number=1):
        if head_number > 1:
            a, b = _t(x) if transpose_X else x, _t(y) if transpose_Y else y
            xs, ys, axis = _head_pieces(a, b, head_number)
            douts = _blocks(_scaled(dout, alpha), head_number, -1)
            grads = [_matmul_grad(xp, yp, d, False, False) for xp, yp, d in zip(xs, ys, douts)]
            da = sum_to_shape(np.concatenate([g[0] for g in grads], axis=-1), a.shape)
            db = sum_to_shape(np.concatenate([g[1] for g in grads], axis=axis), b.shape)
            return (_t(da) if transpose_X else da), (_t(db) if transpose_Y else db)
        (xs, tx), (ys, ty) = (_v1_operand(x.shape, transpose_X, True),
                              _v1_operand(y.shape, transpose_Y, False))
        dx, dy = _matmul_grad(x.reshape(xs), y.reshape(ys), _scaled(dout, alpha), tx, ty)
        return dx.reshape(x.shape), dy.reshape(y.shape)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 4), "Y": rand(rng, 5, 4)},
                     {"transpose_Y": True, "alpha": 0.5})
        yield Sample({"X": rand(rng, 2, 3, 4), "Y": rand(rng, 2, 4, 2)})
        # head_number: Y cut by rows (X's width = Y's height), then by columns
        yield Sample({"X": rand(rng, 2, 3, 4), "Y": rand(rng, 2, 4, 3)}, {"head_number": 2})
        yield Sample({"X": rand(rng, 4, 3), "Y": rand(rng, 4, 2)},
                     {"head_number": 2, "transpose_X": True, "transpose_Y": True})
        # the compiled kernel's batched cases (attention's scores: alpha, a transposed Y)
        yield Sample({"X": rand(rng, 2, 3, 5, 4), "Y": rand(rng, 2, 3, 6, 4)},
                     {"transpose_Y": True, "alpha": 0.125}, name="batched")
        yield Sample({"X": rand(rng, 3, 4, 5), "Y": rand(rng, 3, 4, 2)},
                     {"transpose_X": True, "alpha": 1.5}, name="batched")


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
    """Inner product along the last dim: [..., N] . [..., N] -> [..., 1] (Paddle 1.8, 2.0)
    or [...] (3): the `dot_keeps_last_dim` switch; 1-D inputs give one number."""
    type = "dot"
    inputs = ("X", "Y")
    outputs = ("Out",)
    scalar_outputs = ("Out",)
    grad_inputs = ("X", "Y", "Out@GRAD")

    def infer_shape(self, ctx):
        x, y = ctx.input_var("X"), ctx.input_var("Y")
        ctx.expect(len(x.shape) in (1, 2) and tuple(x.shape) == tuple(y.shape),
                   "X %r and Y %r must be 1-D or 2-D of one shape, got %s and %s"
                   % (x.name, y.name, list(x.shape), list(y.shape)))
        ctx.set_output("Out", _dot_shape(tuple(x.shape)), x.dtype)

    @staticmethod
    def forward(x, y):
        return (x * y).sum(axis=-1).reshape(_dot_shape(x.shape))

    @staticmethod
    def backward(x, y, dout):
        # complex operands: dX = dOut * conj(Y), dY = dOut * conj(X) (2.0's test_dot_op)
        d = dout.reshape(x.shape[:-1] + (1,))
        return d * conj(y), d * conj(x)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 5), "Y": rand(rng, 5)})
        yield Sample({"X": rand(rng, 3, 5), "Y": rand(rng, 3, 5)})
