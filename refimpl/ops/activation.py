"""Unary activations and math: Out = f(X), elementwise.

Each op's backward declares the least it needs: functions whose derivative is cheap in
terms of Out (sigmoid, tanh, exp, sqrt) read only Out, so X can be freed after the forward.
"""
import math

import numpy as np

from .. import versions
from ..framework.dtypes import REAL_OF
from ._common import COMPLEX, FLOATS, rand
from .registry import OpDef, Sample, register, share_lod


class _Unary(OpDef):
    inputs = ("X",)
    outputs = ("Out",)
    lod_outputs = {"Out": share_lod("X")}
    grad_inputs = ("X", "Out@GRAD")
    domain = (-1.0, 1.0)   # sample range keeping away from poles
    kinks = (0.0,)         # points where the derivative jumps: samples keep away from them
    dtypes = FLOATS        # what X may hold

    def infer_shape(self, ctx):
        ctx.check_dtype("X", self.dtypes)
        ctx.same_as("X", "Out")

    def samples(self, rng):
        lo, hi = self.domain
        x = rng.uniform(lo, hi, (3, 5))
        for k in self.kinks:
            x[np.abs(x - k) < 0.05] = k + 0.1 if k + 0.1 < hi else k - 0.1
        yield Sample({"X": x}, getattr(self, "sample_attrs", {}))


class _FromOut(_Unary):
    grad_inputs = ("Out", "Out@GRAD")


def _unary(name, fwd, bwd=None, from_out=False, attrs=None, domain=None, kinks=None,
           sample_attrs=None, dtypes=None, eager_double_attrs=None, pir_double_attrs=None):
    """Register op `name`: fwd(x, **attrs) and bwd(x, dout, **attrs), or bwd(out, dout,
    **attrs) when `from_out` (the grad then keeps Out alive instead of X)."""
    base = _FromOut if from_out else _Unary
    body = {"type": name, "attrs": attrs or {}, "forward": staticmethod(fwd)}
    if bwd is not None:
        body["backward"] = staticmethod(bwd)
    for key, value in (("domain", domain), ("kinks", kinks), ("sample_attrs", sample_attrs),
                       ("dtypes", dtypes), ("eager_double_attrs", eager_double_attrs),
                       ("pir_double_attrs", pir_double_attrs)):
        if value is not None:
            body[key] = value
    cls = type("".join(p.title() for p in name.split("_")), (base,), body)
    register(cls)
    return cls


def _typed(like, a):
    """`a` in the dtype of `like` (np.where of Python scalars would widen float32). Written
    with astype so that the eager double backward can record it (dygraph/double_backward)."""
    return a.astype(like.dtype, copy=False) if hasattr(a, "astype") else \
        np.asarray(a, dtype=like.dtype)


def _sigmoid(x):
    # exp of a non-positive argument only: no overflow for large |x|
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype)


# a ufunc (object results), so the eager double backward can map it to the erf op
erf_ufunc = np.frompyfunc(math.erf, 1, 1)


def _erf(x):
    return erf_ufunc(x).astype(x.dtype)


_LN2, _LN10 = math.log(2.0), math.log(10.0)
_SELU_SCALE, _SELU_ALPHA = 1.0507009873554804934193349852946, 1.6732632423543772848170429916717

# -- smooth math
_unary("sigmoid", _sigmoid, lambda out, d: d * out * (1 - out), from_out=True, domain=(-3, 3))
_unary("logsigmoid", lambda x: -_softplus(-x), lambda x, d: d * _sigmoid(-x), domain=(-3, 3))
_unary("tanh", np.tanh, lambda out, d: d * (1 - out * out), from_out=True)
_unary("exp", np.exp, lambda out, d: d * out, from_out=True)
_unary("sqrt", np.sqrt, lambda out, d: d * 0.5 / out, from_out=True, domain=(0.2, 2.0))
_unary("rsqrt", lambda x: 1 / np.sqrt(x), lambda out, d: d * -0.5 * out ** 3, from_out=True,
       domain=(0.2, 2.0))
_unary("log", np.log, lambda x, d: d / x, domain=(0.2, 2.0))
_unary("log2", np.log2, lambda x, d: d / (x * _LN2), domain=(0.2, 2.0))
_unary("log10", np.log10, lambda x, d: d / (x * _LN10), domain=(0.2, 2.0))
_unary("log1p", np.log1p, lambda x, d: d / (1 + x), domain=(-0.5, 2.0))
_unary("square", lambda x: x * x, lambda x, d: d * 2 * x)
_unary("reciprocal", lambda x: 1 / x, lambda out, d: -d * out * out, from_out=True,
       domain=(0.2, 2.0))
