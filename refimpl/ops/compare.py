"""Comparison and logical ops: boolean outputs, no gradients.

Comparisons broadcast with the elementwise `axis` rule; logical ops (no attrs) broadcast
like numpy.
"""
import numpy as np

from .. import versions
from ..broadcasting import align
from ._common import broadcast_shape, rand
from .elementwise import axis_broadcast_shape
from .registry import OpDef, Sample, register, register_variant


class _Compare(OpDef):
    inputs = ("X", "Y")
    outputs = ("Out",)
    attrs = {"axis": -1}

    def infer_shape(self, ctx):
        ctx.set_output("Out", axis_broadcast_shape(ctx), "bool")

    def forward(self, x, y, axis=-1):
        return self.fn(*align(x, y, axis))

    def samples(self, rng):
        # rounded values, so equal elements (ties) occur
        yield Sample({"X": np.round(rand(rng, 3, 4)), "Y": np.round(rand(rng, 3, 4))})
        yield Sample({"X": np.round(rand(rng, 2, 3, 4)), "Y": np.round(rand(rng, 3))},
                     {"axis": 1})


def _check_logical_operands(ctx, slots):
    """Paddle 1.8 / 2.0 register the logical ops' kernels for bool only (switch
    `logical_op_dtypes`); Paddle 3 takes any dtype, reading nonzero as True."""
    if versions.switch("logical_op_dtypes") == "bool":
        for slot in slots:
            ctx.check_dtype(slot, ("bool",))


class NumpyBroadcast(OpDef):
    """X fn Y, broadcast like numpy (no attrs): the logical and the bitwise ops. A family
    checks its operands (`check_operands`) and names the result's dtype (`out_dtype`;
    None: the operands')."""
    inputs = ("X", "Y")
    outputs = ("Out",)
    out_dtype = None

    def check_operands(self, ctx):
        pass

    def infer_shape(self, ctx):
        self.check_operands(ctx)
        ctx.set_output("Out", broadcast_shape(ctx.input_shape("X"), ctx.input_shape("Y"), ctx),
                       self.out_dtype or ctx.input_dtype("X"))

    def forward(self, x, y):
        return self.fn(x, y)


class _Logical(NumpyBroadcast):
    out_dtype = "bool"

    def check_operands(self, ctx):
        _check_logical_operands(ctx, ("X", "Y"))

    def samples(self, rng):
        yield Sample({"X": rng.rand(3, 4) > 0.5, "Y": rng.rand(3, 4) > 0.5})
        yield Sample({"X": rng.rand(2, 3, 4) > 0.5, "Y": rng.rand(4) > 0.5})


def _equal(x, y):
    """x == y; floats under the 1.8 profile: within 1e-8, as Paddle 1.8's kernel
    (switch `float_equal`)."""
    if versions.switch("float_equal") == "exact" or not (
            np.issubdtype(x.dtype, np.floating) and np.issubdtype(y.dtype, np.floating)):
        return np.equal(x, y)
    with np.errstate(invalid="ignore"):
        return np.abs(np.subtract(x, y).astype(np.float64)) < 1e-8


def _not_equal(x, y):
    return np.logical_not(_equal(x, y))


for _base, _type, _fn in [(_Compare, "less_than", np.less),
                          (_Compare, "less_equal", np.less_equal),
                          (_Compare, "greater_than", np.greater),
                          (_Compare, "greater_equal", np.greater_equal),
                          (_Compare, "equal", _equal), (_Compare, "not_equal", _not_equal),
                          (_Logical, "logical_and", np.logical_and),
                          (_Logical, "logical_or", np.logical_or),
                          (_Logical, "logical_xor", np.logical_xor)]:
    register_variant(_base, _type, fn=_fn)


@register
class LogicalNot(OpDef):
    type = "logical_not"
    inputs = ("X",)
    outputs = ("Out",)

    def infer_shape(self, ctx):
        _check_logical_operands(ctx, ("X",))
        ctx.set_output("Out", ctx.input_shape("X"), "bool")

    @staticmethod
    def forward(x):
        return np.logical_not(x)

    def samples(self, rng):
        yield Sample({"X": rng.rand(3, 4) > 0.5})


@register
class EqualAll(OpDef):
    """One bool: X and Y have one shape and all elements equal."""
    type = "equal_all"
    inputs = ("X", "Y")
    outputs = ("Out",)
    scalar_outputs = ("Out",)

    def infer_shape(self, ctx):
        ctx.set_output("Out", (), "bool")

    @staticmethod
    def forward(x, y):
        return np.array(x.shape == y.shape and bool(np.all(x == y)))

    def samples(self, rng):
        x = np.round(rand(rng, 3, 4))
        yield Sample({"X": x, "Y": x.copy()})
        yield Sample({"X": x, "Y": np.round(rand(rng, 3, 4))})
        yield Sample({"X": x, "Y": x[:2].copy()}, name="shapes_differ")


class _FloatTest(OpDef):
    """A test of float values (isnan, isinf, isfinite): elementwise (the 2.0 `_v2` ops) or
    reduced to one answer over all elements (the fluid ops)."""
    inputs = ("X",)
    outputs = ("Out",)
    scalar_outputs = ("Out",)

    def infer_shape(self, ctx):
        ctx.set_output("Out", ctx.input_shape("X") if self.elementwise else (), "bool")

    def forward(self, x):
        out = self.test(x)
        return out if self.elementwise else np.array(self.combine(out))

    def samples(self, rng):
        x = rand(rng, 3, 4)
        yield Sample({"X": x})
        x = x.copy()
        x[0, 1], x[2, 2] = np.inf, np.nan
        yield Sample({"X": x}, name="inf_nan")


for _type, _test, _combine, _elementwise in [
        ("isfinite", np.isfinite, np.all, False), ("isfinite_v2", np.isfinite, None, True),
        ("isinf", np.isinf, np.any, False), ("isinf_v2", np.isinf, None, True),
        ("isnan", np.isnan, np.any, False), ("isnan_v2", np.isnan, None, True)]:
    register_variant(_FloatTest, _type, test=_test, combine=_combine, elementwise=_elementwise)
