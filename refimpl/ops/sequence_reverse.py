"""sequence_reverse: each sequence's rows in reverse order."""
import numpy as np

from ._common import rand
from ._sequence import lengths_of, ragged_lengths, row_index
from .registry import OpDef, Sample, register, share_lod


@register
class SequenceReverse(OpDef):
    type = "sequence_reverse"
    inputs = ("X", "XLength")
    outputs = ("Y",)
    no_grad = ("XLength",)
    grad_inputs = ("X", "XLength", "Y@GRAD")
    grad_lod_only = ("X",)
    lod_lengths = {"XLength": "X"}
    lod_outputs = {"Y": share_lod("X")}

    def infer_shape(self, ctx):
        ctx.same_as("X", "Y")

    @staticmethod
    def forward(x, length):
        return x[_reversed_rows(lengths_of(length, len(x), "sequence_reverse"))]

    @staticmethod
    def backward(length, dy):
        # the permutation is its own inverse
        return dy[_reversed_rows(lengths_of(length, len(dy), "sequence_reverse_grad"))]

    def samples(self, rng):
        lens = ragged_lengths(rng)
        yield Sample({"X": rand(rng, int(lens.sum()), 2), "XLength": lens})


def _reversed_rows(lens):
    return row_index(lens, lambda i, s, e: np.arange(e - 1, s - 1, -1))
