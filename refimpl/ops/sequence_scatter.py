"""sequence_scatter: Out = X [batch, D] with, for the i-th sequence of Ids / Updates,
Updates added at Out[i, Ids] (repeated ids add up)."""
import numpy as np

from ._common import rand
from ._sequence import INTS, lengths_of
from .registry import OpDef, Sample, register


def _targets(x, ids, length):
    """(batch row, column) each update lands on."""
    lens = lengths_of(length, ids.size, "sequence_scatter", "IdsLength")
    if len(lens) != len(x):
        raise ValueError("sequence_scatter: X has %d rows but Ids has %d sequences"
                         % (len(x), len(lens)))
    cols = ids.reshape(-1)
    if len(cols) and (cols.min() < 0 or cols.max() >= x.shape[1]):
        raise ValueError("sequence_scatter: Ids must be in [0, %d), got %s"
                         % (x.shape[1], sorted(set(cols.tolist()))))
    return np.repeat(np.arange(len(lens)), lens), cols


@register
class SequenceScatter(OpDef):
    type = "sequence_scatter"
    inputs = ("X", "Ids", "Updates", "IdsLength")
    outputs = ("Out",)
    no_grad = ("Ids", "IdsLength")
    grad_inputs = ("X", "Ids", "Updates", "IdsLength", "Out@GRAD")
    lod_lengths = {"IdsLength": "Ids"}
    lod_alike = {"Updates": "Ids"}

    def infer_shape(self, ctx):
        ctx.check_dtype("Ids", INTS)
        x = ctx.input_var("X")
        ctx.expect(len(x.shape) == 2, "input X %r: expected [batch, D], got %s"
                   % (x.name, list(x.shape)))
        ctx.same_as("X", "Out")

    @staticmethod
    def forward(x, ids, updates, length):
        out = x.copy()
        np.add.at(out, _targets(x, ids, length), updates.reshape(-1))
        return out

    @staticmethod
    def backward(x, ids, updates, length, dout):
        return dout, dout[_targets(x, ids, length)].reshape(updates.shape)

    def samples(self, rng):
        lens = np.array([3, 0, 2], np.int64)
        yield Sample({"X": rand(rng, 3, 4), "Ids": np.array([[0], [2], [0], [3], [1]]),
                      "Updates": rand(rng, 5, 1), "IdsLength": lens})
