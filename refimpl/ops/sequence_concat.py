"""sequence_concat: sequence i of the result = sequence i of each input, one after another."""
import numpy as np

from ._common import rand
from ._sequence import lengths_of, ragged_lengths, segments
from .registry import OpDef, Sample, lengths_lod, register


@register
class SequenceConcat(OpDef):
    type = "sequence_concat"
    inputs = ("X*", "XLength*")
    outputs = ("Out", "OutLength")
    no_grad = ("XLength",)
    grad_inputs = ("X*", "XLength*", "Out@GRAD")
    lod_lengths = {"XLength": "X"}
    lod_outputs = {"Out": lengths_lod("OutLength", under="X")}

    def infer_shape(self, ctx):
        xs = ctx.input_vars("X")
        for x in xs[1:]:
            ctx.expect(tuple(x.shape[1:]) == tuple(xs[0].shape[1:]),
                       "input X %r: row shape %s differs from %r's %s" % (
                           x.name, list(x.shape[1:]), xs[0].name, list(xs[0].shape[1:])))
        total = -1 if any(x.shape[0] < 0 for x in xs) else sum(x.shape[0] for x in xs)
        ctx.set_output("Out", (total,) + tuple(xs[0].shape[1:]), xs[0].dtype)
        ctx.set_output("OutLength", (-1,), "int64")

    @staticmethod
    def forward(xs, lengths):
        spans = _spans(xs, lengths)
        rows = [xs[k][s:e] for seq in spans for k, (s, e) in enumerate(seq)]
        out = np.concatenate(rows) if rows else xs[0][:0]
        return out, sum(lengths_of(n, None, "sequence_concat") for n in lengths)

    @staticmethod
    def backward(xs, lengths, dout):
        dxs = [np.empty_like(x) for x in xs]
        at = 0
        for seq in _spans(xs, lengths):
            for k, (s, e) in enumerate(seq):
                dxs[k][s:e] = dout[at:at + e - s]
                at += e - s
        return dxs

    def samples(self, rng):
        a, b = ragged_lengths(rng), ragged_lengths(rng)
        yield Sample({"X": [rand(rng, int(a.sum()), 2), rand(rng, int(b.sum()), 2)],
                      "XLength": [a, b]})


def _spans(xs, lengths):
    """For each sequence i, the (start, end) rows in each input."""
    per_input = [segments(lengths_of(n, len(x), "sequence_concat")) for x, n in zip(xs, lengths)]
    if len({len(p) for p in per_input}) > 1:
        raise ValueError("sequence_concat: inputs hold different numbers of sequences: %s"
                         % [len(p) for p in per_input])
    return list(zip(*per_input))
