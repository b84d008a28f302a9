"""Unary activations and math: Out = f(X), elementwise.

Each op's backward declares the least it needs: functions whose derivative is cheap in
terms of Out (sigmoid, tanh, exp, sqrt) read only Out, so X can be freed after the forward.
"""
import math

import numpy as np

from ._common import FLOATS, rand
from .registry import OpDef, Sample, register


class _Unary(OpDef):
    inputs = ("X",)
    outputs = ("Out",)
    grad_inputs = ("X", "Out@GRAD")
    domain = (-1.0, 1.0)   # sample range keeping away from poles and kinks

    def infer_shape(self, ctx):
        ctx.check_dtype("X", FLOATS)
        ctx.same_as("X", "Out")

    def samples(self, rng):
        lo, hi = self.domain
        x = rng.uniform(lo, hi, (3, 5))
        x[np.abs(x) < 0.05] = 0.3   # avoid kinks at 0
        yield Sample({"X": x}, getattr(self, "sample_attrs", {}))


class _FromOut(_Unary):
    grad_inputs = ("Out", "Out@GRAD")


def _unary(name, fwd, bwd=None, from_out=False, attrs=None, domain=None):
    """Register op `name` with forward fwd(x, **attrs) and backward bwd(x_or_out, dout, **attrs)."""
    base = _FromOut if from_out else _Unary
    body = {"type": name, "attrs": attrs or {}, "forward": staticmethod(fwd)}
    if bwd is not None:
        body["backward"] = staticmethod(bwd)
    if domain is not None:
        body["domain"] = domain
    cls = type("".join(p.title() for p in name.split("_")), (base,), body)
    register(cls)
    return cls


_unary("sigmoid", lambda x: (1 / (1 + np.exp(-x))).astype(x.dtype),
       lambda out, d: d * out * (1 - out), from_out=True, domain=(-3, 3))
_unary("tanh", lambda x: np.tanh(x), lambda out, d: d * (1 - out * out), from_out=True)
_unary("exp", lambda x: np.exp(x), lambda out, d: d * out, from_out=True)
_unary("sqrt", lambda x: np.sqrt(x), lambda out, d: d * 0.5 / out, from_out=True,
       domain=(0.2, 2.0))
_unary("rsqrt", lambda x: 1 / np.sqrt(x), lambda out, d: d * -0.5 * out ** 3, from_out=True,
       domain=(0.2, 2.0))
_unary("log", lambda x: np.log(x), lambda x, d: d / x, domain=(0.2, 2.0))
_unary("square", lambda x: x * x, lambda x, d: d * 2 * x)
_unary("abs", lambda x: np.abs(x), lambda x, d: d * np.sign(x))
_unary("reciprocal", lambda x: 1 / x, lambda out, d: -d * out * out, from_out=True,
       domain=(0.2, 2.0))
_unary("sin", lambda x: np.sin(x), lambda x, d: d * np.cos(x))
_unary("cos", lambda x: np.cos(x), lambda x, d: -d * np.sin(x))
_unary("softsign", lambda x: x / (1 + np.abs(x)), lambda x, d: d / (1 + np.abs(x)) ** 2)
_unary("sign", lambda x: np.sign(x))
_unary("floor", lambda x: np.floor(x))
_unary("ceil", lambda x: np.ceil(x))
_unary("round", lambda x: np.round(x))
_unary("relu6", lambda x, threshold=6.0: np.clip(x, 0, threshold).astype(x.dtype),
       lambda out, d, threshold=6.0: d * ((out > 0) & (out < threshold)), from_out=True,
       attrs={"threshold": 6.0}, domain=(-2, 8))
_unary("leaky_relu", lambda x, alpha=0.02: np.where(x > 0, x, x * x.dtype.type(alpha)),
       lambda x, d, alpha=0.02: d * np.where(x > 0, 1, alpha).astype(d.dtype),
       attrs={"alpha": 0.02})
_unary("elu", lambda x, alpha=1.0: np.where(x > 0, x, alpha * (np.exp(x) - 1)).astype(x.dtype),
       lambda x, d, alpha=1.0: d * np.where(x > 0, 1, alpha * np.exp(x)).astype(d.dtype),
       attrs={"alpha": 1.0})
