"""Diagonals and triangles by position (Paddle 3): diagonal (the `offset`-th diagonal of
each (axis1, axis2) plane, as a last dim), tril_indices / triu_indices (the [2, n]
coordinates of a rows x cols matrix's lower / upper triangle, row-major)."""
import numpy as np

from ._common import plane_axes, rand
from .registry import OpDef, Sample, register


@register
class Diagonal(OpDef):
    """Out = the `offset`-th diagonal of Input's (axis1, axis2) planes: those two dims
    dropped, the diagonal appended as the last dim."""
    type = "diagonal"
    inputs = ("Input",)
    outputs = ("Out",)
    attrs = {"offset": 0, "axis1": 0, "axis2": 1}
    grad_inputs = ("Input", "Out@GRAD")

    def infer_shape(self, ctx):
        x = ctx.input_var("Input")
        a1, a2 = plane_axes(ctx)
        k, rows, cols = ctx.attr("offset"), x.shape[a1], x.shape[a2]
        n = -1 if rows < 0 or cols < 0 else max(0, min(rows, cols - k) if k >= 0
                                                else min(rows + k, cols))
        ctx.set_output("Out", [d for i, d in enumerate(x.shape) if i not in (a1, a2)] + [n],
                       x.dtype)

    @staticmethod
    def forward(x, offset=0, axis1=0, axis2=1):
        return np.ascontiguousarray(np.diagonal(x, offset, axis1, axis2))

    @staticmethod
    def backward(x, dout, offset=0, axis1=0, axis2=1):
        dx = np.zeros_like(x)
        # numpy's diagonal view of dx is read-only: write through the same positions
        planes = np.moveaxis(dx, (axis1 % x.ndim, axis2 % x.ndim), (-2, -1))
        i = np.arange(dout.shape[-1])
        planes[..., i + max(-offset, 0), i + max(offset, 0)] = dout
        return dx

    def samples(self, rng):
        yield Sample({"Input": rand(rng, 3, 4)}, {"offset": 1})
        yield Sample({"Input": rand(rng, 2, 3, 4)}, {"offset": -1, "axis1": -1, "axis2": 1})


def _triangle(op, rows, cols, offset, dtype, lower):
    if rows < 0 or cols < 0:
        raise ValueError("%s: rows and cols must be >= 0, got %d and %d" % (op, rows, cols))
    pick = np.tril_indices if lower else np.triu_indices
    return np.stack(pick(rows, offset, cols)).astype(dtype)


class _TriangleIndices(OpDef):
    """Out = [[row...], [col...]] of the elements on and below (lower) / above the
    `offset`-th diagonal of a matrix whose size the attrs `sizes` name."""
    inputs = ()
    outputs = ("out",)
    lower = True
    sizes = ("rows", "cols")

    def infer_shape(self, ctx):
        rows, cols = (ctx.attr(a) for a in self.sizes)
        ctx.expect(rows >= 0 and cols >= 0, "%s and %s must be >= 0, got %d and %d"
                   % (self.sizes + (rows, cols)))
        n = _triangle(self.type, rows, cols, ctx.attr("offset"), "int64", self.lower).shape[1]
        ctx.set_output("out", [2, n], ctx.attr("dtype"))

    def forward(self, offset=0, dtype="int64", **sizes):
        rows, cols = (sizes.get(a, 0) for a in self.sizes)
        return _triangle(self.type, rows, cols, offset, dtype, self.lower)


@register
class TrilIndices(_TriangleIndices):
    type = "tril_indices"
    attrs = {"rows": 0, "cols": 0, "offset": 0, "dtype": "int64"}

    def samples(self, rng):
        yield Sample({}, {"rows": 4, "cols": 3, "offset": -1, "dtype": "int64"})
        yield Sample({}, {"rows": 2, "cols": 5, "offset": 1, "dtype": "int32"})


@register
class TriuIndices(_TriangleIndices):
    type = "triu_indices"
    attrs = {"row": 0, "col": 0, "offset": 0, "dtype": "int64"}   # 3.3.1's singular names
    lower = False
    sizes = ("row", "col")

    def samples(self, rng):
        yield Sample({}, {"row": 4, "col": 3, "offset": 1, "dtype": "int64"})
        yield Sample({}, {"row": 3, "col": 3, "offset": -1, "dtype": "int32"})
