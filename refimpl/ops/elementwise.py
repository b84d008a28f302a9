"""elementwise_{add,sub,mul,div,max,min,pow}: X op Y with Paddle's `axis` broadcasting.

Y's dims align with X's starting at `axis`; axis=-1 aligns them on the right, which
is numpy broadcasting (either operand may be the smaller one).
"""
import numpy as np

from ._common import FLOATS, align, broadcast_shape, rand, unbroadcast, y_view_shape
from .registry import OpDef, Sample, register


class _Elementwise(OpDef):
    inputs = ("X", "Y")
    outputs = ("Out",)
    attrs = {"axis": -1}

    def infer_shape(self, ctx):
        x, y = ctx.input_var("X"), ctx.input_var("Y")
        if x.dtype != y.dtype:
            ctx.fail("inputs X %r and Y %r must have the same dtype, got %s and %s"
                     % (x.name, y.name, x.dtype.name, y.dtype.name))
        axis = ctx.attr("axis")
        xs, ys = tuple(x.shape), tuple(y.shape)
        if axis != -1 and len(ys) < len(xs):
            if axis < 0 or axis + len(ys) > len(xs):
                ctx.fail("axis=%d does not fit Y %r %s inside X %r %s"
                         % (axis, y.name, list(ys), x.name, list(xs)))
            ys = y_view_shape(len(xs), ys, axis)
        elif axis != -1 and len(xs) < len(ys):
            xs = y_view_shape(len(ys), xs, axis)
        ctx.set_output("Out", broadcast_shape(xs, ys, ctx), x.dtype)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 4), "Y": rand(rng, 3, 4)}, name="same")
        yield Sample({"X": rand(rng, 2, 3, 4), "Y": rand(rng, 4)}, name="right")
        yield Sample({"X": rand(rng, 2, 3, 4), "Y": rand(rng, 3)}, {"axis": 1}, name="axis1")
        yield Sample({"X": rand(rng, 2, 3, 4, 5), "Y": rand(rng, 3, 4)}, {"axis": 1},
                     name="axis1_2d")


@register
class ElementwiseAdd(_Elementwise):
    type = "elementwise_add"

    @staticmethod
    def forward(x, y, axis=-1):
        x, y = align(x, y, axis)
        return x + y

    @staticmethod
    def backward(x, y, out, dout, axis=-1):
        return unbroadcast(dout, x, y, axis)
