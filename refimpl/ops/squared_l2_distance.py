"""squared_l2_distance: the squared L2 distance of each row of X to the same row of Y, or
to Y's one row. X [N, ...] and Y [N or 1, ...] with the same trailing dims are read as
[N, D] and [N or 1, D]; sub_result [N, D] = X - Y (kept for the gradient), Out [N, 1] the
row sums of its squares. Y's gradient is -2 sub_result Out@GRAD, summed over the rows when
Y has one (Paddle 1.8.5, measured). No 1.8 / 2.0 layer builds it; programs append it by
type."""
import numpy as np

from ._common import FLOATS, rand, shapes_agree
from .registry import OpDef, Sample, register


@register
class SquaredL2Distance(OpDef):
    type = "squared_l2_distance"
    inputs = ("X", "Y")
    outputs = ("sub_result", "Out")
    grad_inputs = ("X", "Y", "sub_result", "Out@GRAD")

    def infer_shape(self, ctx):
        x, y = ctx.input_var("X"), ctx.input_var("Y")
        ctx.check_dtype("X", FLOATS)
        ctx.check_same_dtype("X", "Y")
        ok = len(x.shape) >= 2 and shapes_agree(x.shape[1:], y.shape[1:])
        ctx.expect(ok, "X %r %s and Y %r %s must have the same rank (at least 2) and the "
                   "same dims after the first" % (x.name, list(x.shape), y.name,
                                                  list(y.shape)))
        ctx.expect(y.shape[0] in (1, -1) or x.shape[0] in (-1, y.shape[0]),
                   "Y %r has %d rows: it must have 1 or as many as X %r (%d)"
                   % (y.name, y.shape[0], x.name, x.shape[0]))
        width = -1 if -1 in x.shape[1:] else int(np.prod(x.shape[1:]))
        ctx.set_output("sub_result", [x.shape[0], width], x.dtype)
        ctx.set_output("Out", [x.shape[0], 1], x.dtype)

    @staticmethod
    def forward(x, y):
        sub = x.reshape(x.shape[0], -1) - y.reshape(y.shape[0], -1)
        return sub, np.sum(sub * sub, axis=1, keepdims=True)

    @staticmethod
    def backward(x, y, sub, dout):
        dx = 2 * sub * dout
        dy = -dx if y.shape[0] == x.shape[0] else -np.sum(dx, axis=0, keepdims=True)
        return dx.reshape(x.shape).astype(x.dtype), dy.reshape(y.shape).astype(y.dtype)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 4), "Y": rand(rng, 3, 4)})
        yield Sample({"X": rand(rng, 2, 3, 4), "Y": rand(rng, 1, 3, 4)}, name="one_row_y")
