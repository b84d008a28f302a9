"""Paddle 3's random fills and `_like` draws (3.3.1's names, all profiles): the in-place
`x.uniform_`, `normal_`, `exponential_`, `cauchy_`, `geometric_`, `log_normal_`,
`bernoulli_`, `random_` (also paddle.<name>), `paddle.log_normal`, `rand_like`,
`randn_like`, `randint_like`, `poisson`, `binomial`, `standard_gamma`.

3.3.1 composes most of them in Python over its uniform and gaussian draws, and so do these,
over refimpl's uniform_random / gaussian_random ops, whose draws are 3.3.1's bit for bit
(specs/ops/random.md): after the same paddle.seed the values are 3.3.1's where the
arithmetic after the draw rounds alike (checked in tests/test_tensor_random_fill.py).
exponential_, poisson, binomial and standard_gamma are ops of their own as in 3.3.1
(ops/distribution_draws.py), random_ 3.3.1's kernel over the global engine
(framework/random.random_fill)."""
import math

import numpy as np

from ..dygraph.tensor import Tensor
from ..framework import random
from ..framework.dtypes import FLOAT_DTYPES, convert_dtype, get_default_dtype
from ..framework.program import Variable
from . import creation, sampling
from ..framework.layer_helper import LayerHelper
from .common import append_op_out, check_variable, in_place
from .math import _paddle_unary, cast
from .tensor import shape as shape_of
from .tensor_fill import replacing

exp, log, log1p, tan = (_paddle_unary(op) for op in ("exp", "log", "log1p", "tan"))


def _float_shape(x, layer):
    """(x's shape: a list, or a shape tensor where a dim is unknown, x's dtype name); x
    must be a float tensor (3.3.1 has no integer kernels for these)."""
    check_variable(x, "x", layer)
    dtype = convert_dtype(x.dtype)
    if dtype not in FLOAT_DTYPES:
        raise TypeError("%s: x must be float16, float32 or float64, got %s" % (layer, dtype))
    shape = list(x.shape)
    return (shape_of(x) if any(d < 0 for d in shape) else shape), dtype


def uniform(x, min=0.0, max=1.0, seed=0, name=None):
    shape, dtype = _float_shape(x, "uniform_")
    return creation.uniform(shape, dtype, min, max, seed)


def normal(x, mean=0.0, std=1.0, name=None):
    shape, dtype = _float_shape(x, "normal_")
    return creation.gaussian(shape, mean, std, dtype)


def exponential(x, lam=1.0, name=None):
    """The exponential op: -log1p(-u) / lam, u uniform in [0, 1); x's gradient is zero."""
    _float_shape(x, "exponential_")
    return append_op_out("exponential", {"X": [x]}, {"lambda": float(lam)}, name)


def exponential_(x, lam=1.0, name=None):
    """In place: an eager x holds the draw; in a static program the op writes x itself,
    as 3.3.1's exponential_ does (fetching x gives the draw)."""
    if isinstance(x, Tensor):
        return _exponential_in_place(x, lam)
    _float_shape(x, "exponential_")
    LayerHelper("exponential").append_op(type="exponential", inputs={"X": [x]},
                                         outputs={"Out": [x]}, attrs={"lambda": float(lam)})
    return x


_exponential_in_place = in_place(exponential, "exponential_")


def poisson(x, name=None):
    """Poisson(x) elementwise (x's dtype; x's gradient is zero)."""
    _float_shape(x, "poisson")
    return append_op_out("poisson", {"X": [x]}, {}, name)


def standard_gamma(x, name=None):
    """Gamma(x, 1) elementwise, in x's dtype."""
    _float_shape(x, "standard_gamma")
    return append_op_out("standard_gamma", {"x": [x]}, {}, name, out_slot="out",
                         stop_gradient=True)


def binomial(count, prob, name=None):
    """Binomial(count, prob) elementwise, int64."""
    check_variable(count, "count", "binomial")
    _float_shape(prob, "binomial")
    return append_op_out("binomial", {"count": [count], "prob": [prob]}, {}, name,
                         out_dtype="int64", out_slot="out", stop_gradient=True)


def cauchy(x, loc=0, scale=1, name=None):
    """tan(pi (v - 1/2)) scale + loc of a standard normal draw v: 3.3.1's cauchy_ starts
    from normal_ (not a uniform draw), so its values are not Cauchy's; kept as 3.3.1's."""
    return tan((normal(x) - 0.5) * math.pi) * scale + loc


