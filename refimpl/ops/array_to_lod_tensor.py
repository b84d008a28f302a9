"""array_to_lod_tensor: lod_tensor_to_array undone. The elements of X (time steps, each
holding the sequences longer than t in rank order) go back to the sequences in their
original order; Out's LoD is the rank table's coarse levels, its lengths and the
children's sub-LoD (ops/_rank_table.py). X@GRAD: element t is Out@GRAD on the rows it
filled, with its LoD."""
import numpy as np

from ..framework.lod import with_lod
from ._rank_table import array_lod, step_rows, table_parts
from .registry import OpDef, first_level, register, result_lod


def _layout(array, rank_table):
    """(Out's LoD, per element the rows of Out it fills)."""
    lengths, coarse = table_parts(rank_table)
    steps = int(lengths.max()) if len(lengths) else 0
    if len(array) < steps or any(a is None for a in array[:steps]):
        raise ValueError("array_to_lod_tensor: the rank table has sequences of %d steps but "
                         "the array holds %d written elements" % (
                             steps, sum(a is not None for a in array[:steps])))
    lod = array_lod(array[:steps], lengths, coarse)
    return lod, [rows for rows, _ in step_rows(lod, lengths, len(coarse))]


@register
class ArrayToLoDTensor(OpDef):
    type = "array_to_lod_tensor"
    inputs = ("X", "RankTable")
    outputs = ("Out",)
    no_grad = ("RankTable",)
    grad_inputs = ("X", "RankTable", "Out@GRAD")
    lod_whole = ("X", "RankTable")
    tensor_arrays = ("X",)
    lod_outputs = {"Out": result_lod("Out", lambda levels: first_level(levels, "X") + 1)}

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        ctx.set_output("Out", (-1,) + tuple((x.shape or (-1,))[1:]), x.dtype)

    @staticmethod
    def forward(array, rank_table):
        lod, rows = _layout(array, rank_table)
        first = np.asarray(array[0])
        out = np.empty((sum(len(r) for r in rows),) + first.shape[1:], first.dtype)
        for r, element in zip(rows, array):
            out[r] = np.asarray(element)
        return with_lod(out, lod)

    @staticmethod
    def backward(array, rank_table, dout):
        _, rows = _layout(array, rank_table)
        dout = np.asarray(dout)
        return [dout[r] for r in rows] + [None] * (len(array) - len(rows))
