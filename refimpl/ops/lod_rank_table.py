"""lod_rank_table and shrink_rnn_memory: Paddle 1.8's rank table of a LoD tensor and the
memory shrinking of its DynamicRNN (specs/ops/sequence.md#rank-tables). refimpl has no
LoDRankTable type: a rank table is the lengths vector it is built from (as
reorder_lod_tensor_by_rank reads it); its order, longest first, ties in order, is what
the consumers apply."""
import numpy as np

from ._common import rand
from ._sequence import check_lengths_var, lengths_of
from .registry import OpDef, Sample, lengths_lod, register


@register
class LoDRankTable(OpDef):
    """Out: the lengths of X's sequences (int64; each row a sequence of 1 when X has no
    LoD). Only level 0."""
    type = "lod_rank_table"
    inputs = ("X", "XLength?")
    outputs = ("Out",)
    attrs = {"level": 0}
    lod_lengths = {"XLength": "X"}

    def infer_shape(self, ctx):
        ctx.expect(ctx.attr("level") == 0, "attr level must be 0 (refimpl's rank tables "
                   "are of the first LoD level), got %r" % ctx.attr("level"))
        ctx.set_output("Out", (-1,), "int64")

    @staticmethod
    def forward(x, length, level=0):
        if length is None:
            return np.ones(len(x), np.int64)
        return lengths_of(length, len(x), "lod_rank_table").copy()

    def samples(self, rng):
        lens = np.array([2, 0, 3], np.int64)
        yield Sample({"X": rand(rng, 5, 2), "XLength": lens})


def _kept(x_rows, rank_table, i, length):
    """(rows kept, their lengths or None): the sequences still running at step i (those
    whose rank-table length exceeds i) are X's first ones, X being in rank order."""
    running = int((lengths_of(rank_table, None, "shrink_rnn_memory", "RankTable") >
                   int(np.asarray(i).reshape(-1)[0])).sum())
    if length is None:
        return min(running, x_rows), None
    lens = lengths_of(length, x_rows, "shrink_rnn_memory")[:running]
    return int(lens.sum()), lens


@register
class ShrinkRNNMemory(OpDef):
    """Out: X's first rows (first sequences when X has a LoD, keeping their LoD), one per
    sequence of the rank table longer than I; X@GRAD is Out@GRAD over those rows, zeros
    below."""
    type = "shrink_rnn_memory"
    inputs = ("X", "RankTable", "I", "XLength?")
    outputs = ("Out", "OutLength")
    no_grad = ("RankTable", "I", "XLength")
    grad_inputs = ("X", "RankTable", "I", "XLength", "Out@GRAD")
    lod_lengths = {"XLength": "X"}
    lod_outputs = {"Out": lengths_lod("OutLength", if_lod="X")}

    def infer_shape(self, ctx):
        check_lengths_var(ctx, "RankTable")
        x = ctx.input_var("X")
        ctx.set_output("Out", (-1,) + tuple(x.shape[1:]), x.dtype)
        ctx.set_output("OutLength", (-1,), "int64")

    @staticmethod
    def forward(x, rank_table, i, length):
        rows, lens = _kept(len(x), rank_table, i, length)
        return x[:rows].copy(), (np.ones(rows, np.int64) if lens is None else lens)

    @staticmethod
    def backward(x, rank_table, i, length, dout):
        dx = np.zeros_like(x)
        dx[:len(dout)] = dout
        return dx

    def samples(self, rng):
        lens = np.array([3, 2, 1], np.int64)
        yield Sample({"X": rand(rng, 6, 2), "RankTable": np.array([1, 2, 3], np.int64),
                      "I": np.array([1], np.int64), "XLength": lens})
        yield Sample({"X": rand(rng, 3, 2), "RankTable": np.array([1, 2, 3], np.int64),
                      "I": np.array([2], np.int64)}, name="rows")