_unary("sin", np.sin, lambda x, d: d * np.cos(x))
_unary("cos", np.cos, lambda x, d: -d * np.sin(x))
_unary("tan", np.tan, lambda x, d: d / np.cos(x) ** 2)
_unary("asin", np.arcsin, lambda x, d: d / np.sqrt(1 - x * x), domain=(-0.9, 0.9))
_unary("acos", np.arccos, lambda x, d: -d / np.sqrt(1 - x * x), domain=(-0.9, 0.9))
_unary("atan", np.arctan, lambda x, d: d / (1 + x * x))
_unary("sinh", np.sinh, lambda x, d: d * np.cosh(x))
_unary("cosh", np.cosh, lambda x, d: d * np.sinh(x))
_unary("erf", _erf, lambda x, d: d * (2 / math.sqrt(math.pi)) * np.exp(-x * x))
_unary("softsign", lambda x: x / (1 + np.abs(x)), lambda x, d: d / (1 + np.abs(x)) ** 2)
_unary("tanh_shrink", lambda x: x - np.tanh(x), lambda x, d: d * np.tanh(x) ** 2)
_unary("stanh", lambda x, scale_a=0.67, scale_b=1.7159: scale_b * np.tanh(x * scale_a),
       lambda x, d, scale_a=0.67, scale_b=1.7159:
           d * scale_a * scale_b * (1 - np.tanh(x * scale_a) ** 2),
       attrs={"scale_a": 0.67, "scale_b": 1.7159})
def _factor(factor_tensor, factor):
    """FactorTensor (a 1-element tensor), when given, overrides the `factor` attr."""
    return float(np.asarray(factor_tensor).reshape(-1)[0]) if factor_tensor is not None \
        else factor


@register
class Pow(_Unary):
    """X ** factor."""
    type = "pow"
    inputs = ("X", "FactorTensor?")
    no_grad = ("FactorTensor",)
    grad_inputs = ("X", "FactorTensor?", "Out@GRAD")
    attrs = {"factor": 1.0}
    domain = (0.2, 2.0)
    sample_attrs = {"factor": 2.5}
    dtypes = FLOATS + ("int32", "int64")     # Paddle's pow kernels take integers too

    @staticmethod
    def forward(x, factor_tensor=None, factor=1.0):
        return np.power(x, x.dtype.type(_factor(factor_tensor, factor)))

    @staticmethod
    def backward(x, factor_tensor, d, factor=1.0):
        factor = _factor(factor_tensor, factor)
        return d * factor * np.power(x, factor - 1)

# -- piecewise: the derivative at a kink is taken from the flat side (0 for relu at 0)


@register
class Abs(_Unary):
    """|X|; for complex X the modulus, a real tensor, with dX = dOut * X / |X| (0 at 0)."""
    type = "abs"

    def infer_shape(self, ctx):
        ctx.check_dtype("X", FLOATS + COMPLEX)
        x = ctx.input_var("X")
        ctx.set_output("Out", x.shape, REAL_OF.get(x.dtype.name, x.dtype))

    forward = staticmethod(np.abs)

    @staticmethod
    def backward(x, d):
        if x.dtype.kind != "c":
            return d * np.sign(x)
        modulus = np.abs(x)
        return d * np.where(modulus > 0, x / np.where(modulus > 0, modulus, 1), 0)


_unary("relu6", lambda x, threshold=6.0: np.clip(x, 0, threshold).astype(x.dtype),
       lambda out, d, threshold=6.0: d * ((out > 0) & (out < threshold)), from_out=True,
       attrs={"threshold": 6.0}, domain=(-2, 8), kinks=(0.0, 6.0))
_unary("brelu", lambda x, t_min=0.0, t_max=24.0: np.clip(x, t_min, t_max).astype(x.dtype),
       lambda x, d, t_min=0.0, t_max=24.0: d * ((x > t_min) & (x < t_max)),
       attrs={"t_min": 0.0, "t_max": 24.0}, sample_attrs={"t_min": -0.5, "t_max": 0.5},
       kinks=(-0.5, 0.5))
_unary("leaky_relu", lambda x, alpha=0.02: np.where(x > 0, x, x * x.dtype.type(alpha)),
       lambda x, d, alpha=0.02: d * _typed(d, np.where(x > 0, 1, alpha)),
       attrs={"alpha": 0.02}, eager_double_attrs=("alpha",),     # 3's negative_slope
       pir_double_attrs=("alpha",))
_unary("elu", lambda x, alpha=1.0: _typed(x, np.where(x > 0, x, alpha * np.expm1(x))),
       lambda x, d, alpha=1.0: d * _typed(d, np.where(x > 0, 1, alpha * np.exp(x))),
       attrs={"alpha": 1.0})


