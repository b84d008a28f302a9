"""Paddle 3's special functions and element-wise math of one input, each one kernel in
Paddle 3.3.1: Out = f(X) (acosh, asinh, atanh, expm1, erfinv, digamma, lgamma, trunc, logit)
and out = f(x) (gammaln, i0, i0e, i1, i1e, polygamma: 3.3.1's lower-case slots).

The gamma, Bessel and inverse-error functions come from scipy.special (loaded when such an
op first runs; refimpl's other ops need numpy only). Gradients are 3.3.1's kernels':
d lgamma = digamma, d digamma = polygamma(1), d i0 = i1, ...
"""
import math

import numpy as np

from ._common import COMPLEX, conj
from .registry import OpDef, Sample, register, share_lod

REALS = ("float32", "float64")


def scipy_special():
    """scipy.special, or an ImportError naming what needs it."""
    try:
        import scipy.special
    except ImportError as e:
        raise ImportError("refimpl's special-function ops (digamma, lgamma, erfinv, i0, "
                          "polygamma, gammaincc, ...) need scipy (pip install scipy)") from e
    return scipy.special


def _typed(like, a):
    return np.asarray(a).astype(like.dtype, copy=False)


class _Special(OpDef):
    """f of one input, element-wise; the slot names and the gradient's inputs come from
    `_special`. Samples: a (3, 5) array drawn from `domain`."""
    attrs = {}
    domain = (0.2, 3.0)
    dtypes = REALS
    sample_attrs = {}

    def infer_shape(self, ctx):
        ctx.check_dtype(self.inputs[0], self.dtypes)
        ctx.same_as(self.inputs[0], self.outputs[0])

    def samples(self, rng):
        x = rng.uniform(*self.domain, (3, 5))
        yield Sample({self.inputs[0]: x}, dict(self.sample_attrs))


def _special(name, fwd, bwd, slots=("X", "Out"), from_out=False, **body):
    """Register op `name`: fwd(x, **attrs), and bwd(x, dout, **attrs) -- bwd(out, dout,
    **attrs) when `from_out`. `body`: class attributes (attrs, domain, dtypes, ...)."""
    x, out = slots
    body.update(type=name, inputs=(x,), outputs=(out,), lod_outputs={out: share_lod(x)},
                grad_inputs=(out if from_out else x, out + "@GRAD"),
                forward=staticmethod(lambda a, **attrs: _typed(a, fwd(a, **attrs))),
                backward=staticmethod(lambda a, d, **attrs: _typed(d, bwd(a, d, **attrs))))
    register(type("".join(p.title() for p in name.split("_")), (_Special,), body))


def _zero_grad(x, d):
    return np.zeros_like(d)


def _sp(name):
    """scipy.special.<name>, looked up when an op runs."""
    return lambda *args: getattr(scipy_special(), name)(*args)


# complex inputs too (3.3.1's kernels): the gradient is d times the derivative's conjugate
_special("acosh", np.arccosh, lambda x, d: d / conj(np.sqrt(x * x - 1)), domain=(1.2, 3.0),
         dtypes=REALS + COMPLEX)
_special("asinh", np.arcsinh, lambda x, d: d / conj(np.sqrt(x * x + 1)), domain=(-2.0, 2.0),
         dtypes=REALS + COMPLEX)
_special("atanh", np.arctanh, lambda x, d: d / conj(1 - x * x), domain=(-0.9, 0.9),
         dtypes=REALS + COMPLEX)
_special("expm1", np.expm1, lambda out, d: d * conj(out + 1), from_out=True,
         domain=(-2.0, 2.0), dtypes=("float16",) + REALS + COMPLEX)
def _erfinv(x):
    """The inverse error function; +-inf beyond [-1, 1] (3.3.1's kernel; scipy: NaN)."""
    return np.where(np.abs(x) > 1, np.copysign(np.inf, x), scipy_special().erfinv(x))


_special("erfinv", _erfinv,
         lambda out, d: d * (math.sqrt(math.pi) / 2) * np.exp(out * out), from_out=True,
         domain=(-0.9, 0.9))
_special("digamma", _sp("psi"), lambda x, d: d * scipy_special().polygamma(1, x))
_special("lgamma", _sp("gammaln"), lambda x, d: d * scipy_special().psi(x))
_special("gammaln", _sp("gammaln"), lambda x, d: d * scipy_special().psi(x), slots=("x", "out"))
_special("i0", _sp("i0"), lambda x, d: d * scipy_special().i1(x), slots=("x", "out"),
         domain=(-3.0, 3.0))


def _i0e_grad(x, d):
    """d i0e = i1e(x) - sign(x) i0e(x), the sign of 0 taken as 1 (3.3.1's kernel: -1 at 0)."""
    s = scipy_special()
    return d * (s.i1e(x) - np.where(x < 0, -1, 1) * s.i0e(x))


_special("i0e", _sp("i0e"), _i0e_grad, slots=("x", "out"), domain=(0.2, 3.0))


def _i1_grad(x, d):
    """d i1 = i0(x) - i1(x) / x, 1/2 at 0 (3.3.1's kernel)."""
    s = scipy_special()
    nonzero = np.where(x == 0, 1, x)
    return d * np.where(x == 0, 0.5, s.i0(x) - s.i1(x) / nonzero)


def _i1e_grad(x, d):
    """d i1e = i0e(x) - i1e(x) (sign(x) + 1 / x), 1/2 at 0 (3.3.1's kernel)."""
    s = scipy_special()
    nonzero = np.where(x == 0, 1, x)
    return d * np.where(x == 0, 0.5, s.i0e(x) - s.i1e(x) * (np.sign(x) + 1 / nonzero))


_special("i1", _sp("i1"), _i1_grad, slots=("x", "out"), domain=(-3.0, 3.0))
_special("i1e", _sp("i1e"), _i1e_grad, slots=("x", "out"), domain=(0.2, 3.0))
_special("trunc", np.trunc, _zero_grad, domain=(-3.0, 3.0),
         dtypes=REALS + ("int32", "int64"))
_special("polygamma", lambda x, n=0: scipy_special().polygamma(n, x),
         lambda x, d, n=0: d * scipy_special().polygamma(n + 1, x), slots=("x", "out"),
         attrs={"n": 0}, sample_attrs={"n": 1})


def _logit_bounds(eps):
    """(lo, hi) x is clipped to: [eps, 1 - eps]; eps = 0 clips nothing (3.3.1's kernel)."""
    return (eps, 1 - eps) if eps > 0 else (-np.inf, np.inf)


def _logit(x, eps=0.0):
    lo, hi = _logit_bounds(eps)
    x = np.clip(x, lo, hi)
    return np.log(x / (1 - x))


def _logit_grad(x, d, eps=0.0):
    """d / (x (1 - x)) inside [eps, 1 - eps], 0 outside it; with eps = 0, NaN outside
    [0, 1] (3.3.1's kernel)."""
    outside = (x < eps) | (x > 1 - eps)
    return np.where(outside, np.nan if eps <= 0 else 0, d / (x * (1 - x)))


_special("logit", _logit, _logit_grad, attrs={"eps": 0.0}, domain=(0.05, 0.95),
         sample_attrs={"eps": 1e-3})
