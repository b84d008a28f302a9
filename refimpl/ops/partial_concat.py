"""partial_concat (Paddle 1.8 contrib): the columns [start_index, start_index + length) of
each 2-D input in X, joined along axis 1. A negative start_index counts from the end; a
negative length takes every column from the start. The grad routes Out@GRAD's blocks back to
those columns (zeros elsewhere). PartialColumns is what partial_sum shares."""
import numpy as np

from ._common import rand
from .registry import OpDef, Sample, register


def column_range(width, start_index, length, op_type, ctx=None):
    """(start, stop) of the columns partial_concat / partial_sum take from inputs `width`
    wide; a bad range fails through the InferContext when one is given."""
    start = start_index + width if start_index < 0 else start_index
    stop = width if length < 0 else start + length
    if not 0 <= start < width or stop > width:
        message = ("start_index %d and length %d select columns [%d, %d) of inputs %d wide"
                   % (start_index, length, start, stop, width))
        if ctx is None:
            raise ValueError("%s: %s" % (op_type, message))
        ctx.fail(message)
    return start, stop


class PartialColumns(OpDef):
    """The columns [start, stop) of every 2-D input, combined by the subclass: `combine`
    (the blocks -> Out), `out_width` (block width, inputs -> Out's width) and `grad_block`
    (Out@GRAD, input i, block width -> that input's block of the gradient)."""
    inputs = ("X*",)
    outputs = ("Out",)
    attrs = {"start_index": 0, "length": -1}
    grad_inputs = ("X*", "Out@GRAD")

    def infer_shape(self, ctx):
        xs = ctx.input_vars("X")
        ctx.expect(xs, "X must hold at least one input")
        for v in xs:
            ctx.expect(len(v.shape) == 2, "input X %r: expected a 2-D tensor, got %s"
                       % (v.name, list(v.shape)))
            ctx.expect(v.shape[1] == xs[0].shape[1], "input X %r has %d columns, %r has %d"
                       % (v.name, v.shape[1], xs[0].name, xs[0].shape[1]))
        start, stop = column_range(xs[0].shape[1], ctx.attr("start_index"),
                                   ctx.attr("length"), self.type, ctx)
        ctx.set_output("Out", [xs[0].shape[0], self.out_width(stop - start, len(xs))],
                       xs[0].dtype)

    def forward(self, xs, start_index=0, length=-1):
        start, stop = column_range(xs[0].shape[1], start_index, length, self.type)
        return self.combine([x[:, start:stop] for x in xs])

    def backward(self, xs, dout, start_index=0, length=-1):
        start, stop = column_range(xs[0].shape[1], start_index, length, self.type)
        grads = []
        for i, x in enumerate(xs):
            dx = np.zeros_like(x)
            dx[:, start:stop] = self.grad_block(dout, i, stop - start)
            grads.append(dx)
        return grads


@register
class PartialConcat(PartialColumns):
    type = "partial_concat"

    @staticmethod
    def combine(blocks):
        return np.concatenate(blocks, axis=1)

    @staticmethod
    def out_width(width, inputs):
        return width * inputs

    @staticmethod
    def grad_block(dout, i, width):
        return dout[:, i * width:(i + 1) * width]

    def samples(self, rng):
        yield Sample({"X": [rand(rng, 3, 5), rand(rng, 3, 5)]}, {"start_index": 1, "length": 2})
        yield Sample({"X": [rand(rng, 2, 4)]}, {"start_index": -3, "length": -1})