def _selu_grad(out, d, scale=_SELU_SCALE, alpha=_SELU_ALPHA):
    """Paddle's kernel: d * (out + scale * alpha) where out <= 0, the product worked out in
    float32, and under 1.8 / 2.0 the sum rounded to float32 too (its `float` temporary;
    1.8.5 and 3.3.1 measured in float64: switch selu_grad)."""
    slope = out + float(np.float32(scale) * np.float32(alpha))
    if versions.switch("selu_grad") == "float32":
        slope = slope.astype(np.float32)
    return d * _typed(d, np.where(out > 0, scale, slope))


_unary("selu",
       lambda x, scale=_SELU_SCALE, alpha=_SELU_ALPHA:
           _typed(x, scale * np.where(x > 0, x, alpha * np.expm1(x))),
       _selu_grad, from_out=True, attrs={"scale": _SELU_SCALE, "alpha": _SELU_ALPHA})
# value: what elements at or below the threshold become (Paddle 3's attr; 1.8's op has none)
_unary("thresholded_relu",
       lambda x, threshold=1.0, value=0.0: _typed(x, np.where(x > threshold, x, value)),
       lambda x, d, threshold=1.0, value=0.0: d * (x > threshold),
       attrs={"threshold": 1.0, "value": 0.0}, sample_attrs={"threshold": 0.3}, kinks=(0.3,))
_unary("celu",
       lambda x, alpha=1.0: _typed(x, np.where(x > 0, x, alpha * np.expm1(x / alpha))),
       lambda x, d, alpha=1.0: d * _typed(d, np.where(x > 0, 1, np.exp(x / alpha))),
       attrs={"alpha": 1.0}, sample_attrs={"alpha": 0.5})
_unary("hard_shrink", lambda x, threshold=0.5: _typed(x, np.where(np.abs(x) > threshold, x, 0)),
       lambda x, d, threshold=0.5: d * (np.abs(x) > threshold),
       attrs={"threshold": 0.5}, kinks=(-0.5, 0.5))
_unary("softshrink",
       lambda x, **a: _typed(x, np.where(x > a["lambda"], x - a["lambda"],
                                         np.where(x < -a["lambda"], x + a["lambda"], 0))),
       lambda x, d, **a: d * (np.abs(x) > a["lambda"]),
       attrs={"lambda": 0.5}, kinks=(-0.5, 0.5))


def _softplus(x, beta=1.0, threshold=20.0):
    # above `threshold` softplus is x to float precision (and exp would overflow)
    bx = x * beta
    return _typed(x, np.where(bx > threshold, x,
                              np.logaddexp(0, np.minimum(bx, threshold)) / beta))


_unary("softplus", _softplus,
       lambda x, d, beta=1.0, threshold=20.0:
           d * np.where(x * beta > threshold, 1, _sigmoid(x * beta)).astype(d.dtype),
       attrs={"beta": 1.0, "threshold": 20.0}, eager_double_attrs=("beta", "threshold"),
       pir_double_attrs=("beta", "threshold"))
def _mish_parts(x, threshold):
    """(tanh(sp), sp') of Paddle 1.8's mish softplus sp: x above `threshold`, exp(x) below
    -threshold, log(1 + exp(x)) between."""
    below = np.exp(np.minimum(x, threshold))     # exp(x) where it is used: no overflow
    sp = np.where(x > threshold, x, np.where(x < -threshold, below, np.log1p(below)))
    dsp = np.where(x > threshold, 1, np.where(x < -threshold, below, _sigmoid(x)))
    return np.tanh(sp).astype(x.dtype), dsp.astype(x.dtype)


_unary("mish", lambda x, threshold=20.0: x * _mish_parts(x, threshold)[0],
       lambda x, d, threshold=20.0:
           (lambda t, ds: d * (t + x * (1 - t * t) * ds))(*_mish_parts(x, threshold)),
       attrs={"threshold": 20.0}, domain=(-3, 3))
_unary("soft_relu",
       lambda x, threshold=40.0: np.log1p(np.exp(np.clip(x, -threshold, threshold))),
       lambda x, d, threshold=40.0: d * _sigmoid(x) * (np.abs(x) < threshold),
       attrs={"threshold": 40.0}, sample_attrs={"threshold": 0.5}, kinks=(-0.5, 0.5))
_unary("silu", lambda x: x * _sigmoid(x),
       lambda x, d: d * (lambda s: s + x * s * (1 - s))(_sigmoid(x)))
_unary("swish", lambda x, beta=1.0: x * _sigmoid(beta * x),
       lambda x, d, beta=1.0: d * (lambda s: s + beta * x * s * (1 - s))(_sigmoid(beta * x)),
       attrs={"beta": 1.0})