_unary("softplus",
       lambda x, beta=1.0, threshold=20.0: np.where(
           x * beta > threshold, x, np.log1p(np.exp(np.minimum(x * beta, threshold))) / beta
       ).astype(x.dtype),
       lambda x, d, beta=1.0, threshold=20.0: d * np.where(
           x * beta > threshold, 1, 1 / (1 + np.exp(-x * beta))).astype(d.dtype),
       attrs={"beta": 1.0, "threshold": 20.0})
_unary("swish", lambda x, beta=1.0: (x / (1 + np.exp(-beta * x))).astype(x.dtype),
       lambda x, d, beta=1.0: d * (lambda s: s + beta * x * s * (1 - s))(
           1 / (1 + np.exp(-beta * x))),
       attrs={"beta": 1.0})
_unary("hard_sigmoid",
       lambda x, slope=0.2, offset=0.5: np.clip(x * slope + offset, 0, 1).astype(x.dtype),
       lambda out, d, slope=0.2, offset=0.5: d * slope * ((out > 0) & (out < 1)),
       from_out=True, attrs={"slope": 0.2, "offset": 0.5}, domain=(-2, 2))
_unary("hard_swish",
       lambda x, threshold=6.0, scale=6.0, offset=3.0:
           (x * np.clip(x + offset, 0, threshold) / scale).astype(x.dtype),
       lambda x, d, threshold=6.0, scale=6.0, offset=3.0: d * np.where(
           x + offset <= 0, 0, np.where(x + offset >= threshold, threshold / scale,
                                        (2 * x + offset) / scale)),
       attrs={"threshold": 6.0, "scale": 6.0, "offset": 3.0}, domain=(-2, 2))
_unary("pow", lambda x, factor=1.0: np.power(x, x.dtype.type(factor)),
       lambda x, d, factor=1.0: d * factor * np.power(x, factor - 1),
       attrs={"factor": 1.0}, domain=(0.2, 2.0))


def _gelu(x, approximate=False):
    if approximate:
        c = math.sqrt(2 / math.pi)
        return (0.5 * x * (1 + np.tanh(c * (x + 0.044715 * x ** 3)))).astype(x.dtype)
    from math import erf
    verf = np.vectorize(erf, otypes=[np.float64])
    return (0.5 * x * (1 + verf(x / math.sqrt(2)))).astype(x.dtype)


def _gelu_grad(x, d, approximate=False):
    if approximate:
        c = math.sqrt(2 / math.pi)
        t = np.tanh(c * (x + 0.044715 * x ** 3))
        return d * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * c * (1 + 3 * 0.044715 * x * x))
    from math import erf
    verf = np.vectorize(erf, otypes=[np.float64])
    cdf = 0.5 * (1 + verf(x / math.sqrt(2)))
    pdf = np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)
    return (d * (cdf + x * pdf)).astype(d.dtype)


_unary("gelu", _gelu, _gelu_grad, attrs={"approximate": False})


class _SoftmaxBase(OpDef):
    inputs = ("X",)
    outputs = ("Out",)
    attrs = {"axis": -1}
    grad_inputs = ("Out", "Out@GRAD")

    def infer_shape(self, ctx):
        ctx.check_dtype("X", FLOATS)
        ctx.same_as("X", "Out")

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 5)})
        yield Sample({"X": rand(rng, 2, 3, 4)}, {"axis": 1})


@register
class Softmax(_SoftmaxBase):
    type = "softmax"

    @staticmethod
    def forward(x, axis=-1):
        e = np.exp(x - x.max(axis=axis, keepdims=True))
        return e / e.sum(axis=axis, keepdims=True)

    @staticmethod
    def backward(out, dout, axis=-1):
        return out * (dout - (dout * out).sum(axis=axis, keepdims=True))


@register
class LogSoftmax(_SoftmaxBase):
    type = "log_softmax"

    @staticmethod
    def forward(x, axis=-1):
        shifted = x - x.max(axis=axis, keepdims=True)
        return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))

    @staticmethod
    def backward(out, dout, axis=-1):
        return dout - np.exp(out) * dout.sum(axis=axis, keepdims=True)
