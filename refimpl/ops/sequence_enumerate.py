"""sequence_enumerate: for every row k of a sequence of ids, the window of win_size ids
starting at k, padded with pad_value past the sequence's end. No gradient (ids)."""
import numpy as np

from ._sequence import INTS, lengths_of, ragged_lengths, segments
from .registry import OpDef, Sample, register, share_lod


@register
class SequenceEnumerate(OpDef):
    type = "sequence_enumerate"
    inputs = ("X", "XLength")
    outputs = ("Out",)
    attrs = {"win_size": 2, "pad_value": 0}
    lod_lengths = {"XLength": "X"}
    lod_outputs = {"Out": share_lod("X")}

    def infer_shape(self, ctx):
        ctx.check_dtype("X", INTS)
        x = ctx.input_var("X")
        ctx.expect(len(x.shape) == 1 or (len(x.shape) == 2 and x.shape[1] in (-1, 1)),
                   "input X %r: expected ids [total, 1], got %s" % (x.name, list(x.shape)))
        ctx.expect(ctx.attr("win_size") >= 1, "attr win_size must be >= 1, got %r"
                   % ctx.attr("win_size"))
        ctx.set_output("Out", (x.shape[0], ctx.attr("win_size")), x.dtype)

    @staticmethod
    def forward(x, length, win_size=2, pad_value=0):
        ids = x.reshape(-1)
        out = np.full((len(ids), win_size), pad_value, x.dtype)
        for s, e in segments(lengths_of(length, len(ids), "sequence_enumerate")):
            for j in range(win_size):
                out[s:max(s, e - j), j] = ids[s + j:e]
        return out

    def samples(self, rng):
        lens = ragged_lengths(rng)
        yield Sample({"X": rng.randint(0, 9, (int(lens.sum()), 1)).astype(np.int64),
                      "XLength": lens}, {"win_size": 3, "pad_value": -1})
