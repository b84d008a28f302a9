"""elementwise_{add,sub,mul,div,max,min,pow}: X op Y with Paddle's `axis` broadcasting.

Y's dims align with X's starting at `axis`; axis=-1 aligns them on the right, which
is numpy broadcasting (either operand may be the smaller one).
"""
import numpy as np

from .. import versions
from ..broadcasting import align, unbroadcast, y_view_shape
from ._common import (broadcast_shape, complex_promotion, conj, grads_in_operand_dtypes,
                      rand)
from .registry import OpDef, Sample, register, share_lod


def axis_broadcast_shape(ctx):
    """Build-time shape of X op Y under Paddle's `axis` rule (also used by compare ops)."""
    x, y = ctx.input_var("X"), ctx.input_var("Y")
    if x.shape is None or y.shape is None:      # a shapeless create_tensor: known when run
        return None
    axis = ctx.attr("axis")
    xs, ys = tuple(x.shape), tuple(y.shape)
    if axis != -1 and len(ys) < len(xs):
        view = y_view_shape(len(xs), ys, axis)  # Y's trailing 1s may be dropped to fit
        if axis < 0 or len(view) != len(xs):
            ctx.fail("axis=%d does not fit Y %r %s inside X %r %s"
                     % (axis, y.name, list(ys), x.name, list(xs)))
        ys = view
    elif axis != -1 and len(xs) < len(ys):
        xs = y_view_shape(len(ys), xs, axis)
    lead = len(xs) - len(ys)
    for i, (dx, dy) in enumerate(zip(xs[max(lead, 0):], ys[max(-lead, 0):])):
        if dx != dy and 1 not in (dx, dy) and -1 not in (dx, dy):
            ctx.fail("X %r %s and Y %r %s (axis=%d) do not broadcast: %d vs %d at dim %d"
                     % (x.name, list(x.shape), y.name, list(y.shape), axis, dx, dy,
                        i + max(lead, 0)))
    return broadcast_shape(xs, ys, ctx)


def _out_dtype(x, y, mixes_complex):
    """Out's dtype: the operands' one, or, where the op takes a real operand with a complex
    one (Paddle 2.0's add / sub / mul / div: its TestRealComplexElementwise*Op), their
    promotion; None when they do not agree."""
    if x.dtype == y.dtype:
        return x.dtype
    return complex_promotion(x, y) if mixes_complex else None


class _Elementwise(OpDef):
    inputs = ("X", "Y")
    outputs = ("Out",)
    lod_outputs = {"Out": share_lod("X")}
    attrs = {"axis": -1}
    mixes_complex = False       # takes a real operand with a complex one

    def infer_shape(self, ctx):
        x, y = ctx.input_var("X"), ctx.input_var("Y")
        dtype = _out_dtype(x, y, self.mixes_complex)
        if dtype is None:
            ctx.fail("inputs X %r and Y %r must have the same dtype, got %s and %s"
                     % (x.name, y.name, x.dtype.name, y.dtype.name))
        ctx.set_output("Out", axis_broadcast_shape(ctx), dtype)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 4), "Y": rand(rng, 3, 4)}, name="same")
        yield Sample({"X": rand(rng, 2, 3, 4), "Y": rand(rng, 4)}, name="right")
        yield Sample({"X": rand(rng, 2, 3, 4), "Y": rand(rng, 3)}, {"axis": 1}, name="axis1")
        yield Sample({"X": rand(rng, 2, 3, 4, 5), "Y": rand(rng, 3, 4)}, {"axis": 1},
                     name="axis1_2d")


@register
class ElementwiseAdd(_Elementwise):
    type = "elementwise_add"
    grad_inputs = ("X", "Y", "Out@GRAD")
    grad_shape_only = ("X", "Y")
    mixes_complex = True

    @staticmethod
    def forward(x, y, axis=-1):
        x, y = align(x, y, axis)
        return x + y

    @staticmethod
    def backward(x, y, dout, axis=-1):
        return grads_in_operand_dtypes(unbroadcast(dout, x, y, axis), x, y)


@register
class ElementwiseSub(_Elementwise):
    type = "elementwise_sub"
    grad_inputs = ("X", "Y", "Out@GRAD")
    grad_shape_only = ("X", "Y")
    mixes_complex = True

    @staticmethod
    def forward(x, y, axis=-1):
        x, y = align(x, y, axis)
        return x - y

    @staticmethod
    def backward(x, y, dout, axis=-1):
        dx, dy = unbroadcast(dout, x, y, axis)
        return grads_in_operand_dtypes((dx, -dy), x, y)


@register
class ElementwiseMul(_Elementwise):
    type = "elementwise_mul"
    grad_inputs = ("X", "Y", "Out@GRAD")
    mixes_complex = True

    @staticmethod
    def forward(x, y, axis=-1):
        x, y = align(x, y, axis)
        return x * y

    @staticmethod
    def backward(x, y, dout, axis=-1):
        xa, ya = align(x, y, axis)
        return grads_in_operand_dtypes((unbroadcast(dout * conj(ya), x, y, axis)[0],
                                        unbroadcast(dout * conj(xa), x, y, axis)[1]), x, y)


