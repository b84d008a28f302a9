"""minus: Out = X - Y for X and Y of one shape (Paddle's op before elementwise_sub, which
broadcasts; no 1.8 / 2.0 layer builds it, programs append it by type)."""
from ._common import FLOATS, rand, shapes_agree
from .registry import OpDef, Sample, register, share_lod


@register
class Minus(OpDef):
    type = "minus"
    inputs = ("X", "Y")
    outputs = ("Out",)
    grad_inputs = ("Out@GRAD",)
    lod_outputs = {"Out": share_lod("X")}

    def infer_shape(self, ctx):
        x, y = ctx.input_var("X"), ctx.input_var("Y")
        ctx.check_dtype("X", FLOATS)
        ctx.check_same_dtype("X", "Y")
        ctx.expect(
            shapes_agree(x.shape, y.shape),
            "X %r %s and Y %r %s must have the same shape (minus does not broadcast)"
            % (x.name, list(x.shape), y.name, list(y.shape)))
        ctx.same_as("X", "Out")

    @staticmethod
    def forward(x, y):
        return x - y

    @staticmethod
    def backward(dout):
        return dout.copy(), -dout

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 4), "Y": rand(rng, 3, 4)})
