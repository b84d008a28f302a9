"""lod_tensor_to_array: X's sequences at the rank table's level as a tensor array of time
steps. Element t holds the t-th child (entry of the next level, or row) of every sequence
longer than t, in rank order (longest first), each with the sub-LoD below it
(ops/_rank_table.py). X@GRAD: each element's gradient put back on its rows (zeros on rows
no gradient reached), what array_to_lod_tensor does."""
import numpy as np

from ..framework.lod import with_lod
from ._rank_table import check_table_fits, step_rows, table_parts, tensor_lod
from .registry import OpDef, first_level, register, result_lod


def _steps(x, rank_table):
    lengths, coarse = table_parts(rank_table)
    lod = tensor_lod(x, "lod_tensor_to_array")
    check_table_fits(lod, lengths, coarse, "lod_tensor_to_array")
    return step_rows(lod, lengths, len(coarse))


@register
class LoDTensorToArray(OpDef):
    type = "lod_tensor_to_array"
    inputs = ("X", "RankTable")
    outputs = ("Out",)
    no_grad = ("RankTable",)
    grad_inputs = ("X", "RankTable", "Out@GRAD")
    lod_whole = ("X", "RankTable")
    # the elements' lod_level: X's less the level the steps run over (Paddle 1.8.5's)
    lod_outputs = {"Out": result_lod("Out", lambda levels: max(first_level(levels, "X") - 1,
                                                               0))}

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        ctx.set_output("Out", (-1,) + tuple(x.shape[1:]), x.dtype)

    @staticmethod
    def forward(x, rank_table):
        data = np.asarray(x)
        return [with_lod(data[rows], lod) for rows, lod in _steps(x, rank_table)]

    @staticmethod
    def backward(x, rank_table, dout):
        dx = np.zeros(np.shape(x), np.asarray(x).dtype)
        for (rows, _), d in zip(_steps(x, rank_table), dout):
            if d is not None:
                dx[rows] = np.asarray(d)
        return dx
