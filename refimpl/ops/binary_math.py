"""Paddle 3's element-wise math of two inputs, each one kernel in Paddle 3.3.1, broadcast
like numpy: atan2, copysign, elementwise_heaviside, elementwise_fmax / fmin, nextafter,
bitwise_left_shift / bitwise_right_shift, gammaincc, and lerp (three inputs). Slot names,
dtypes and gradients as 3.3.1's (measured, specs/ops/special_functions.md)."""
import numpy as np

from ..broadcasting import sum_to_shape
from ._common import broadcast_shape, numel, rand
from .linalg_ops import Allclose
from .registry import OpDef, Sample, register, register_variant
from .special import REALS, scipy_special

INTEGERS = ("uint8", "int8", "int16", "int32", "int64")


class _Binary(OpDef):
    """out = fn(x, y) broadcast like numpy, the operands of one dtype among `dtypes`; Out's
    dtype `out_dtype(x dtype name)` (default: the operands'). A differentiable op defines
    `partials(x, y, out)` -> (d out / dx, d out / dy) element-wise."""
    inputs = ("X", "Y")
    outputs = ("Out",)
    dtypes = REALS

    @staticmethod
    def out_dtype(dtype):
        return dtype

    def infer_shape(self, ctx):
        a, b = self.inputs[:2]
        for slot in (a, b):
            ctx.check_dtype(slot, self.dtypes)
        x, y = ctx.input_dtype(a), ctx.input_dtype(b)
        ctx.expect(x == y, "%s and %s must have one dtype, got %s and %s"
                   % (a, b, x.name, y.name))
        ctx.set_output(self.outputs[0],
                       broadcast_shape(ctx.input_shape(a), ctx.input_shape(b), ctx),
                       self.out_dtype(x.name))

    def forward(self, x, y, **attrs):
        return np.asarray(self.fn(x, y, **attrs)).astype(self.out_dtype(x.dtype.name),
                                                          copy=False)

    def samples(self, rng):
        yield Sample({self.inputs[0]: rand(rng, 3, 4), self.inputs[1]: rand(rng, 3, 4)})
        yield Sample({self.inputs[0]: rand(rng, 2, 3, 4), self.inputs[1]: rand(rng, 4)},
                     name="broadcast")


def _summed_to(g, a):
    """The gradient g of broadcast operand a, summed back to a's shape, in a's dtype."""
    return sum_to_shape(g, a.shape).reshape(a.shape).astype(a.dtype, copy=False)


def _partials_backward(self, x, y, dout):
    dx, dy = self.partials(x, y)
    return _summed_to(dout * dx, x), _summed_to(dout * dy, y)


def _differentiable(cls):
    """A _Binary whose gradient reads x, y and out@GRAD: its partials times dout."""
    cls.grad_inputs = (cls.inputs[0], cls.inputs[1], cls.outputs[0] + "@GRAD")
    cls.backward = _partials_backward
    return register(cls)


@_differentiable
class Atan2(_Binary):
    """atan2(X1, X2); integer operands give float64. 3.3.1's op takes operands of one rank,
    X1 of no more elements than X2 (paddle.atan2 broadcasts eager operands first)."""
    type = "atan2"
    inputs = ("X1", "X2")
    dtypes = REALS + ("int32", "int64")
    fn = staticmethod(np.arctan2)

    def infer_shape(self, ctx):
        x, y = ctx.input_shape("X1"), ctx.input_shape("X2")
        ctx.expect(len(x) == len(y), "the rank (%d) of X1 must be the rank (%d) of X2"
                   % (len(x), len(y)))
        if min(x + y, default=0) >= 0:
            ctx.expect(numel(x) <= numel(y), "the count (%d) of elements of X1 must not be "
                       "greater than the count (%d) of elements of X2" % (numel(x), numel(y)))
        super().infer_shape(ctx)

    def samples(self, rng):
        # (3.3.1's kernel broadcasts an X1 of fewer elements forward, but its gradient of
        # such an X1 is garbage: the op is checked on one shape)
        yield Sample({"X1": rand(rng, 3, 4), "X2": rand(rng, 3, 4)})

    @staticmethod
    def out_dtype(dtype):
        return dtype if dtype in REALS else "float64"

    @staticmethod
    def partials(x1, x2):
        r2 = x1 * x1 + x2 * x2
        return x2 / r2, -x1 / r2


