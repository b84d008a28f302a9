"""similarity_focus: a 0/1 mask of X's shape [N, A, B, C]. For each index in `indexes`, the
slice of X at that index along `axis` (a 2-D table per batch row) is scanned from its largest
value down (ties: row-major order first); a value is picked when neither its row nor its
column holds an earlier pick, until min(rows, cols) are picked. A picked (row, column) sets
the mask to 1 along the whole `axis`. The masks of all indexes are OR-ed. No gradient."""
import numpy as np

from ._common import rand
from .registry import OpDef, Sample, register


def _focus_table(table):
    """0/1 table marking the greedy row- and column-unique maxima of a 2-D table."""
    rows, cols = table.shape
    order = np.argsort(-table.ravel(), kind="stable")
    mark = np.zeros(table.shape, dtype=bool)
    used_rows, used_cols = np.zeros(rows, bool), np.zeros(cols, bool)
    picked = 0
    for flat in order:
        r, c = divmod(int(flat), cols)
        if used_rows[r] or used_cols[c]:
            continue
        mark[r, c] = used_rows[r] = used_cols[c] = True
        picked += 1
        if picked == min(rows, cols):
            break
    return mark


@register
class SimilarityFocus(OpDef):
    type = "similarity_focus"
    inputs = ("X",)
    outputs = ("Out",)
    attrs = {"axis": 1, "indexes": []}

    def infer_shape(self, ctx):
        shape = ctx.input_shape("X")
        axis, indexes = ctx.attr("axis"), list(ctx.attr("indexes"))
        ctx.expect(len(shape) == 4, "input X must be 4-D, got shape %s" % list(shape))
        ctx.expect(axis in (1, 2, 3), "axis must be 1, 2 or 3, got %r" % axis)
        ctx.expect(len(indexes) > 0, "indexes must not be empty")
        ctx.expect(all(0 <= i and (shape[axis] < 0 or i < shape[axis]) for i in indexes),
                   "indexes %s must lie in [0, %d) (X's dim %d)"
                   % (indexes, shape[axis], axis))
        ctx.same_as("X", "Out")

    @staticmethod
    def forward(x, axis=1, indexes=()):
        moved = np.moveaxis(x, axis, 1)          # [N, axis, rows, cols]
        mask = np.zeros((x.shape[0],) + moved.shape[2:], dtype=bool)
        for n in range(x.shape[0]):
            for index in indexes:
                mask[n] |= _focus_table(moved[n, index])
        out = np.broadcast_to(mask[:, None], moved.shape)
        return np.ascontiguousarray(np.moveaxis(out, 1, axis)).astype(x.dtype)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 2, 3, 4, 3)}, {"axis": 1, "indexes": [0, 2]})
        yield Sample({"X": rand(rng, 2, 3, 2, 4)}, {"axis": 3, "indexes": [1]})
