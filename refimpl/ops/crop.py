"""crop (Paddle 1.8, fluid.layers.crop): X[offsets : offsets + shape] in every dim, the
slice op's cut. shape is Y's shape when Y is given, else the attr (where -1 in dim 0 is X's
batch size); offsets come from the int tensor Offsets when given, else the attr (default
0). Every crop must lie inside X. The gradient places Out@GRAD at the crop (slice's)."""
import numpy as np

from ._common import rand, runtime_ints
from .registry import OpDef, Sample, register
from .tensor_ops import Slice


def _bounds(x, y, offsets_t, offsets, shape):
    shape = list(y.shape) if y is not None else list(shape)
    if shape and shape[0] == -1:
        shape[0] = x.shape[0]
    offsets = runtime_ints(offsets_t, None, offsets) if offsets_t is not None \
        else list(offsets) or [0] * x.ndim
    if len(shape) != x.ndim or len(offsets) != x.ndim or any(
            o < 0 or d < 0 or o + d > n for o, d, n in zip(offsets, shape, x.shape)):
        raise ValueError("crop: shape %s at offsets %s does not lie inside X %s"
                         % (shape, offsets, list(x.shape)))
    return dict(axes=list(range(x.ndim)), starts=offsets,
                ends=[o + d for o, d in zip(offsets, shape)])


@register
class Crop(OpDef):
    type = "crop"
    inputs = ("X", "Y?", "Offsets?")
    outputs = ("Out",)
    attrs = {"offsets": [], "shape": []}
    no_grad = ("Y", "Offsets")
    grad_inputs = ("X", "Y?", "Offsets?", "Out@GRAD")

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        if ctx.has_input("Y"):
            shape = list(ctx.input_var("Y").shape)
        else:
            shape = list(ctx.attr("shape"))
            ctx.expect(len(shape) > 0, "crop needs Y or the shape attr")
            if shape[0] == -1:
                shape[0] = x.shape[0]
        ctx.expect(len(shape) == len(x.shape), "the crop shape %s and X %r %s must have one "
                   "rank" % (shape, x.name, list(x.shape)))
        offsets = list(ctx.attr("offsets"))
        if not ctx.has_input("Offsets") and offsets:
            ctx.expect(len(offsets) == len(x.shape), "offsets %s need one entry per dim of "
                       "X %r %s" % (offsets, x.name, list(x.shape)))
            ctx.expect(all(n < 0 or d < 0 or o + d <= n
                           for o, d, n in zip(offsets, shape, x.shape)),
                       "shape %s at offsets %s does not lie inside X %r %s"
                       % (shape, offsets, x.name, list(x.shape)))
        ctx.set_output("Out", shape, x.dtype)

    @staticmethod
    def forward(x, y=None, offsets_t=None, offsets=(), shape=()):
        return Slice.forward(x, **_bounds(x, y, offsets_t, offsets, shape))

    @staticmethod
    def backward(x, y, offsets_t, dout, offsets=(), shape=()):
        return Slice.backward(x, None, None, None, None, dout,
                              **_bounds(x, y, offsets_t, offsets, shape))

    def samples(self, rng):
        yield Sample({"X": rand(rng, 4, 5)}, {"shape": [2, 3], "offsets": [1, 2]})
        yield Sample({"X": rand(rng, 3, 4, 5), "Y": rand(rng, 2, 2, 3),
                      "Offsets": np.array([1, 0, 2], "int32")}, name="by_inputs")
        yield Sample({"X": rand(rng, 3, 4)}, {"shape": [-1, 2], "offsets": [0, 1]},
                     name="batch")
