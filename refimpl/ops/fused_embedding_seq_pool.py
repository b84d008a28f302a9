"""fused_embedding_seq_pool (Paddle 1.8 contrib): lookup_table then a SUM sequence_pool in
one op. Ids [rows, 1] int64 with a LoD level; W [V, D]; Out [sequences, D] row b = the sum
of W[id] over sequence b's ids, an id equal to padding_idx (-1: none) adding zeros; an
empty sequence is zeros. combiner 'sum' is the only one (as Paddle's). W@GRAD is dense:
dOut[b] added to the row of each of sequence b's ids except padding ones (is_sparse is
recorded; Paddle then makes it SelectedRows with the same rows)."""
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
        ctx.expect(len(ids.shape) == 2 and ids.shape[1] in (-1, 1), "Ids %r must be [rows, 1]"
                   ", got %s" % (ids.name, list(ids.shape)))
        ctx.set_output("Out", [-1, w.shape[1]], w.dtype)

    @staticmethod
    def _checked(w, ids, length):
        flat = ids.reshape(-1)
        bad = (flat < 0) | (flat >= len(w))
        if bad.any():
            raise IndexError("fused_embedding_seq_pool: Ids holds %d, out of range for W "
                             "with %d rows" % (flat[bad][0], len(w)))
        return flat, segments(lengths_of(length, len(flat), "fused_embedding_seq_pool",
                                         "Ids"))

    @classmethod
    def forward(cls, w, ids, length, combiner="sum", padding_idx=-1, is_sparse=False):
        flat, spans = cls._checked(w, ids, length)
        rows = w[flat] * (flat != padding_idx)[:, None]
        return np.stack([rows[s:e].sum(axis=0) for s, e in spans]) if spans else \
            np.zeros((0, w.shape[1]), w.dtype)

    @classmethod
    def backward(cls, w, ids, length, dout, combiner="sum", padding_idx=-1, is_sparse=False):
        flat, spans = cls._checked(w, ids, length)
        dw = np.zeros_like(w)
        for b, (s, e) in enumerate(spans):
            kept = flat[s:e][flat[s:e] != padding_idx]
            np.add.at(dw, kept, dout[b])
        return dw

    def samples(self, rng):
        ids = np.array([[1], [2], [3], [4], [1]], np.int64)
        yield Sample({"W": rand(rng, 5, 4), "Ids": ids, "IdsLength": np.array([2, 3])},
                     {"padding_idx": 2})
        yield Sample({"W": rand(rng, 6, 3), "Ids": ids[[0, 0, 4]] + 4,
                      "IdsLength": np.array([1, 0, 2])})
