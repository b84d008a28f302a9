"""sequence_topk_avg_pooling (fluid.contrib, Paddle 1.8): per sequence b, X holds a
[channel_num, rows_b, cols_b] score grid (rows_b, cols_b: the lengths of ROW's and COLUMN's
sequence b, which are read only for their LoD); for every grid row, each channel's
top-k average for every k of `topks` (ascending):
    Out[(b, r), (c, i)] = sum of the topks[i] largest of X_b[c, r, :] / topks[i]
(a row shorter than k adds nothing for the missing ones but still divides by k; ties: the
lower column first). Out [sum rows_b, channel_num * len(topks)] carries ROW's LoD.
pos [sum rows_b * channel_num * max k] int32: the columns taken, (b, r, c, k) order, -1
past a row's end. Gradient: Out@GRAD / k to each taken element."""
import numpy as np

from ._common import rand
from ._sequence import lengths_of, segments
from .registry import OpDef, Sample, register, share_lod


def _grids(x, x_len, row_len, col_len, channel_num):
    """[(grid [C, rows, cols] view of x, offset in x)] per sequence."""
    lens = lengths_of(x_len, len(x), "sequence_topk_avg_pooling")
    rows, cols = np.asarray(row_len, np.int64), np.asarray(col_len, np.int64)
    if not len(lens) == len(rows) == len(cols):
        raise ValueError("sequence_topk_avg_pooling: X, ROW and COLUMN hold %d, %d and %d "
                         "sequences" % (len(lens), len(rows), len(cols)))
    grids = []
    for (s, e), r, c in zip(segments(lens), rows, cols):
        if e - s != channel_num * r * c:
            raise ValueError("sequence_topk_avg_pooling: sequence of X has %d values, "
                             "channel_num * rows * cols = %d * %d * %d"
                             % (e - s, channel_num, r, c))
        grids.append((x[s:e].reshape(channel_num, r, c), s))
    return grids


def _top_columns(grid, max_k):
    """[C, rows, max_k] columns of the largest values, largest first, -1 past the row."""
    order = np.argsort(-grid, axis=-1, kind="stable")[..., :max_k]
    missing = max_k - order.shape[-1]
    return np.pad(order, [(0, 0), (0, 0), (0, missing)], constant_values=-1)


@register
class SequenceTopkAvgPooling(OpDef):
    type = "sequence_topk_avg_pooling"
    inputs = ("X", "ROW", "COLUMN", "XLength", "ROWLength", "COLUMNLength")
    outputs = ("Out", "pos")
    attrs = {"topks": [1], "channel_num": 1}
    lod_only = ("ROW", "COLUMN")
    lod_lengths = {"XLength": "X", "ROWLength": "ROW", "COLUMNLength": "COLUMN"}
    lod_outputs = {"Out": share_lod("ROW")}
    no_grad = ("ROW", "COLUMN", "XLength", "ROWLength", "COLUMNLength")
    grad_inputs = ("X", "ROW", "COLUMN", "XLength", "ROWLength", "COLUMNLength", "Out@GRAD")

    def infer_shape(self, ctx):
        ctx.check_dtype("X", ("float32", "float64"))
        topks = list(ctx.attr("topks"))
        ctx.expect(len(topks) > 0 and min(topks) > 0 and topks == sorted(topks),
                   "topks must be positive and ascending, got %s" % topks)
        ctx.expect(ctx.attr("channel_num") > 0, "channel_num must be positive, got %d"
                   % ctx.attr("channel_num"))
        x = ctx.input_var("X")
        ctx.set_output("Out", (-1, ctx.attr("channel_num") * len(topks)), x.dtype)
        ctx.set_output("pos", (-1,), "int32")

    @staticmethod
    def forward(x, x_length, row_length, col_length, topks=(1,), channel_num=1):
        flat = x.reshape(-1)
        max_k, ks = max(topks), np.asarray(topks)
        outs, positions = [], []
        for grid, _ in _grids(flat, x_length, row_length, col_length, channel_num):
            top = _top_columns(grid, max_k)                               # [C, rows, max_k]
            values = np.where(top >= 0, np.take_along_axis(grid, np.maximum(top, 0), -1), 0)
            running = np.cumsum(values, axis=-1)
            avg = running[..., ks - 1] / ks                               # [C, rows, len(ks)]
            outs.append(avg.transpose(1, 0, 2).reshape(grid.shape[1], -1))
            positions.append(top.transpose(1, 0, 2).reshape(-1))
        width = channel_num * len(ks)
        return (np.concatenate(outs).reshape(-1, width).astype(x.dtype) if outs
                else np.zeros((0, width), x.dtype),
                np.concatenate(positions).astype(np.int32) if positions
                else np.zeros(0, np.int32))

    @staticmethod
    def backward(x, x_length, row_length, col_length, dout, topks=(1,), channel_num=1):
        dx = np.zeros(x.size, dout.dtype)
        max_k, row_start = max(topks), 0
        for grid, offset in _grids(x.reshape(-1), x_length, row_length, col_length,
                                   channel_num):
            rows, cols = grid.shape[1:]
            top = _top_columns(grid, max_k)
            grad = dout[row_start:row_start + rows].reshape(rows, channel_num, len(topks))
            row_start += rows
            # element taken at rank j gets the gradient of every k > j, divided by k
            per_rank = np.zeros((channel_num, rows, max_k), dout.dtype)
            for i, k in enumerate(topks):
                per_rank[..., :k] += grad[:, :, i].T[..., None] / k
            taken = top >= 0
            cells = (np.arange(channel_num)[:, None, None] * rows +
                     np.arange(rows)[None, :, None]) * cols + top
            np.add.at(dx, offset + cells[taken], per_rank[taken])
        return dx.reshape(x.shape)

    def samples(self, rng):
        # two sequences: 2 x 3 and 3 x 1 grids of 2 channels; k = 2 exceeds the 1-column rows
        rows, cols = np.array([2, 3], np.int64), np.array([3, 1], np.int64)
        sizes = 2 * rows * cols
        yield Sample({"X": rand(rng, int(sizes.sum()), 1), "XLength": sizes,
                      "ROWLength": rows, "COLUMNLength": cols},
                     {"topks": [1, 2], "channel_num": 2})
