"""partial_sum (Paddle 1.8 contrib): the sum of the columns [start_index, start_index +
length) of the 2-D inputs in X (the column range as partial_concat's). Each input's grad
is Out@GRAD at those columns, zeros elsewhere."""
import numpy as np

from ._common import rand
from .partial_concat import column_range, infer_partial_shape
from .registry import OpDef, Sample, register


@register
class PartialSum(OpDef):
    type = "partial_sum"
    inputs = ("X*",)
    outputs = ("Out",)
    attrs = {"start_index": 0, "length": -1}
    grad_inputs = ("X*", "Out@GRAD")

    def infer_shape(self, ctx):
        infer_partial_shape(ctx, lambda taken, n: taken)

    @staticmethod
    def forward(xs, start_index=0, length=-1):
        start, stop = column_range(None, xs[0].shape[1], start_index, length, "partial_sum")
        return np.sum([x[:, start:stop] for x in xs], axis=0)

    @staticmethod
    def backward(xs, dout, start_index=0, length=-1):
        start, stop = column_range(None, xs[0].shape[1], start_index, length, "partial_sum")
        grads = []
        for x in xs:
            dx = np.zeros_like(x)
            dx[:, start:stop] = dout
            grads.append(dx)
        return grads

    def samples(self, rng):
        yield Sample({"X": [rand(rng, 3, 5), rand(rng, 3, 5), rand(rng, 3, 5)]},
                     {"start_index": 2, "length": 3})
        yield Sample({"X": [rand(rng, 2, 4)]}, {"start_index": -1, "length": -1})
