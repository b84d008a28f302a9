"""broadcast_tensors (Paddle 3): each X broadcast to the shape all of them broadcast to;
each one's gradient is its Out's summed back to its shape."""
import numpy as np

from ..broadcasting import sum_to_shape
from ._common import broadcast_shape, rand
from .registry import OpDef, Sample, register


@register
class BroadcastTensors(OpDef):
    type = "broadcast_tensors"
    inputs = ("X*",)
    outputs = ("Out*",)
    grad_inputs = ("X*", "Out@GRAD*")

    def infer_shape(self, ctx):
        xs = ctx.input_vars("X")
        ctx.check_same_dtype("X")
        shape = ()
        for v in xs:
            shape = broadcast_shape(shape, v.shape, ctx)
        for i in range(len(ctx.op.outputs.get("Out", ()))):
            ctx.set_output("Out", list(shape), xs[0].dtype, i)

    @staticmethod
    def forward(xs):
        return [np.ascontiguousarray(a) for a in np.broadcast_arrays(*xs)]

    @staticmethod
    def backward(xs, douts):
        return [np.zeros_like(x) if d is None else np.array(sum_to_shape(d, x.shape))
                for x, d in zip(xs, douts)]

    def samples(self, rng):
        yield Sample({"X": [rand(rng, 2, 1, 3), rand(rng, 4, 1)]})
        yield Sample({"X": [rand(rng, 3), rand(rng, 2, 3), rand(rng, 1, 1)]})
