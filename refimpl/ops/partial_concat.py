"""partial_concat (Paddle 1.8 contrib): the columns [start_index, start_index + length) of
each 2-D input in X, joined along axis 1. A negative start_index counts from the end; a
negative length takes every column from the start. The grad routes Out@GRAD's blocks back to
those columns (zeros elsewhere)."""
import numpy as np

from ._common import rand
from .registry import OpDef, Sample, register


def column_range(ctx_or_none, width, start_index, length, op_type):
    """(start, stop) of the columns partial_concat / partial_sum take from inputs `width`
    wide; a bad range fails through the InferContext when one is given."""
    start = start_index + width if start_index < 0 else start_index
    stop = width if length < 0 else start + length
    if not 0 <= start < width or stop > width:
        message = ("start_index %d and length %d select columns [%d, %d) of inputs %d wide"
                   % (start_index, length, start, stop, width))
        if ctx_or_none is None:
            raise ValueError("%s: %s" % (op_type, message))
        ctx_or_none.fail(message)
    return start, stop


def infer_partial_shape(ctx, columns_of_out):
    xs = ctx.input_vars("X")
    ctx.expect(xs, "X must hold at least one input")
    for v in xs:
        ctx.expect(len(v.shape) == 2, "input X %r: expected a 2-D tensor, got %s"
                   % (v.name, list(v.shape)))
        ctx.expect(v.shape[1] == xs[0].shape[1], "input X %r has %d columns, %r has %d"
                   % (v.name, v.shape[1], xs[0].name, xs[0].shape[1]))
    start, stop = column_range(ctx, xs[0].shape[1], ctx.attr("start_index"),
                               ctx.attr("length"), ctx.op.type)
    ctx.set_output("Out", [xs[0].shape[0], columns_of_out(stop - start, len(xs))],
                   xs[0].dtype)


@register
class PartialConcat(OpDef):
    type = "partial_concat"
    inputs = ("X*",)
    outputs = ("Out",)
    attrs = {"start_index": 0, "length": -1}
    grad_inputs = ("X*", "Out@GRAD")

    def infer_shape(self, ctx):
        infer_partial_shape(ctx, lambda taken, n: taken * n)

    @staticmethod
    def forward(xs, start_index=0, length=-1):
        start, stop = column_range(None, xs[0].shape[1], start_index, length, "partial_concat")
        return np.concatenate([x[:, start:stop] for x in xs], axis=1)

    @staticmethod
    def backward(xs, dout, start_index=0, length=-1):
        start, stop = column_range(None, xs[0].shape[1], start_index, length, "partial_concat")
        grads = []
        for i, x in enumerate(xs):
            dx = np.zeros_like(x)
            dx[:, start:stop] = dout[:, i * (stop - start):(i + 1) * (stop - start)]
            grads.append(dx)
        return grads

    def samples(self, rng):
        yield Sample({"X": [rand(rng, 3, 5), rand(rng, 3, 5)]}, {"start_index": 1, "length": 2})
        yield Sample({"X": [rand(rng, 2, 4)]}, {"start_index": -3, "length": -1})
