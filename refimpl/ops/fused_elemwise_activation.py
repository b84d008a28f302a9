"""fused_elemwise_activation (Paddle 1.8): an elementwise op and a unary op as one, in the
order functor_list gives: [binary, unary] computes Out = Binary(X, Unary(Y)) with
IntermediateOut = Unary(Y); [unary, binary] computes Out = Unary(Binary(X, Y)) with
IntermediateOut = Binary(X, Y). Binary: elementwise_add / elementwise_mul with the `axis`
broadcasting of the elementwise ops (either operand may be the smaller); unary: scale (by
the `scale` attr), relu, tanh, sigmoid. Only the pairs Paddle 1.8.5 implements are accepted
(IMPLEMENTED; it refuses the others at run time). IntermediateOut is optional
(save_intermediate_out only says whether Paddle keeps it)."""
import numpy as np

from ._common import rand
from .elementwise import ElementwiseAdd, ElementwiseMul, axis_broadcast_shape
from .registry import OpDef, Sample, register, share_lod

IMPLEMENTED = {("elementwise_add", "scale"), ("elementwise_add", "relu"),
               ("elementwise_mul", "scale"), ("elementwise_mul", "tanh"),
               ("elementwise_mul", "sigmoid"), ("scale", "elementwise_add"),
               ("relu", "elementwise_add"), ("tanh", "elementwise_add")}
BINARY = {"elementwise_add": ElementwiseAdd, "elementwise_mul": ElementwiseMul}


def _unary(name, v, scale):
    """(U(v), dU/dv) of the unary functor `name`."""
    if name == "scale":
        return v * scale, np.full_like(v, scale)
    if name == "relu":
        return np.maximum(v, 0), (v > 0).astype(v.dtype)
    if name == "tanh":
        t = np.tanh(v)
        return t, 1 - t * t
    s = 1 / (1 + np.exp(-v))
    return s, s * (1 - s)


def _split(functor_list):
    """(binary op class, unary name, binary first?)."""
    first, second = functor_list
    if first in BINARY:
        return BINARY[first], second, True
    return BINARY[second], first, False


@register
class FusedElemwiseActivation(OpDef):
    type = "fused_elemwise_activation"
    inputs = ("X", "Y")
    outputs = ("Out", "IntermediateOut?")
    attrs = {"functor_list": [], "axis": -1, "scale": 0.0, "save_intermediate_out": False}
    grad_inputs = ("X", "Y", "Out@GRAD")
    lod_outputs = {"Out": share_lod("X")}

    def infer_shape(self, ctx):
        functors = tuple(ctx.attr("functor_list"))
        ctx.expect(functors in IMPLEMENTED,
                   "functor_list %s is not one of the pairs Paddle 1.8 implements: %s"
                   % (list(functors), sorted(map(list, IMPLEMENTED))))
        x, y = ctx.input_var("X"), ctx.input_var("Y")
        ctx.expect(x.dtype == y.dtype, "inputs X %r and Y %r must have the same dtype, got "
                   "%s and %s" % (x.name, y.name, x.dtype.name, y.dtype.name))
        out_shape = axis_broadcast_shape(ctx)
        ctx.set_output("Out", out_shape, x.dtype)
        if ctx.has_output("IntermediateOut"):
            binary_first = functors[0] in BINARY
            ctx.set_output("IntermediateOut", list(y.shape) if binary_first else out_shape,
                           x.dtype)

    @staticmethod
    def forward(x, y, functor_list=(), axis=-1, scale=0.0, save_intermediate_out=False):
        binary, unary, binary_first = _split(functor_list)
        if binary_first:
            inter = _unary(unary, y, scale)[0]
            return binary.forward(x, inter, axis), inter
        inter = binary.forward(x, y, axis)
        return _unary(unary, inter, scale)[0], inter

    @staticmethod
    def backward(x, y, dout, functor_list=(), axis=-1, scale=0.0, save_intermediate_out=False):
        binary, unary, binary_first = _split(functor_list)
        if binary_first:
            inter, slope = _unary(unary, y, scale)
            dx, dinter = binary.backward(x, inter, dout, axis)
            return dx, dinter * slope
        inter = binary.forward(x, y, axis)
        return binary.backward(x, y, dout * _unary(unary, inter, scale)[1], axis)

    def samples(self, rng):
        # save_intermediate_out: Paddle (1.8.5, 3.3.1) writes IntermediateOut only then, and
        # without it its Y gradient of elementwise_mul + sigmoid / tanh is not the one
        # refimpl's (finite differences) and its own saved-intermediate gradient agree on
        for pair in sorted(IMPLEMENTED):
            yield Sample({"X": rand(rng, 2, 3, 4), "Y": rand(rng, 3)},
                         {"functor_list": list(pair), "axis": 1, "scale": 0.5,
                          "save_intermediate_out": True},
                         name="_".join(pair))
        yield Sample({"X": rand(rng, 4), "Y": rand(rng, 2, 4)},
                     {"functor_list": ["elementwise_mul", "tanh"], "save_intermediate_out": True},
                     name="x_smaller")
