"""sequence_slice: rows [Offset[i], Offset[i] + Length[i]) of each sequence i."""
import numpy as np

from ._common import rand
from ._sequence import check_lengths_var, lengths_of, row_index, scatter_rows
from .registry import OpDef, Sample, lengths_lod, register


@register
class SequenceSlice(OpDef):
    type = "sequence_slice"
    inputs = ("X", "Offset", "Length", "XLength")
    outputs = ("Out",)
    no_grad = ("Offset", "Length", "XLength")
    grad_inputs = ("X", "Offset", "Length", "XLength", "Out@GRAD")
    lod_lengths = {"XLength": "X"}
    lod_outputs = {"Out": lengths_lod("Length")}

    def infer_shape(self, ctx):
        for slot in ("Offset", "Length"):
            check_lengths_var(ctx, slot)
        x = ctx.input_var("X")
        ctx.set_output("Out", (-1,) + tuple(x.shape[1:]), x.dtype)

    @staticmethod
    def forward(x, offset, length, x_length):
        return x[_rows(x, offset, length, x_length)]

    @staticmethod
    def backward(x, offset, length, x_length, dout):
        return scatter_rows(dout, _rows(x, offset, length, x_length), len(x))

    def samples(self, rng):
        yield Sample({"X": rand(rng, 6, 2), "Offset": np.array([[1], [0], [0]], np.int64),
                      "Length": np.array([[2], [1], [0]], np.int64),
                      "XLength": np.array([3, 1, 2], np.int64)})


def _rows(x, offset, length, x_length):
    lens = lengths_of(x_length, len(x), "sequence_slice")
    starts = np.asarray(offset).reshape(-1).astype(np.int64)
    sizes = lengths_of(length, None, "sequence_slice", "Length")
    if not len(starts) == len(sizes) == len(lens):
        raise ValueError("sequence_slice: Offset (%d), Length (%d) and the input's sequences "
                         "(%d) must have the same count" % (len(starts), len(sizes), len(lens)))
    bad = (starts < 0) | (starts + sizes > lens)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError("sequence_slice: sequence %d has %d rows; Offset %d + Length %d is "
                         "out of range" % (i, lens[i], starts[i], sizes[i]))
    return row_index(lens, lambda i, s, e: np.arange(s + starts[i], s + starts[i] + sizes[i]))
