"""one_hot(_v2), top_k(_v2), accuracy: integer outputs, no gradients except top_k's values."""
import numpy as np

from ._common import rand
from .registry import OpDef, Sample, register


class _OneHot(OpDef):
    inputs = ("X",)
    outputs = ("Out",)
    attrs = {"depth": 1, "dtype": "float32", "allow_out_of_range": False}

    def infer_shape(self, ctx):
        ctx.set_output("Out", self.out_shape(list(ctx.input_var("X").shape)) + [ctx.attr("depth")],
                       ctx.attr("dtype"))

    def forward(self, x, depth=1, dtype="float32", allow_out_of_range=False):
        flat = x.reshape(-1).astype(np.int64)
        bad = (flat < 0) | (flat >= depth)
        if bad.any() and not allow_out_of_range:
            raise ValueError("one_hot: index %d is out of range for depth %d"
                             % (flat[bad][0], depth))
        out = (flat[:, None] == np.arange(depth)[None, :]).astype(dtype)
        return out.reshape(self.out_shape(list(x.shape)) + [depth])

    def samples(self, rng):
        yield Sample({"X": self.ids(np.array([0, 3, 2], "int64"))}, {"depth": 4})


@register
class OneHot(_OneHot):
    type = "one_hot"
    out_shape = staticmethod(lambda s: s[:-1])
    ids = staticmethod(lambda a: a.reshape(-1, 1))


@register
class OneHotV2(_OneHot):
    type = "one_hot_v2"
    out_shape = staticmethod(lambda s: s)
    ids = staticmethod(lambda a: a)


def _top_k(x, k, axis=-1, largest=True):
    order = np.argsort(-x if largest else x, axis=axis, kind="stable")
    idx = np.take(order, np.arange(k), axis=axis)
    return np.take_along_axis(x, idx, axis=axis), idx.astype(np.int64)


class _TopK(OpDef):
    inputs = ("X",)
    outputs = ("Out", "Indices")
    grad_inputs = ("X", "Indices", "Out@GRAD")

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        shape = list(x.shape)
        shape[self.axis_of(ctx.op.attrs) % len(shape)] = ctx.attr("k")
        ctx.set_output("Out", shape, x.dtype)
        ctx.set_output("Indices", shape, "int64")

    def backward(self, x, indices, dout, **attrs):
        dx = np.zeros_like(x)
        np.put_along_axis(dx, indices, dout, axis=self.axis_of(attrs))
        return dx

    def samples(self, rng):
        yield Sample({"X": rng.permutation(20).reshape(4, 5) / 7.0}, {"k": 2})


@register
class TopK(_TopK):
    type = "top_k"
    attrs = {"k": 1}
    axis_of = staticmethod(lambda attrs: -1)

    @staticmethod
    def forward(x, k=1):
        return _top_k(x, k)


@register
class TopKV2(_TopK):
    type = "top_k_v2"
    attrs = {"k": 1, "axis": -1, "largest": True, "sorted": True}
    axis_of = staticmethod(lambda attrs: attrs.get("axis", -1))

    @staticmethod
    def forward(x, k=1, axis=-1, largest=True, sorted=True):
        return _top_k(x, k, axis, largest)


@register
class Accuracy(OpDef):
    """Fraction of rows whose label is among the top-k Indices."""
    type = "accuracy"
    inputs = ("Out", "Indices", "Label")
    outputs = ("Accuracy", "Correct", "Total")

    def infer_shape(self, ctx):
        ctx.set_output("Accuracy", [1], "float32")
        ctx.set_output("Correct", [1], "int32")
        ctx.set_output("Total", [1], "int32")

    @staticmethod
    def forward(out, indices, label):
        hit = (indices == label.reshape(-1, 1)).any(axis=1)
        n = indices.shape[0]
        correct = int(hit.sum())
        return (np.array([correct / n if n else 0.0], np.float32),
                np.array([correct], np.int32), np.array([n], np.int32))

    def samples(self, rng):
        yield Sample({"Out": rand(rng, 4, 2), "Indices": np.array([[1, 0], [2, 1], [0, 3],
                                                                   [3, 2]], "int64"),
                      "Label": np.array([[0], [0], [3], [1]], "int64")})


class _ArgReduce(OpDef):
    inputs = ("X",)
    outputs = ("Out",)
    attrs = {"axis": -1, "keepdims": False, "flatten": False, "dtype": "int64"}

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        if ctx.attr("flatten"):
            shape = [1]
        else:
            axis = ctx.attr("axis") % len(x.shape)
            shape = [1 if i == axis else d for i, d in enumerate(x.shape)
                     if ctx.attr("keepdims") or i != axis] or [1]
        ctx.set_output("Out", shape, ctx.attr("dtype"))

    def forward(self, x, axis=-1, keepdims=False, flatten=False, dtype="int64"):
        if flatten:
            return np.array([self.fn(x.reshape(-1))], dtype=dtype)
        out = self.fn(x, axis=axis)
        if keepdims:
            out = np.expand_dims(out, axis)
        return np.asarray(out, dtype=dtype).reshape(out.shape or (1,))

    def samples(self, rng):
        yield Sample({"X": rng.permutation(12).reshape(3, 4).astype("float64")}, {"axis": 1})


@register
class ArgMax(_ArgReduce):
    type = "arg_max"
    fn = staticmethod(np.argmax)


@register
class ArgMin(_ArgReduce):
    type = "arg_min"
    fn = staticmethod(np.argmin)
