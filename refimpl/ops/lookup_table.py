"""lookup_table (Ids [..., 1] -> [..., D], fluid 1.8) and lookup_table_v2 (Ids of any shape
-> Ids.shape + [D], Paddle 2.0): rows of W. Rows whose id is padding_idx read as zeros and
get no gradient; W@GRAD is dense (a scatter-add), or with is_sparse, where the optimizer
made it a SELECTED_ROWS variable, the SelectedRows of ops/selected_rows.py."""
import numpy as np

from ..xp import array_module
from ._common import rand
from .registry import OpDef, Sample, register, share_lod


class _Lookup(OpDef):
    inputs = ("W", "Ids")
    outputs = ("Out",)
    attrs = {"padding_idx": -1, "is_sparse": False, "is_distributed": False,
             "remote_prefetch": False}
    no_grad = ("Ids",)
    grad_inputs = ("W", "Ids", "Out@GRAD")

    def infer_shape(self, ctx):
        w, ids = ctx.input_var("W"), ctx.input_var("Ids")
        ctx.expect(ids.dtype.name in ("int32", "int64"),
                   "Ids %r must be int64 (or int32), got %s" % (ids.name, ids.dtype.name))
        ctx.expect(len(w.shape) == 2, "W %r must be a 2-D table [rows, D], got shape %s"
                   % (w.name, list(w.shape)))
        self.check_ids(ctx, ids)
        ctx.set_output("Out", self.out_shape(list(ids.shape)) + [w.shape[1]], w.dtype)

    def check_ids(self, ctx, ids):
        pass

    def forward(self, w, ids, padding_idx=-1, **_):
        flat = ids.reshape(-1)
        bad = (flat < 0) | (flat >= w.shape[0])
        if bad.any():
            raise IndexError("Ids: id %d is out of range for W with %d rows"
                             % (flat[bad][0], w.shape[0]))
        out = w[flat]
        if padding_idx != -1:
            out[flat == padding_idx] = 0
        return out.reshape(self.out_shape(list(ids.shape)) + [w.shape[1]])

    def backward(self, w, ids, dout, padding_idx=-1, **_):
        flat = ids.reshape(-1)
        g = dout.reshape(-1, w.shape[1])
        if padding_idx != -1:
            g = g * (flat != padding_idx)[:, None]
        xp = array_module(w)
        dw = xp.zeros_like(w)
        xp.add.at(dw, flat, g)
        return dw

    def samples(self, rng):
        yield Sample({"W": rand(rng, 5, 3), "Ids": self.ids(np.array([1, 4, 1, 0], "int64"))},
                     name="repeated_id")
        yield Sample({"W": rand(rng, 5, 3), "Ids": self.ids(np.array([2, 3, 2], "int64"))},
                     {"padding_idx": 2}, name="padding")


@register
class LookupTable(_Lookup):
    type = "lookup_table"
    lod_outputs = {"Out": share_lod("Ids")}

    def check_ids(self, ctx, ids):
        ctx.expect(list(ids.shape[-1:]) == [1],
                   "Ids %r must have a last dim of 1, got shape %s (lookup_table_v2 takes "
                   "any shape)" % (ids.name, list(ids.shape)))

    @staticmethod
    def out_shape(ids_shape):
        return ids_shape[:-1]

    @staticmethod
    def ids(a):
        return a.reshape(-1, 1)


@register
class LookupTableV2(_Lookup):
    type = "lookup_table_v2"
    lod_outputs = {"Out": share_lod("Ids")}

    @staticmethod
    def out_shape(ids_shape):
        return ids_shape

    @staticmethod
    def ids(a):
        return a

    def samples(self, rng):
        yield from super().samples(rng)
        yield Sample({"W": rand(rng, 4, 2), "Ids": np.array([[0, 3, 3], [1, 0, 2]], "int64")},
                     name="2d_ids")
