"""reorder_lod_tensor_by_rank: X's sequences (its rows when XLength is absent) put in the
order of a rank table. refimpl has no LoDRankTable: RankTable is the lengths vector a rank
table is built from, and the order is Paddle's rank-table order, the sequences sorted by
length, longest first, ties in their original order. OutLength: X's lengths reordered."""
import numpy as np

from ._common import rand
from ._sequence import check_lengths_var, lengths_of, row_index, scatter_rows
from .registry import OpDef, Sample, lengths_lod, register


def _order_and_rows(x_rows, rank_table, length):
    ranks = lengths_of(rank_table, None, "reorder_lod_tensor_by_rank", "RankTable")
    order = np.argsort(-ranks, kind="stable")
    if length is None:
        if len(ranks) != x_rows:
            raise ValueError("reorder_lod_tensor_by_rank: X has %d rows but the rank table %d "
                             "entries" % (x_rows, len(ranks)))
        return None, order
    lens = lengths_of(length, x_rows, "reorder_lod_tensor_by_rank")
    if len(lens) != len(ranks):
        raise ValueError("reorder_lod_tensor_by_rank: X has %d sequences but the rank table "
                         "%d entries" % (len(lens), len(ranks)))
    starts = np.concatenate([[0], np.cumsum(lens)])
    rows = row_index(lens[order], lambda i, s, e: np.arange(starts[order[i]],
                                                            starts[order[i]] + e - s))
    return lens[order], rows


@register
class ReorderLoDTensorByRank(OpDef):
    type = "reorder_lod_tensor_by_rank"
    inputs = ("X", "RankTable", "XLength?")
    outputs = ("Out", "OutLength")
    no_grad = ("RankTable", "XLength")
    grad_inputs = ("X", "RankTable", "XLength", "Out@GRAD")
    lod_lengths = {"XLength": "X"}
    lod_outputs = {"Out": lengths_lod("OutLength")}

    def infer_shape(self, ctx):
        check_lengths_var(ctx, "RankTable")
        x = ctx.input_var("X")
        ctx.set_output("Out", (-1,) + tuple(x.shape[1:]), x.dtype)
        ctx.set_output("OutLength", (-1,), "int64")

    @staticmethod
    def forward(x, rank_table, length):
        out_lens, rows = _order_and_rows(len(x), rank_table, length)
        return x[rows], (np.ones(len(x), np.int64) if out_lens is None else out_lens)

    @staticmethod
    def backward(x, rank_table, length, dout):
        return scatter_rows(dout, _order_and_rows(len(x), rank_table, length)[1], len(x))

    def samples(self, rng):
        lens = np.array([1, 3, 0, 2], np.int64)
        yield Sample({"X": rand(rng, 6, 2), "RankTable": lens, "XLength": lens})
        yield Sample({"X": rand(rng, 3, 2), "RankTable": np.array([2, 5, 2], np.int64)})
