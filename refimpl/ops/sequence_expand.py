"""sequence_expand: sequence i of X (row i when X has no LoD) repeated YLength[i] times
(Y's LoD at ref_level); the result's LoD is OutLength when X has a LoD, else none (as in
Paddle)."""
import numpy as np

from ._common import rand
from ._sequence import (lengths_of, offsets, ragged_lengths,
                        scatter_rows)
from .registry import OpDef, Sample, lengths_lod, register


@register
class SequenceExpand(OpDef):
    type = "sequence_expand"
    inputs = ("X", "Y", "XLength?", "YLength")
    outputs = ("Out", "OutLength")
    attrs = {"ref_level": -1}
    no_grad = ("XLength", "YLength")
    grad_inputs = ("X", "Y", "XLength?", "YLength", "Out@GRAD")
    lod_only = ("Y",)
    lod_lengths = {"XLength": "X", "YLength": "Y:ref_level"}
    lod_outputs = {"Out": lengths_lod("OutLength", if_lod="X")}

    def infer_shape(self, ctx):
        ctx.expect(ctx.attr("ref_level") >= -1, "ref_level must be -1 (Y's last LoD level) "
                   "or a level of Y's LoD, got %s" % ctx.attr("ref_level"))
        x = ctx.input_var("X")
        ctx.set_output("Out", (-1,) + tuple(x.shape[1:]), x.dtype)
        ctx.set_output("OutLength", (-1,), "int64")

    @staticmethod
    def forward(x, x_length, y_length, ref_level=-1):
        index, out_lens = _expand_index(x, x_length, y_length)
        return x[index], out_lens

    @staticmethod
    def backward(x, x_length, y_length, dout, ref_level=-1):
        return scatter_rows(dout, _expand_index(x, x_length, y_length)[0], len(x))

    def samples(self, rng):
        lens = ragged_lengths(rng)
        yield Sample({"X": rand(rng, int(lens.sum()), 2), "XLength": lens,
                      "YLength": np.array([2, 0, 3], np.int64)})
        yield Sample({"X": rand(rng, 3, 2), "YLength": np.array([2, 0, 3], np.int64)})


def _expand_index(x, x_length, y_length):
    """Rows of X gathered into the output, and the output's sequence lengths."""
    times = lengths_of(y_length, None, "sequence_expand", "YLength")
    lens = (np.ones(len(x), np.int64) if x_length is None
            else lengths_of(x_length, len(x), "sequence_expand"))
    if len(lens) != len(times):
        raise ValueError("sequence_expand: X has %d sequences but YLength has %d entries"
                         % (len(lens), len(times)))
    off = offsets(lens)
    index = [np.arange(off[i], off[i + 1]) for i in range(len(lens)) for _ in range(times[i])]
    index = np.concatenate(index) if index else np.zeros(0, np.int64)
    out_lens = times if x_length is None else np.repeat(lens, times)
    return index, out_lens.astype(np.int64)