@_differentiable
class Copysign(_Binary):
    """|x| with y's sign (integers too); d x = sign(x) sign(out) (0 at x = 0), d y = 0."""
    type = "copysign"
    inputs = ("x", "y")
    outputs = ("out",)
    dtypes = ("bool",) + INTEGERS + ("float16",) + REALS

    @staticmethod
    def fn(x, y):
        if x.dtype.kind == "f":
            return np.copysign(x, y)
        return np.where(np.signbit(y), -np.abs(x), np.abs(x))

    @staticmethod
    def partials(x, y):
        sign = np.where(np.signbit(y), -1, 1)
        return np.sign(x) * sign, np.zeros_like(y)


@_differentiable
class ElementwiseHeaviside(_Binary):
    """0 where X < 0, 1 where X > 0, Y where X = 0; d Y = [X = 0], d X = 0."""
    type = "elementwise_heaviside"
    dtypes = REALS + ("int32", "int64")

    @staticmethod
    def fn(x, y):
        return np.where(x < 0, 0, np.where(x > 0, 1, y))

    @staticmethod
    def partials(x, y):
        return np.zeros_like(x), (x == 0)

    def samples(self, rng):
        x = rand(rng, 3, 4)
        yield Sample({"X": np.where(np.abs(x) < 0.1, 0.5, x), "Y": rand(rng, 3, 4)})
        # zeros among X (Y shows through): no finite differences across X's step
        yield Sample({"X": np.round(x), "Y": rand(rng, 3, 4)}, grad=False, name="zeros")


class _NanIgnoring(_Binary):
    """fmax / fmin: the larger / smaller operand (`fn`), a NaN losing to a number; the
    gradient goes to X where X wins (`x_wins`) or Y is NaN, else to Y (3.3.1)."""
    dtypes = REALS + ("int32", "int64")
    grad_inputs = ("X", "Y", "Out@GRAD")
    backward = _partials_backward

    def partials(self, x, y):
        x_wins = self.x_wins(x, y) | np.isnan(y)
        return x_wins, ~x_wins

    def samples(self, rng):
        for s in super().samples(rng):
            s.inputs["Y"] = s.inputs["Y"] + 0.05    # no ties: finite differences hold
            yield s


register_variant(_NanIgnoring, "elementwise_fmax", fn=np.fmax, x_wins=np.greater_equal)
register_variant(_NanIgnoring, "elementwise_fmin", fn=np.fmin, x_wins=np.less_equal)


@register
class Nextafter(_Binary):
    """The next float after x toward y (no gradient)."""
    type = "nextafter"
    inputs = ("x", "y")
    outputs = ("out",)
    fn = staticmethod(np.nextafter)


def _shift(x, y, is_arithmetic=True, left=True):
    """x << y or x >> y as 3.3.1's kernels: a shift by a negative amount or by the dtype's
    bits or more gives 0 (a right arithmetic shift of a negative x: -1); a logical right
    shift reads x as unsigned."""
    bits = x.dtype.itemsize * 8
    out_of_range = (y < 0) | (y >= bits)
    by = np.where(out_of_range, 0, y).astype(x.dtype)
    if left:
        return np.where(out_of_range, 0, np.left_shift(x, by))
    if is_arithmetic or x.dtype.kind == "u":
        return np.where(out_of_range, np.where(x < 0, -1, 0), np.right_shift(x, by))
    unsigned = x.view("u%d" % x.dtype.itemsize)
    shifted = np.right_shift(unsigned, by.view(unsigned.dtype)).view(x.dtype)
    return np.where(out_of_range, 0, shifted)


