"""Paddle 3's special functions (paddle.acosh, digamma, lgamma, gammaln, polygamma, i0, ...,
gammainc / gammaincc, multigammaln, logit, erfinv, sinc), as Paddle 3.3.1 runs them: one op
each where 3.3.1 has a kernel (refimpl/ops/special.py), composed of other layers where it
composes them (gammainc, multigammaln, sinc). Integer inputs of the kernels that take them
in 3.3.1 are cast to float32 first (its eager autocast). specs/ops/special_functions.md."""
import math

import numpy as np

from ..framework import mode
from . import creation, math as math_layers, tensor
from .common import append_op_out, check_dtype, in_place, in_place_broadcast
from .creation import written
from .elementwise_math import as_floating, check_operand, exact_scalar_like

_P = math_layers.EXPORTS["paddle"]


def _kernel(op_type, slots=("X", "Out"), autocast=True, takes_out=False):
    """paddle.<op_type>(x): the op on x (cast to float32 first when `autocast`);
    `takes_out`: 3.3.1's keyword `out`, a tensor the result is written into."""
    def run(x, name=None):
        check_operand(x, "x", op_type)
        return append_op_out(op_type, {slots[0]: [as_floating(x) if autocast else x]}, None,
                             name, out_slot=slots[1])

    if takes_out:
        def layer(x, name=None, *, out=None):
            return written(run(x, name), out)
    else:
        layer = run
    layer.__name__ = op_type
    layer.__doc__ = "paddle.%s: element-wise, one %s op (Paddle 3)." % (op_type, op_type)
    return layer


def _check_order(n, api):
    """polygamma's n: an int >= 0 (3.3.1's TypeError / ValueError)."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError("%s: n must be an int, got %s %r" % (api, type(n).__name__, n))
    if n < 0:
        raise ValueError("%s: n must be >= 0, got %d" % (api, n))


def polygamma(x, n, name=None):
    """The n-th derivative of digamma (n = 0: digamma itself, 3.3.1's digamma op)."""
    _check_order(n, "polygamma")
    if n == 0:
        return digamma(x, name)
    check_operand(x, "x", "polygamma")
    return append_op_out("polygamma", {"x": [as_floating(x)]}, {"n": int(n)}, name,
                         out_slot="out")


def logit(x, eps=None, name=None):
    """log(x / (1 - x)), x clipped to [eps, 1 - eps] when eps > 0."""
    check_operand(x, "x", "logit")
    return append_op_out("logit", {"X": [as_floating(x)]},
                         {"eps": 0.0 if eps is None else float(eps)}, name)


def _check_nonnegative(v, arg, api):
    """3.3.1's gammainc / gammaincc refuse a negative operand (checked in dynamic mode,
    where the values are known)."""
    if mode.dynamic and (v.numpy() < 0).any():
        raise ValueError("%s: the input argument %s must be greater than or equal to 0"
                         % (api, arg))


def _gammaincc(x, y, name, api):
    for arg, v in (("x", x), ("y", y)):
        check_operand(v, arg, api)
        check_dtype(v, arg, api, ("float32", "float64"))
        _check_nonnegative(v, arg, api)
    return append_op_out("gammaincc", {"x": [x], "y": [y]}, None, name, out_slot="out")


def gammaincc(x, y, name=None):
    """The regularized upper incomplete gamma function Q(x, y)."""
    return _gammaincc(x, y, name, "gammaincc")


def gammainc(x, y, name=None):
    """The regularized lower incomplete gamma function P(x, y) = 1 - Q(x, y)."""
    return math_layers.scale(_gammaincc(x, y, None, "gammainc"), -1.0, 1.0, name=name)


def multigammaln(x, p, name=None):
    """The log of the multivariate gamma function of dimension p: p (p - 1) / 4 log(pi)
    plus the sum over j < p of lgamma(x - j / 2)."""
    check_dtype(x, "x", "multigammaln", ("float16", "float32", "float64"))
    if p < 1:
        raise AssertionError("multigammaln: p must be >= 1, got %s" % p)
    halves = math_layers.cast(creation.assign(np.arange(0, -p, -1) / 2), x.dtype)
    terms = lgamma(_P["add"](tensor.unsqueeze(x, -1), halves))
    share = exact_scalar_like(x, (p - 1) / 4 * math.log(math.pi))   # (the p terms' own)
    return math_layers.paddle_sum(_P["add"](terms, share), axis=-1, name=name)


def sinc(x, name=None):
    """sin(pi x) / (pi x), 1 at 0 (its gradient there 0)."""
    check_dtype(x, "x", "sinc", ("float16", "float32", "float64"))
    at_zero = _P["equal"](x, creation.zeros_like(x))
    ones = creation.ones_like(x)
    pi_x = tensor.where(at_zero, ones, _P["multiply"](x, exact_scalar_like(x, math.pi)))
    return tensor.where(at_zero, ones, _P["divide"](_P["sin"](pi_x), pi_x), name=name)


acosh = _kernel("acosh", takes_out=True)
asinh = _kernel("asinh")
atanh = _kernel("atanh", takes_out=True)
expm1 = _kernel("expm1", takes_out=True)
erfinv = _kernel("erfinv")
digamma = _kernel("digamma")
lgamma = _kernel("lgamma")
gammaln = _kernel("gammaln", ("x", "out"), autocast=False)
i0 = _kernel("i0", ("x", "out"))
i0e = _kernel("i0e", ("x", "out"))
i1 = _kernel("i1", ("x", "out"))
i1e = _kernel("i1e", ("x", "out"))

_FUNCTIONS = {
    "acosh": acosh, "asinh": asinh, "atanh": atanh, "expm1": expm1, "erfinv": erfinv,
    "digamma": digamma, "lgamma": lgamma, "gammaln": gammaln, "i0": i0, "i0e": i0e,
    "i1": i1, "i1e": i1e, "polygamma": polygamma, "logit": logit, "gammainc": gammainc,
    "gammaincc": gammaincc, "multigammaln": multigammaln, "sinc": sinc,
}
# the in-place twins 3.3.1 has: paddle.<name>_ and Tensor.<name>_ (3.3.1 has paddle.expm1_
# but no Tensor.expm1_, Tensor.erfinv_ but no paddle.erfinv_)
_IN_PLACE = dict(
    {name + "_": in_place(_FUNCTIONS[name], name + "_") for name in (
        "acosh", "asinh", "atanh", "expm1", "erfinv", "digamma", "lgamma", "gammaln", "i0",
        "polygamma", "logit", "multigammaln", "sinc")},
    **{name + "_": in_place_broadcast(_FUNCTIONS[name], name + "_")
       for name in ("gammainc", "gammaincc")})

EXPORTS = {
    "paddle": dict(_FUNCTIONS, **{n: f for n, f in _IN_PLACE.items() if n != "erfinv_"}),
    "Tensor": dict(_FUNCTIONS, **{n: f for n, f in _IN_PLACE.items() if n != "expm1_"}),
}
