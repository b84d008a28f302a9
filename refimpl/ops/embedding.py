"""lookup_table (Ids [N, 1] -> [N, D]) and lookup_table_v2 (Ids any shape -> shape + [D]):
rows of W; padding_idx rows read as zeros and get no gradient."""
import numpy as np

from ._common import rand
from .registry import OpDef, Sample, register


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
                   "Ids %r must be int64, got %s" % (ids.name, ids.dtype.name))
        ctx.set_output("Out", self.out_shape(list(ids.shape)) + [w.shape[1]], w.dtype)

    def forward(self, w, ids, padding_idx=-1, **_):
        flat = ids.reshape(-1)
        if flat.size and (flat.min() < 0 or flat.max() >= w.shape[0]):
            bad = flat[(flat < 0) | (flat >= w.shape[0])][0]
            raise IndexError("id %d is out of range for a table of %d rows" % (bad, w.shape[0]))
        out = w[flat]
        if padding_idx != -1:
            out[flat == padding_idx] = 0
        return out.reshape(self.out_shape(list(ids.shape)) + [w.shape[1]])

    def backward(self, w, ids, dout, padding_idx=-1, **_):
        flat = ids.reshape(-1)
        g = dout.reshape(-1, w.shape[1])
        if padding_idx != -1:
            g = g * (flat != padding_idx)[:, None]
        dw = np.zeros_like(w)
        np.add.at(dw, flat, g)
        return dw

    def samples(self, rng):
        yield Sample({"W": rand(rng, 5, 3), "Ids": self.ids(np.array([1, 4, 1, 0], "int64"))})
        yield Sample({"W": rand(rng, 5, 3), "Ids": self.ids(np.array([2, 3, 2], "int64"))},
                     {"padding_idx": 2})


@register
class LookupTable(_Lookup):
    type = "lookup_table"

    @staticmethod
    def out_shape(ids_shape):
        return ids_shape[:-1] if ids_shape[-1:] == [1] else ids_shape

    @staticmethod
    def ids(a):
        return a.reshape(-1, 1)


@register
class LookupTableV2(_Lookup):
    type = "lookup_table_v2"

    @staticmethod
    def out_shape(ids_shape):
        return ids_shape

    @staticmethod
    def ids(a):
        return a
