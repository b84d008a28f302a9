"""sequence_expand_as: row i of X repeated YLength[i] times (the result has Y's lengths)."""
import numpy as np

from ._common import rand
from ._sequence import lengths_of, scatter_rows
from .registry import OpDef, Sample, register, share_lod


@register
class SequenceExpandAs(OpDef):
    type = "sequence_expand_as"
    inputs = ("X", "Y", "YLength")
    outputs = ("Out",)
    no_grad = ("YLength",)
    grad_inputs = ("X", "Y", "YLength", "Out@GRAD")
    lod_only = ("Y",)
    lod_lengths = {"YLength": "Y"}
    lod_outputs = {"Out": share_lod("Y")}

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        ctx.set_output("Out", (-1,) + tuple(x.shape[1:]), x.dtype)

    @staticmethod
    def forward(x, y_length):
        return x[_rows(x, y_length)]

    @staticmethod
    def backward(x, y_length, dout):
        return scatter_rows(dout, _rows(x, y_length), len(x))

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 2), "YLength": np.array([3, 1, 2], np.int64)})
        yield Sample({"X": rand(rng, 2, 2, 2), "YLength": np.array([0, 2], np.int64)})


def _rows(x, y_length):
    times = lengths_of(y_length, None, "sequence_expand_as", "YLength")
    if len(times) != len(x):
        raise ValueError("sequence_expand_as: X has %d rows but Y has %d sequences"
                         % (len(x), len(times)))
    return np.repeat(np.arange(len(x)), times)
