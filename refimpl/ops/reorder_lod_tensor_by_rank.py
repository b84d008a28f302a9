"""reorder_lod_tensor_by_rank: X's top-level sequences (its rows when X has no LoD), each
with the sub-LoD below it, put in the order of a rank table (ops/_rank_table.py: longest
first, ties in their original order). Out carries the reordered LoD (none when X has
none, as Paddle 1.8.5); X@GRAD is Out@GRAD put back in X's order."""
import numpy as np

from ..framework.lod import lod_of, rank_order, with_lod
from ._common import rand
from ._rank_table import child_count, gather_children, table_parts
from ._sequence import scatter_rows
from .registry import OpDef, Sample, first_level, register, result_lod


def _reordered(x, rank_table):
    lengths, _ = table_parts(rank_table)
    lod = lod_of(x)
    if child_count(lod, len(x)) != len(lengths):
        raise ValueError("reorder_lod_tensor_by_rank: X has %d %s but the rank table %d "
                         "entries" % (child_count(lod, len(x)),
                                      "sequences" if lod else "rows", len(lengths)))
    return gather_children(lod, len(x), rank_order(lengths))


@register
class ReorderLoDTensorByRank(OpDef):
    type = "reorder_lod_tensor_by_rank"
    inputs = ("X", "RankTable")
    outputs = ("Out",)
    no_grad = ("RankTable",)
    grad_inputs = ("X", "RankTable", "Out@GRAD")
    lod_whole = ("X",)
    lod_outputs = {"Out": result_lod("Out", lambda levels: first_level(levels, "X"))}

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        ctx.set_output("Out", (-1,) + tuple(x.shape[1:]), x.dtype)

    @staticmethod
    def forward(x, rank_table):
        rows, lod = _reordered(x, rank_table)
        return with_lod(np.asarray(x)[rows], lod)

    @staticmethod
    def backward(x, rank_table, dout):
        return scatter_rows(np.asarray(dout), _reordered(x, rank_table)[0], len(x))

    def samples(self, rng):
        table = np.array([1, 3, 0, 2], np.int64)
        yield Sample({"X": with_lod(rand(rng, 6, 2), ((1, 3, 0, 2),)), "RankTable": table})
        yield Sample({"X": with_lod(rand(rng, 7, 2), ((1, 1, 2, 1), (1, 2, 1, 1, 2))),
                      "RankTable": table}, name="two levels")
        yield Sample({"X": rand(rng, 3, 2), "RankTable": np.array([2, 5, 2], np.int64)},
                     name="rows")
