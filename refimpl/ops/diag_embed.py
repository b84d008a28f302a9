"""diag_embed: the last dim of Input placed on the `offset` diagonal of a square matrix
spanning output dims dim1, dim2 (zeros elsewhere); the gradient reads that diagonal."""
import numpy as np

from ._common import rand
from .registry import OpDef, Sample, register


def _layout(ndim_out, dim1, dim2):
    return dim1 % ndim_out, dim2 % ndim_out


def _diagonal_index(n, offset):
    """(rows, cols) of the `offset` diagonal of an [n + |offset|]^2 matrix."""
    i = np.arange(n)
    return (i, i + offset) if offset >= 0 else (i - offset, i)


@register
class DiagEmbed(OpDef):
    type = "diag_embed"
    inputs = ("Input",)
    outputs = ("Out",)
    attrs = {"offset": 0, "dim1": -2, "dim2": -1}
    grad_inputs = ("Out@GRAD",)

    def infer_shape(self, ctx):
        x = ctx.input_var("Input")
        ndim = len(x.shape) + 1
        d1, d2 = ctx.attr("dim1"), ctx.attr("dim2")
        ctx.expect(-ndim <= d1 < ndim and -ndim <= d2 < ndim,
                   "dim1 %d and dim2 %d must be in [%d, %d) for Input %r %s"
                   % (d1, d2, -ndim, ndim, x.name, list(x.shape)))
        d1, d2 = _layout(ndim, d1, d2)
        ctx.expect(d1 != d2, "dim1 and dim2 must differ, both are dim %d" % d1)
        n = x.shape[-1]
        size = n + abs(ctx.attr("offset")) if n >= 0 else -1
        shape = list(x.shape[:-1])
        for d in sorted((d1, d2)):
            shape.insert(d, size)
        ctx.set_output("Out", shape, x.dtype)

    @staticmethod
    def forward(x, offset=0, dim1=-2, dim2=-1):
        n = x.shape[-1]
        size = n + abs(offset)
        out = np.zeros(x.shape[:-1] + (size, size), x.dtype)
        rows, cols = _diagonal_index(n, offset)
        out[..., rows, cols] = x
        d1, d2 = _layout(x.ndim + 1, dim1, dim2)
        return np.moveaxis(out, (-2, -1), (d1, d2))

    @staticmethod
    def backward(dout, offset=0, dim1=-2, dim2=-1):
        d1, d2 = _layout(dout.ndim, dim1, dim2)
        mats = np.moveaxis(dout, (d1, d2), (-2, -1))
        rows, cols = _diagonal_index(mats.shape[-1] - abs(offset), offset)
        return np.ascontiguousarray(mats[..., rows, cols])

    def samples(self, rng):
        yield Sample({"Input": rand(rng, 2, 3)}, name="default")
        yield Sample({"Input": rand(rng, 2, 3)}, {"offset": 1, "dim1": 0, "dim2": 2},
                     name="offset_dims")
        yield Sample({"Input": rand(rng, 3)}, {"offset": -2, "dim1": 1, "dim2": 0},
                     name="negative")
