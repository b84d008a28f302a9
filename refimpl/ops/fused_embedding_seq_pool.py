"""fused_embedding_seq_pool (Paddle 1.8 contrib): lookup_table then a SUM sequence_pool in
one op. Ids [rows, *slots, 1] int64 with a LoD level over the rows (the layer's [rows, 1]:
one slot); W [V, D]; Out [sequences, slots * D]: for sequence b and slot k, the sum of
W[id] over the sequence's rows' slot-k ids, an id equal to padding_idx (-1: none) adding
zeros; an empty sequence is zeros. combiner 'sum' is the only one (as Paddle's). W@GRAD is
dense: dOut[b, slot k] added to the row of each of those ids except padding ones
(is_sparse is recorded; Paddle then makes it SelectedRows with the same rows)."""
import numpy as np

from ._common import rand
from ._sequence import lengths_of, segments
from .registry import OpDef, Sample, register


@register
class FusedEmbeddingSeqPool(OpDef):
    type = "fused_embedding_seq_pool"
    inputs = ("W", "Ids", "IdsLength")
    outputs = ("Out",)
    attrs = {"combiner": "sum", "padding_idx": -1, "is_sparse": False}
    no_grad = ("Ids", "IdsLength")
    grad_inputs = ("W", "Ids", "IdsLength", "Out@GRAD")
    lod_lengths = {"IdsLength": "Ids"}

    def infer_shape(self, ctx):
        w, ids = ctx.input_var("W"), ctx.input_var("Ids")
        ctx.expect(ctx.attr("combiner") == "sum", "combiner must be 'sum' (the only one "
                   "implemented), got %r" % ctx.attr("combiner"))
        ctx.check_dtype("Ids", ("int64",))
        ctx.expect(len(w.shape) == 2, "W %r must be a 2-D table [rows, D], got %s"
                   % (w.name, list(w.shape)))
        ctx.expect(len(ids.shape) >= 2 and ids.shape[-1] in (-1, 1), "Ids %r must be "
                   "[rows, ..., 1], got %s" % (ids.name, list(ids.shape)))
        slots = ids.shape[1:-1]
        width = -1 if w.shape[1] < 0 or any(d < 0 for d in slots) else \
            w.shape[1] * int(np.prod(slots, dtype=np.int64))
        ctx.set_output("Out", [-1, width], w.dtype)

    @staticmethod
    def _checked(w, ids, length):
        """The ids as [rows, slots] and each sequence's (start, end) rows."""
        by_row = ids.reshape(len(ids), -1)
        bad = (by_row < 0) | (by_row >= len(w))
        if bad.any():
            raise IndexError("fused_embedding_seq_pool: Ids holds %d, out of range for W "
                             "with %d rows" % (by_row[bad][0], len(w)))
        return by_row, segments(lengths_of(length, len(by_row), "fused_embedding_seq_pool",
                                           "Ids"))

    @classmethod
    def forward(cls, w, ids, length, combiner="sum", padding_idx=-1, is_sparse=False):
        by_row, spans = cls._checked(w, ids, length)
        rows = w[by_row] * (by_row != padding_idx)[..., None]          # [rows, slots, D]
        out = np.zeros((len(spans),) + rows.shape[1:], w.dtype)
        for b, (s, e) in enumerate(spans):
            out[b] = rows[s:e].sum(axis=0)
        return out.reshape(len(spans), -1)

    @classmethod
    def backward(cls, w, ids, length, dout, combiner="sum", padding_idx=-1, is_sparse=False):
        by_row, spans = cls._checked(w, ids, length)
        dout = dout.reshape(len(spans), by_row.shape[1], w.shape[1])
        dw = np.zeros_like(w)
        for b, (s, e) in enumerate(spans):
            for k in range(by_row.shape[1]):
                kept = by_row[s:e, k][by_row[s:e, k] != padding_idx]
                np.add.at(dw, kept, dout[b, k])
        return dw

    def samples(self, rng):
        ids = np.array([[1], [2], [3], [4], [1]], np.int64)
        yield Sample({"W": rand(rng, 5, 4), "Ids": ids, "IdsLength": np.array([2, 3])},
                     {"padding_idx": 2})
        yield Sample({"W": rand(rng, 6, 3), "Ids": ids[[0, 0, 4]] + 4,
                      "IdsLength": np.array([1, 0, 2])})
        # two slots per row, as Paddle's test_fused_emb_seq_pool_op feeds
        slots = np.array([[[4], [3]], [[4], [3]], [[2], [1]], [[5], [1]]], np.int64)[:, None]
        yield Sample({"W": rand(rng, 6, 3), "Ids": slots, "IdsLength": np.array([3, 1])},
                     {"padding_idx": 3}, name="slots")