@register
class ElementwiseDiv(_Elementwise):
    """X / Y. Integers are divided toward zero, an integer result (Paddle 1.8.5 and 3.3.1's
    kernels; paddle.divide of integers is the layer's business, `int_divide`)."""
    type = "elementwise_div"
    mixes_complex = True

    def samples(self, rng):
        for s in super().samples(rng):
            y = s.inputs["Y"]
            s.inputs["Y"] = np.where(np.abs(y) < 0.2, 0.5, y)
            yield s
        yield Sample({"X": rng.randint(-9, 10, (3, 4)), "Y": np.array([-4, 3, -2, 5])},
                     grad=False, name="int_signs")

    @staticmethod
    def forward(x, y, axis=-1):
        x, y = align(x, y, axis)
        if _integers(x, y):
            return _divided_toward_zero(x, y)
        return x / y

    @staticmethod
    def backward(x, y, out, dout, axis=-1):
        _, ya = align(x, y, axis)
        return grads_in_operand_dtypes((unbroadcast(dout / conj(ya), x, y, axis)[0],
                                        unbroadcast(-dout * conj(out / ya), x, y, axis)[1]), x, y)


class _Select(_Elementwise):
    """max/min: `select` picks each element, and the gradient goes to X where X wins
    (ties: X), else to Y."""
    grad_inputs = ("X", "Y", "Out@GRAD")

    def samples(self, rng):
        for s in super().samples(rng):
            s.inputs["Y"] = s.inputs["Y"] + 0.05  # no ties, so finite differences are valid
            yield s

    def forward(self, x, y, axis=-1):
        return self.select(*align(x, y, axis))

    def backward(self, x, y, dout, axis=-1):
        xa, ya = align(x, y, axis)
        x_wins = self.x_wins(xa, ya)
        return (unbroadcast(dout * x_wins, x, y, axis)[0],
                unbroadcast(dout * ~x_wins, x, y, axis)[1])


@register
class ElementwiseMax(_Select):
    type = "elementwise_max"
    select = staticmethod(np.maximum)
    x_wins = staticmethod(np.greater_equal)


@register
class ElementwiseMin(_Select):
    type = "elementwise_min"
    select = staticmethod(np.minimum)
    x_wins = staticmethod(np.less_equal)


@register
class ElementwisePow(_Elementwise):
    type = "elementwise_pow"

    def samples(self, rng):
        for s in super().samples(rng):
            s.inputs["X"] = np.abs(s.inputs["X"]) + 0.5  # positive base: real log
            yield s

    @staticmethod
    def forward(x, y, axis=-1):
        xa, ya = align(x, y, axis)
        return np.power(xa, ya)

    @staticmethod
    def backward(x, y, out, dout, axis=-1):
        xa, ya = align(x, y, axis)
        dx = dout * ya * np.power(xa, ya - 1)
        dy = dout * out * np.log(np.where(xa > 0, xa, 1))
        # integer inputs get integer gradients (truncated), as in Paddle
        return (unbroadcast(dx, x, y, axis)[0].astype(x.dtype, copy=False),
                unbroadcast(dy, x, y, axis)[1].astype(y.dtype, copy=False))


class _NoGradElementwise(_Elementwise):
    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 4) * 10, "Y": np.full((3, 4), 3.0)})
        # integers of both signs: the sign rule is the profile's (specs/versions.md)
        yield Sample({"X": rng.randint(-9, 10, (2, 3, 4)), "Y": np.array([-4, 3, -2])},
                     {"axis": 1}, name="int_signs")


def _integers(x, y):
    return np.issubdtype(np.result_type(x, y), np.integer)


def _divided_toward_zero(x, y):
    """Integer x / y as C divides (Paddle 1.8's and 2.0's kernels): toward zero."""
    q = np.floor_divide(x, y)
    return q + ((q < 0) & (q * y != x))


@register
class ElementwiseFloordiv(_NoGradElementwise):
    """X // Y. Integers: toward zero (Paddle 1.8, 2.0) or floored (3) -- `int_floordiv`."""
    type = "elementwise_floordiv"

    @staticmethod
    def forward(x, y, axis=-1):
        x, y = align(x, y, axis)
        if _integers(x, y) and versions.switch("int_floordiv") == "trunc":
            return _divided_toward_zero(x, y)
        return np.floor_divide(x, y)


@register
class ElementwiseMod(_NoGradElementwise):
    """X mod Y. Floats: the sign of Y (Python's rule) in every version. Integers: the sign of
    X, as C's % (Paddle 1.8), or of Y (2.0, 3) -- `int_mod`."""
    type = "elementwise_mod"

    @staticmethod
    def forward(x, y, axis=-1):
        x, y = align(x, y, axis)
        if _integers(x, y) and versions.switch("int_mod") == "trunc":
            return np.fmod(x, y)
        return np.mod(x, y)
