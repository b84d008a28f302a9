"""lod_rank_table and shrink_rnn_memory: Paddle 1.8's rank table of a LoD tensor and the
memory shrinking of its DynamicRNN (specs/ops/sequence.md#rank-tables). A rank table's
value is the lengths of the ranked level's sequences (ops/_rank_table.py); its order,
longest first, ties in order, is what the consumers apply."""
import numpy as np

from ..framework.lod import lod_of, with_lod
from ._common import rand
from ._sequence import check_lengths_var, lengths_of
from .registry import OpDef, Sample, lengths_lod, register, result_lod


@register
class LoDRankTable(OpDef):
    """Out: the rank table of X's LoD level `level` (ops/_rank_table.py): the lengths of
    that level's sequences, carrying the levels above as its LoD. X without a LoD: its rows
    as sequences of one (level 0 only)."""
    type = "lod_rank_table"
    inputs = ("X",)
    outputs = ("Out",)
    attrs = {"level": 0}
    lod_whole = ("X",)
    lod_outputs = {"Out": result_lod("Out", lambda levels: 0)}

    def infer_shape(self, ctx):
        # (the level is checked against X's LoD at run time: a variable declared without
        # lod_level may be fed one, as in Paddle)
        ctx.expect(ctx.attr("level") >= 0, "attr level must be >= 0, got %r"
                   % (ctx.attr("level"),))
        ctx.set_output("Out", (-1,), "int64")

    @staticmethod
    def forward(x, level=0):
        lod = lod_of(x)
        if not lod and level == 0:
            return np.ones(len(x), np.int64)
        if not 0 <= level < len(lod):
            raise ValueError("lod_rank_table: level %d is not one of X's %d LoD levels %s"
                             % (level, len(lod), [list(v) for v in lod]))
        return with_lod(np.array(lod[level], np.int64), lod[:level])

    def samples(self, rng):
        yield Sample({"X": with_lod(rand(rng, 5, 2), ((2, 0, 3),))})
        yield Sample({"X": with_lod(rand(rng, 6, 2), ((1, 2), (2, 1, 3)))}, {"level": 1},
                     name="level 1")


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