def geometric(x, probs, name=None):
    """log(u) / log1p(-probs), u uniform in [tiny, 1) (3.3.1's composition: not rounded
    up to integers; a number probs is first a tensor of the default dtype, as its
    to_tensor makes it)."""
    _, dtype = _float_shape(x, "geometric_")
    u = uniform(x, float(np.finfo(dtype).tiny), 1.0)
    if not isinstance(probs, Variable):
        probs = creation.full([], probs, get_default_dtype())
    return log(u) / log1p(cast(probs, dtype) * -1.0)


def log_normal_fill(x, mean=1.0, std=2.0, name=None):
    return exp(normal(x, mean, std))


def log_normal(mean=1.0, std=2.0, shape=None, name=None):
    """exp of paddle.normal(mean, std, shape)."""
    return exp(sampling.normal(mean, std, shape))


def bernoulli(x, p=0.5, name=None):
    """1 where a uniform draw u < p, 0 where u > p, in x's dtype (p a number or a tensor
    that broadcasts to x)."""
    u = uniform(x, 0.0, 1.0)
    return cast(u < p, x.dtype)


def _random_bounds(x, from_, to):
    """3.3.1's defaults: to None gives [0, 2^mantissa] for a float x (24 float32, 53
    float64, 11 float16), the dtype's max for an integer one; from_ alone is the upper
    bound."""
    if to is None:
        if from_:
            return 0, from_
        dtype = convert_dtype(x.dtype)
        mantissa = {"float16": 11, "float32": 24, "float64": 53}.get(dtype)
        return 0, (2 ** mantissa if mantissa else int(np.iinfo(dtype).max))
    return from_, to


def random_(x, from_=0, to=None, *, generator=None):
    """x holds integers in [from_, to) of the global generator (dygraph-only, as 3.3.1's
    random_ kernel)."""
    if not isinstance(x, Tensor):
        raise TypeError("random_ is dygraph-only: x must be an eager Tensor, got %s"
                        % type(x).__name__)
    low, high = _random_bounds(x, from_, to)
    if low >= high:
        raise ValueError("random_ expects 'from' to be less than 'to', but got from=%s >= "
                         "to=%s" % (low, high))
    x._refuse_leaf_change()
    return x._replace_value(random.random_fill(low, high, x.shape, x._array().dtype))


def rand_like(input, name=None, *, dtype=None, device=None, requires_grad=False):
    """U(0, 1) of input's shape, in dtype (input's by default)."""
    return _like(input, dtype, requires_grad, "rand_like", lambda x: uniform(x))


def randn_like(x, dtype=None, name=None, *, device=None, requires_grad=False):
    """N(0, 1) of x's shape, in dtype (x's by default)."""
    return _like(x, dtype, requires_grad, "randn_like", lambda like: normal(like))


def _like(x, dtype, requires_grad, layer, draw):
    check_variable(x, "x", layer)
    like = x if dtype is None else creation.empty_like(x, dtype)
    out = draw(like)
    out.stop_gradient = not requires_grad
    return out


def randint_like(x, low=0, high=None, dtype=None, name=None):
    """randint(low, high) of x's shape, in dtype (x's by default; high None: [0, low))."""
    check_variable(x, "x", "randint_like")
    if high is None:
        low, high = 0, low
    if low >= high:
        raise ValueError("randint_like's low must less then high, but received low = %s, "
                         "high = %s" % (low, high))
    shape = list(x.shape)
    drawn = creation.randint(low, high, shape_of(x) if any(d < 0 for d in shape) else shape)
    return cast(drawn, dtype or x.dtype)


_IN_PLACE = {"uniform_": uniform, "normal_": normal, "cauchy_": cauchy, "geometric_": geometric, "log_normal_": log_normal_fill,
             "bernoulli_": bernoulli}
_FILLS = dict({name: in_place(replacing(fill), name) for name, fill in _IN_PLACE.items()},
              random_=random_, exponential_=exponential_)

EXPORTS = {
    "paddle": dict(_FILLS, log_normal=log_normal, rand_like=rand_like, randn_like=randn_like,
                   randint_like=randint_like, poisson=poisson, binomial=binomial,
                   standard_gamma=standard_gamma),
    "Tensor": _FILLS,
}