_unary("hard_sigmoid",
       lambda x, slope=0.2, offset=0.5: np.clip(x * slope + offset, 0, 1).astype(x.dtype),
       lambda out, d, slope=0.2, offset=0.5: d * slope * ((out > 0) & (out < 1)),
       from_out=True, attrs={"slope": 0.2, "offset": 0.5}, domain=(-4, 4), kinks=(-2.5, 2.5))
_unary("hard_swish",
       lambda x, threshold=6.0, scale=6.0, offset=3.0:
           (x * np.clip(x + offset, 0, threshold) / scale).astype(x.dtype),
       lambda x, d, threshold=6.0, scale=6.0, offset=3.0: d * _typed(d, np.where(
           x + offset <= 0, 0, np.where(x + offset >= threshold, threshold / scale,
                                        (2 * x + offset) / scale))),
       attrs={"threshold": 6.0, "scale": 6.0, "offset": 3.0}, domain=(-4, 4),
       kinks=(-3.0, 3.0))


def _gelu(x, approximate=False):
    if approximate:
        c = math.sqrt(2 / math.pi)
        return (0.5 * x * (1 + np.tanh(c * (x + 0.044715 * x ** 3)))).astype(x.dtype)
    return (0.5 * x * (1 + _erf(x / math.sqrt(2)))).astype(x.dtype)


def _gelu_grad(x, d, approximate=False):
    if approximate:
        c = math.sqrt(2 / math.pi)
        t = np.tanh(c * (x + 0.044715 * x ** 3))
        dx = 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * c * (1 + 3 * 0.044715 * x * x)
    else:
        cdf = 0.5 * (1 + _erf(x / math.sqrt(2)))
        pdf = np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)
        dx = cdf + x * pdf
    return (d * dx).astype(d.dtype)


@register
class Gelu(_Unary):
    type = "gelu"
    attrs = {"approximate": False}
    forward = staticmethod(_gelu)
    backward = staticmethod(_gelu_grad)

    def samples(self, rng):
        for approximate in (False, True):
            yield Sample({"X": rng.uniform(-3, 3, (3, 5))}, {"approximate": approximate})

# -- step functions: a zero gradient (Paddle's grad ops for them write zeros, so an
# eager input's gradient() is zeros, not None)
def _zero_grad(x, dout):
    return np.zeros_like(dout)


_unary("sign", np.sign, _zero_grad)
_unary("floor", np.floor, _zero_grad)
_unary("ceil", np.ceil, _zero_grad)
# Paddle rounds halves away from zero (std::round); np.round rounds them to even.
_unary("round", lambda x: _typed(x, np.copysign(np.floor(np.abs(x) + 0.5), x)), _zero_grad)


class _SoftmaxBase(OpDef):
    inputs = ("X",)
    outputs = ("Out",)
    lod_outputs = {"Out": share_lod("X")}
    attrs = {"axis": -1}
    grad_inputs = ("Out", "Out@GRAD")

    def infer_shape(self, ctx):
        ctx.check_dtype("X", FLOATS)
        ctx.check_axis("X", ctx.attr("axis"))
        ctx.same_as("X", "Out")

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 5)})
        yield Sample({"X": rand(rng, 2, 3, 4)}, {"axis": 1})
        # the compiled kernel's last axis named by its index, rows wider than SIMD lanes
        yield Sample({"X": rand(rng, 2, 3, 37) * 20}, {"axis": 2})


# Paddle's CPU softmax (1.8.5 and 3.3.1, float32 and float64; softmax_with_cross_entropy
# too) clips x - max(x) at -64 before exp: no probability is below exp(-64) = 1.6e-28, so
# cross_entropy of a softmax never divides by 0. log_softmax (2.0 and 3.3.1) clips the same
# shift, so no log-probability is below -64 - log(row sum)
SOFTMAX_SHIFT_FLOOR = -64.0


def clipped_shift(x, axis):
    """x - its max along axis, at least SOFTMAX_SHIFT_FLOOR (NaN stays NaN)."""
    return np.maximum(x - x.max(axis=axis, keepdims=True), SOFTMAX_SHIFT_FLOOR)


@register
class Softmax(_SoftmaxBase):
    type = "softmax"

    @staticmethod
    def forward(x, axis=-1):
        e = np.exp(clipped_shift(x, axis))
        return e / e.sum(axis=axis, keepdims=True)

    @staticmethod
    def backward(out, dout, axis=-1):
        return out * (dout - (dout * out).sum(axis=axis, keepdims=True))


@register
class LogSoftmax(_SoftmaxBase):
    type = "log_softmax"

    @staticmethod
    def forward(x, axis=-1):
        shifted = clipped_shift(x, axis)
        return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))

    @staticmethod
    def backward(out, dout, axis=-1):
        return dout - np.exp(out) * dout.sum(axis=axis, keepdims=True)