class _Shift(_Binary):
    inputs = ("x", "y")
    outputs = ("out",)
    attrs = {"is_arithmetic": True}
    dtypes = INTEGERS

    def fn(self, x, y, is_arithmetic=True):
        return _shift(x, y, is_arithmetic, self.left)

    def samples(self, rng):
        for arithmetic in (True, False):
            yield Sample({"x": rng.randint(-100, 100, (3, 4)).astype("int32"),
                          "y": rng.randint(-2, 34, (3, 4)).astype("int32")},
                         {"is_arithmetic": arithmetic})
        yield Sample({"x": rng.randint(-128, 128, (2, 3)).astype("int8"),
                      "y": rng.randint(0, 9, (3,)).astype("int8")}, {"is_arithmetic": False})


@register
class BitwiseLeftShift(_Shift):
    type = "bitwise_left_shift"
    left = True


@register
class BitwiseRightShift(_Shift):
    type = "bitwise_right_shift"
    left = False


@register
class Gammaincc(_Binary):
    """The regularized upper incomplete gamma function Q(x, y), 1 where x <= 0 or y <= 0
    (3.3.1's kernel); the gradient reaches y only: -exp(-y) y^(x-1) / Gamma(x)."""
    type = "gammaincc"
    inputs = ("x", "y")
    outputs = ("out",)
    no_grad = ("x",)
    grad_inputs = ("x", "y", "out@GRAD")

    @staticmethod
    def fn(x, y):
        return np.where((x <= 0) | (y <= 0), 1, scipy_special().gammaincc(x, y))

    def backward(self, x, y, dout):
        s = scipy_special()
        dy = -np.exp(-y + (x - 1) * np.log(y) - s.gammaln(x))
        return _summed_to(dout * dy, y)

    def samples(self, rng):
        yield Sample({"x": rng.uniform(0.5, 3, (3, 4)), "y": rng.uniform(0.5, 3, (3, 4))})


@register
class Lerp(OpDef):
    """X + Weight (Y - X), the three broadcast like numpy; gradients reach X and Y only
    (3.3.1's lerp_grad has none for Weight)."""
    type = "lerp"
    inputs = ("X", "Y", "Weight")
    outputs = ("Out",)
    no_grad = ("Weight",)
    grad_inputs = ("X", "Y", "Weight", "Out@GRAD")

    def infer_shape(self, ctx):
        shape = ()
        for slot in self.inputs:
            ctx.check_dtype(slot, REALS)
            ctx.expect(ctx.input_dtype(slot) == ctx.input_dtype("X"),
                       "X, Y and Weight must have one dtype, got %s"
                       % [ctx.input_dtype(s).name for s in self.inputs])
            shape = broadcast_shape(shape, ctx.input_shape(slot), ctx)
        ctx.set_output("Out", shape, ctx.input_dtype("X"))

    @staticmethod
    def forward(x, y, weight):
        return (x + weight * (y - x)).astype(x.dtype, copy=False)

    @staticmethod
    def backward(x, y, weight, dout):
        return _summed_to(dout * (1 - weight), x), _summed_to(dout * weight, y)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 4), "Y": rand(rng, 3, 4), "Weight": rand(rng, 3, 4)})
        yield Sample({"X": rand(rng, 2, 1, 4), "Y": rand(rng, 3, 4),
                      "Weight": rand(rng, 1)}, name="broadcast")


@register
class Isclose(Allclose):
    """allclose element-wise: |Input - Other| <= atol + rtol |Other| per element (bool);
    Input and Other of one rank (3.3.1 refuses others)."""
    type = "isclose"
    scalar_outputs = ()
    compare = staticmethod(np.isclose)

    @staticmethod
    def out_shape(ctx):
        x, y = ctx.input_shape("Input"), ctx.input_shape("Other")
        ctx.expect(len(x) == len(y), "Input and Other must have one rank, got shapes %s and "
                   "%s" % (list(x), list(y)))
        return broadcast_shape(x, y, ctx)

    def samples(self, rng):
        x = rand(rng, 3, 4)
        y = x + np.where(rng.rand(3, 4) > 0.5, 1e-9, 1e-3)
        y[0, :2] = np.nan
        x[0, 0] = np.nan
        yield Sample({"Input": x, "Other": y})
        yield Sample({"Input": x, "Other": y}, {"rtol": "1e-2", "atol": "0.0",
                                               "equal_nan": True})
