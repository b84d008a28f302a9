"""arg_max / arg_min: the index of the largest / smallest element along `axis`."""
import numpy as np

from .registry import OpDef, Sample, register


class _ArgReduce(OpDef):
    inputs = ("X",)
    outputs = ("Out",)
    attrs = {"axis": -1, "keepdims": False, "flatten": False, "dtype": "int64"}

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        if ctx.attr("flatten"):
            shape = [1]
        else:
            axis = ctx.check_axis("X", ctx.attr("axis"))
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
