"""fill_diagonal_tensor (Paddle 3's kernel): X with the `offset` diagonal of the matrices
spanning dims dim1, dim2 set to Y, whose shape is X's other dims then the diagonal's
length. The gradient: X's is Out's with that diagonal zeroed; Y gets none, as in 3.3.1
(measured: its grad kernel writes X's only, eager and static)."""
import numpy as np

from ._common import rand
from .registry import OpDef, Sample, register


def diagonal_positions(shape, offset, dim1, dim2):
    """(rows, cols) of the diagonal in the (dim1, dim2) matrices of `shape`."""
    n1, n2 = shape[dim1], shape[dim2]
    length = max(0, min(n1, n2 - offset) if offset >= 0 else min(n1 + offset, n2))
    k = np.arange(length)
    return (k, k + offset) if offset >= 0 else (k - offset, k)


def diagonal_shape(shape, offset, dim1, dim2):
    """Y's shape: the dims of `shape` but dim1 and dim2, then the diagonal's length."""
    others = [d for i, d in enumerate(shape) if i not in (dim1 % len(shape), dim2 % len(shape))]
    return others + [len(diagonal_positions(shape, offset, dim1, dim2)[0])]


def _matrices(a, dim1, dim2):
    """A view of `a` with dims dim1, dim2 last."""
    return np.moveaxis(a, (dim1, dim2), (-2, -1))


@register
class FillDiagonalTensor(OpDef):
    type = "fill_diagonal_tensor"
    inputs = ("X", "Y")
    outputs = ("Out",)
    attrs = {"offset": 0, "dim1": 0, "dim2": 1}
    grad_inputs = ("Out@GRAD",)
    no_grad = ("Y",)

    def infer_shape(self, ctx):
        x, y = ctx.input_var("X"), ctx.input_var("Y")
        ctx.check_same_dtype("X", "Y")
        rank, d1, d2 = len(x.shape), ctx.attr("dim1"), ctx.attr("dim2")
        ctx.expect(-rank <= d1 < rank and -rank <= d2 < rank and d1 % rank != d2 % rank,
                   "dim1 %d and dim2 %d must be two dims of X %r %s"
                   % (d1, d2, x.name, list(x.shape)))
        if min(x.shape) >= 0 and min(y.shape, default=0) >= 0:
            wanted = diagonal_shape(list(x.shape), ctx.attr("offset"), d1, d2)
            ctx.expect(list(y.shape) == wanted, "Y %r must have shape %s (X's other dims, "
                       "then the diagonal), got %s" % (y.name, wanted, list(y.shape)))
        ctx.same_as("X", "Out")

    @staticmethod
    def forward(x, y, offset=0, dim1=0, dim2=1):
        dim1, dim2 = dim1 % x.ndim, dim2 % x.ndim
        out = x.copy()
        rows, cols = diagonal_positions(x.shape, offset, dim1, dim2)
        _matrices(out, dim1, dim2)[..., rows, cols] = y
        return out

    @staticmethod
    def backward(dout, offset=0, dim1=0, dim2=1):
        dim1, dim2 = dim1 % dout.ndim, dim2 % dout.ndim
        rows, cols = diagonal_positions(dout.shape, offset, dim1, dim2)
        dx = dout.copy()
        _matrices(dx, dim1, dim2)[..., rows, cols] = 0
        return dx

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 4), "Y": rand(rng, 3)}, name="matrix")
        yield Sample({"X": rand(rng, 3, 4), "Y": rand(rng, 2)}, {"offset": -1},
                     name="below")
        yield Sample({"X": rand(rng, 2, 3, 2), "Y": rand(rng, 3, 2)},
                     {"offset": 0, "dim1": 0, "dim2": 2}, name="dims")
        yield Sample({"X": rand(rng, 2, 3, 3), "Y": rand(rng, 2, 2)},
                     {"offset": 1, "dim1": 2, "dim2": 1}, name="swapped")
