"""rank_attention (fluid.contrib, Paddle 1.8): each instance's input features weighted by a
block of RankParam chosen by its own rank and the ranks of the instances it attends to.

X [N, C]; RankOffset [N, 2 MaxRank + 1] int (per instance i: its rank r_i = RankOffset[i, 0],
then for k < MaxRank the pair (rank f_ik, instance row j_ik) = RankOffset[i, 2k + 1],
RankOffset[i, 2k + 2]; ranks count from 1, -1 or 0 = none); RankParam [MaxRank^2 C, D],
read as MaxRank^2 blocks [C, D]. A pair is used when r_i >= 1 and f_ik >= 1:
    InputHelp[i, k] = X[j_ik]                         ([N, MaxRank C]; zeros for unused pairs)
    Out[i] = sum over used k of X[j_ik] . block((r_i - 1) MaxRank + f_ik - 1)   ([N, D])
    InsRank[i] = r_i                                  ([N, 1], X's dtype)
MaxSize only sizes the GPU kernel's buffers in Paddle 2.x; it changes nothing here.
Gradient to RankParam only (Paddle's grad op writes no X@GRAD: X gets none, as there)."""
import numpy as np

from ._common import rand
from .registry import OpDef, Sample, register


def _pairs(x, rank_offset, rank_param, max_rank):
    """(used [N, MaxRank] bool, instance rows j [N, MaxRank], block numbers [N, MaxRank]),
    zeros where unused. A used pair naming a row of X or a rank out of range is an error."""
    rows, width = x.shape
    if rank_offset.shape != (rows, 2 * max_rank + 1):
        raise ValueError("rank_attention: RankOffset must be [X's rows, 2 * MaxRank + 1] = "
                         "%s, got %s" % ([rows, 2 * max_rank + 1], list(rank_offset.shape)))
    if rank_param.shape[0] != max_rank * max_rank * width:
        raise ValueError("rank_attention: RankParam must have MaxRank^2 * C = %d rows, got %d"
                         % (max_rank * max_rank * width, rank_param.shape[0]))
    own = rank_offset[:, :1].astype(np.int64)
    other = rank_offset[:, 1::2].astype(np.int64)
    used = (own >= 1) & (other >= 1)
    row = np.where(used, rank_offset[:, 2::2], 0).astype(np.int64)
    bad_rows = row[used][(row[used] < 0) | (row[used] >= rows)]
    if bad_rows.size:
        raise ValueError("rank_attention: RankOffset names instance row %d; X has %d rows"
                         % (bad_rows[0], rows))
    ranks = np.maximum(own, other)[used]
    if (ranks > max_rank).any():
        raise ValueError("rank_attention: RankOffset names rank %d, past MaxRank %d"
                         % (ranks.max(), max_rank))
    return used, row, np.where(used, (own - 1) * max_rank + other - 1, 0)


def _input_help(x, rank_offset, rank_param, max_rank):
    """(InputHelp as [N, MaxRank, C], the RankParam block of each pair [N, MaxRank])."""
    used, row, block = _pairs(x, rank_offset, rank_param, max_rank)
    return x[row] * used[:, :, None].astype(x.dtype), block


@register
class RankAttention(OpDef):
    type = "rank_attention"
    inputs = ("X", "RankOffset", "RankParam")
    outputs = ("Out", "InputHelp?", "InsRank?")
    attrs = {"MaxRank": 3, "MaxSize": 0}
    no_grad = ("X", "RankOffset")
    grad_inputs = ("X", "RankOffset", "RankParam", "Out@GRAD")

    def infer_shape(self, ctx):
        ctx.check_dtype("X", ("float32", "float64"))
        ctx.check_dtype("RankOffset", ("int32", "int64"))
        x, offset, param = (ctx.input_var(s) for s in ("X", "RankOffset", "RankParam"))
        max_rank = ctx.attr("MaxRank")
        ctx.expect(len(x.shape) == 2 and len(offset.shape) == 2 and len(param.shape) == 2,
                   "X %r, RankOffset %r and RankParam %r must be 2-D, got %s, %s and %s"
                   % (x.name, offset.name, param.name, list(x.shape), list(offset.shape),
                      list(param.shape)))
        ctx.expect(offset.shape[1] in (-1, 2 * max_rank + 1),
                   "RankOffset %r must have 2 * MaxRank + 1 = %d columns, got %d"
                   % (offset.name, 2 * max_rank + 1, offset.shape[1]))
        width = x.shape[1]
        ctx.expect(width < 0 or param.shape[0] in (-1, max_rank * max_rank * width),
                   "RankParam %r must have MaxRank^2 * C = %d rows (C = %d, X %r's width), "
                   "got %d" % (param.name, max_rank * max_rank * width, width, x.name,
                               param.shape[0]))
        rows = x.shape[0]
        ctx.set_output("Out", (rows, param.shape[1]), x.dtype)
        ctx.set_output("InputHelp", (rows, max_rank * width if width >= 0 else -1), x.dtype)
        ctx.set_output("InsRank", (rows, 1), x.dtype)

    @staticmethod
    def forward(x, rank_offset, rank_param, MaxRank=3, MaxSize=0):
        help_, block = _input_help(x, rank_offset, rank_param, MaxRank)
        blocks = rank_param.reshape(MaxRank * MaxRank, x.shape[1], -1)
        out = np.einsum("nkc,nkcd->nd", help_, blocks[block])
        return (out.astype(x.dtype), help_.reshape(len(x), -1),
                rank_offset[:, :1].astype(x.dtype))

    @staticmethod
    def backward(x, rank_offset, rank_param, dout, MaxRank=3, MaxSize=0):
        help_, block = _input_help(x, rank_offset, rank_param, MaxRank)
        grad = np.zeros((MaxRank * MaxRank, x.shape[1], rank_param.shape[1]), rank_param.dtype)
        np.add.at(grad, block, np.einsum("nkc,nd->nkcd", help_, dout))
        return grad.reshape(rank_param.shape)

    def samples(self, rng):
        # two page views: instances 0-2 ranked 2, 3, 1; instances 3-4 ranked 1 and 4 (past
        # MaxRank 3: no rank, and attended to by none); -1 marks the unused pairs
        offset = np.array([[2, 1, 2, 2, 0, 3, 1],
                           [3, 1, 2, 2, 0, 3, 1],
                           [1, 1, 2, 2, 0, 3, 1],
                           [1, 1, 3, -1, -1, -1, -1],
                           [-1, -1, -1, -1, -1, -1, -1]], np.int32)
        yield Sample({"X": rand(rng, 5, 2), "RankOffset": offset,
                      "RankParam": rand(rng, 18, 3)}, {"MaxRank": 3})
        yield Sample({"X": rand(rng, 3, 4),
                      "RankOffset": np.array([[1, 1, 0, 2, 1], [2, 1, 0, 2, 1],
                                              [0, -1, -1, -1, -1]], np.int64),
                      "RankParam": rand(rng, 16, 2)},
                     {"MaxRank": 2, "MaxSize": 3}, name="max_rank_2")
