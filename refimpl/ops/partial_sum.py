"""partial_sum (Paddle 1.8 contrib): the sum of the columns [start_index, start_index +
length) of the 2-D inputs in X (the column range as partial_concat's). Each input's grad
is Out@GRAD at those columns, zeros elsewhere."""
import numpy as np

from ._common import rand
from .partial_concat import PartialColumns
from .registry import Sample, register


@register
class PartialSum(PartialColumns):
    type = "partial_sum"

    @staticmethod
    def combine(blocks):
        return np.sum(blocks, axis=0)

    @staticmethod
    def out_width(width, inputs):
        return width

    @staticmethod
    def grad_block(dout, i, width):
        return dout

    def samples(self, rng):
        yield Sample({"X": [rand(rng, 3, 5), rand(rng, 3, 5), rand(rng, 3, 5)]},
                     {"start_index": 2, "length": 3})
        yield Sample({"X": [rand(rng, 2, 4)]}, {"start_index": -1, "length": -1})
