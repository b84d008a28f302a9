"""top_k (last axis, fluid 1.8) and top_k_v2 (axis, largest; Paddle 2.0): the k largest
(or smallest) values and their int64 indices. Ties keep the lower index first, as Paddle's
comparator does; results are always sorted. Gradient: Out@GRAD scattered back to where the
values came from."""
import numpy as np

from ._common import runtime_ints
from .registry import OpDef, Sample, register, share_lod


def top_k(x, k, axis=-1, largest=True):
    order = np.argsort(-x if largest else x, axis=axis, kind="stable")
    idx = np.take(order, np.arange(k), axis=axis)
    return np.take_along_axis(x, idx, axis=axis), idx.astype(np.int64)


class _TopK(OpDef):
    inputs = ("X",)
    outputs = ("Out", "Indices")
    grad_inputs = ("X", "Indices", "Out@GRAD")

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        k = ctx.attr("k")
        axis = self.axis_of(ctx.op.attrs)
        ctx.expect(-len(x.shape) <= axis < len(x.shape),
                   "axis %d is out of range for X %r of rank %d" % (axis, x.name, len(x.shape)))
        shape = list(x.shape)
        axis %= len(shape)
        if ctx.has_input("K"):      # k known when the op runs
            shape[axis] = -1
            ctx.set_output("Out", shape, x.dtype)
            ctx.set_output("Indices", shape, "int64")
            return
        ctx.expect(k >= 1 and (shape[axis] < 0 or k <= shape[axis]),
                   "k=%d must be in [1, %d] (dim %d of X %r %s)"
                   % (k, shape[axis], axis, x.name, list(x.shape)))
        shape[axis] = k
        ctx.set_output("Out", shape, x.dtype)
        ctx.set_output("Indices", shape, "int64")

    def backward(self, x, indices, dout, **attrs):
        dx = np.zeros_like(x)
        np.put_along_axis(dx, indices, dout, axis=self.axis_of(attrs))
        return dx


@register
class TopK(_TopK):
    """k from K (a 1-element int tensor, fluid.layers.topk's Variable k) when given, else
    the attr."""
    type = "top_k"
    inputs = ("X", "K?")
    no_grad = ("K",)
    lod_outputs = {"Out": share_lod("X"), "Indices": share_lod("X")}
    attrs = {"k": 1}
    axis_of = staticmethod(lambda attrs: -1)

    @staticmethod
    def forward(x, k_tensor=None, k=1):
        if k_tensor is not None:
            k = runtime_ints(k_tensor)[0]
        return top_k(x, k)

    def samples(self, rng):
        # distinct values: finite differences are valid away from ties
        yield Sample({"X": rng.permutation(20).reshape(4, 5) / 7.0}, {"k": 2})


@register
class TopKV2(_TopK):
    """k from K (a 1-element int tensor) when given, else the attr."""
    type = "top_k_v2"
    inputs = ("X", "K?")
    no_grad = ("K",)
    attrs = {"k": 1, "axis": -1, "largest": True, "sorted": True}
    axis_of = staticmethod(lambda attrs: attrs.get("axis", -1))

    @staticmethod
    def forward(x, k_tensor=None, k=1, axis=-1, largest=True, sorted=True):
        if k_tensor is not None:
            k = runtime_ints(k_tensor)[0]
        return top_k(x, k, axis, largest)

    def samples(self, rng):
        yield Sample({"X": rng.permutation(20).reshape(4, 5) / 7.0}, {"k": 2})
        yield Sample({"X": rng.permutation(24).reshape(4, 3, 2) / 5.0},
                     {"k": 3, "axis": 0, "largest": False}, name="axis0_smallest")
        yield Sample({"X": rng.permutation(20).reshape(4, 5) / 7.0,
                      "K": np.array([3], "int32")}, name="k_tensor")
