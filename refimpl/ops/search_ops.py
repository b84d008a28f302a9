"""Sorting and searching: argsort (values and indices) and where_index (coordinates of the
true elements; fluid.layers.where)."""
import numpy as np

from ._common import rand
from .registry import OpDef, Sample, register


@register
class Argsort(OpDef):
    """Out = X sorted along `axis`, Indices = where each came from. Ties keep their input
    order (stable sort)."""
    type = "argsort"
    inputs = ("X",)
    outputs = ("Out", "Indices")
    attrs = {"axis": -1, "descending": False}
    grad_inputs = ("X", "Indices", "Out@GRAD")

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        axis = ctx.attr("axis")
        ctx.expect(-len(x.shape) <= axis < len(x.shape),
                   "axis %d is out of range for X %r of rank %d" % (axis, x.name, len(x.shape)))
        ctx.set_output("Out", x.shape, x.dtype)
        ctx.set_output("Indices", x.shape, "int64")

    @staticmethod
    def forward(x, axis=-1, descending=False):
        indices = np.argsort(-x if descending else x, axis=axis, kind="stable")
        return np.take_along_axis(x, indices, axis=axis), indices.astype(np.int64)

    @staticmethod
    def backward(x, indices, dout, axis=-1, descending=False):
        # Out[i] = X[Indices[i]]: send each gradient back where its value came from.
        dx = np.zeros_like(x)
        np.put_along_axis(dx, indices, dout, axis=axis)
        return dx

    def samples(self, rng):
        # distinct values, so the order (and the finite differences) are unambiguous
        x = rng.permutation(12).reshape(3, 4) + rand(rng, 3, 4, low=0.0, high=0.5)
        yield Sample({"X": x}, {"axis": -1})
        yield Sample({"X": x}, {"axis": 0, "descending": True})


@register
class WhereIndex(OpDef):
    """The coordinates of Condition's true elements, one row each, in row-major order."""
    type = "where_index"
    inputs = ("Condition",)
    outputs = ("Out",)

    def infer_shape(self, ctx):
        ctx.set_output("Out", [-1, len(ctx.input_var("Condition").shape)], "int64")

    @staticmethod
    def forward(condition):
        return np.argwhere(condition).astype(np.int64)

    def samples(self, rng):
        yield Sample({"Condition": rng.rand(3, 4) > 0.5})
