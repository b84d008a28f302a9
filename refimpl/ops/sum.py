"""sum: elementwise sum of a list of same-shaped tensors, or of tensor arrays element by
element (gradient accumulation uses it)."""
from ._common import rand, shapes_agree
from .registry import OpDef, Sample, register, share_lod
from .tensor_array import add_array_gradients


@register
class Sum(OpDef):
    type = "sum"
    lod_outputs = {"Out": share_lod("X")}
    inputs = ("X*",)
    outputs = ("Out",)
    grad_inputs = ("X*", "Out@GRAD")

    def infer_shape(self, ctx):
        xs = ctx.input_vars("X")
        first = xs[0]
        for v in xs[1:]:
            if v.dtype != first.dtype:
                ctx.fail("all inputs must share a dtype: %r is %s, %r is %s"
                         % (first.name, first.dtype.name, v.name, v.dtype.name))
            shapes = first.shape, v.shape
            if None not in shapes and len(shapes[0]) == len(shapes[1]):
                ctx.expect(shapes_agree(*shapes), "all inputs must have one shape (-1: any): "
                           "%r is %s, %r is %s" % (first.name, list(first.shape), v.name,
                                                   list(v.shape)))
        ctx.set_output("Out", first.shape, first.dtype)

    @staticmethod
    def forward(xs):
        if isinstance(xs[0], list):     # gradients of a LoDTensorArray
            return add_array_gradients(xs)
        out = xs[0].copy()
        for x in xs[1:]:
            out += x
        return out

    @staticmethod
    def backward(xs, dout):
        return [dout.copy() for _ in xs]

    def samples(self, rng):
        yield Sample({"X": [rand(rng, 3, 4), rand(rng, 3, 4), rand(rng, 3, 4)]})
