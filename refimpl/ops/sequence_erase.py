"""sequence_erase: the ids of X [total, 1] that are not among `tokens`, each sequence
keeping its remaining ids in order; OutLength (the result's last LoD level, under X's
upper levels) counts what each sequence kept. No gradient (ids)."""
import numpy as np

from ._sequence import INTS, lengths_of, ragged_lengths, segments
from .registry import OpDef, Sample, lengths_lod, register


@register
class SequenceErase(OpDef):
    type = "sequence_erase"
    inputs = ("X", "XLength")
    outputs = ("Out", "OutLength")
    attrs = {"tokens": []}
    lod_lengths = {"XLength": "X"}
    lod_outputs = {"Out": lengths_lod("OutLength", under="X")}

    def infer_shape(self, ctx):
        ctx.check_dtype("X", INTS)
        x = ctx.input_var("X")
        ctx.expect(len(x.shape) == 2 and x.shape[1] in (-1, 1),
                   "input X %r: expected ids [total, 1], got %s" % (x.name, list(x.shape)))
        ctx.set_output("Out", (-1, 1), x.dtype)
        ctx.set_output("OutLength", (-1,), "int64")

    @staticmethod
    def forward(x, length, tokens=()):
        keep = ~np.isin(x.reshape(-1), np.asarray(list(tokens), x.dtype))
        kept = [int(keep[s:e].sum()) for s, e in
                segments(lengths_of(length, len(x), "sequence_erase"))]
        return x[keep].reshape(-1, 1), np.array(kept, np.int64)

    def samples(self, rng):
        lens = ragged_lengths(rng, high=5)
        yield Sample({"X": rng.randint(0, 6, (int(lens.sum()), 1)).astype(np.int64),
                      "XLength": lens}, {"tokens": [2, 3]})
