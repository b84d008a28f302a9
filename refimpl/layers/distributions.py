"""Paddle 1.8 `fluid.layers` probability distributions: Uniform, Normal, Categorical,
MultivariateNormalDiag. Each method appends ordinary ops (uniform_random, gaussian_random,
elementwise, log, exp, reduce) to the current program and returns Variables; see
specs/distributions.md for the formulas and the divergences from Paddle."""
import math

import numpy as np

from ..framework.dtypes import convert_dtype
from ..framework.program import Variable
from . import creation
from .math import _fluid_reduce, _paddle_unary
from .manipulation import diag
from .tensor import concat, fluid_reshape, shape as shape_of

exp, log = _paddle_unary("exp"), _paddle_unary("log")
reduce_max, reduce_sum = _fluid_reduce("reduce_max"), _fluid_reduce("reduce_sum")
reduce_prod = _fluid_reduce("reduce_prod")

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


# the parameter types Paddle 1.8 takes besides Variables (its check_type: an int is a
# TypeError); Categorical and MultivariateNormalDiag take no float
_FLOAT_OR_ARRAY = (float, list, np.ndarray)
_ARRAY = (list, np.ndarray)


def _check_types(owner, types, **args):
    for arg, value in args.items():
        if not isinstance(value, types + (Variable,)):
            raise TypeError("%s: %s must be a %s or Variable, got %s %r"
                            % (owner, arg, ", ".join(t.__name__ for t in types),
                               type(value).__name__, value))


def _check_value(owner, value):
    """log_prob's value: a float32 / float64 Variable (1.8's check_variable_and_dtype)."""
    if not isinstance(value, Variable):
        raise TypeError("%s.log_prob: value must be a Variable, got %s"
                        % (owner, type(value).__name__))
    if convert_dtype(value.dtype) not in ("float32", "float64"):
        raise TypeError("%s.log_prob: value must be float32 or float64, got %s"
                        % (owner, value.dtype))


def _as_variables(owner, **args):
    """Paddle 1.8's argument rule: all Variables, or all numbers / lists / numpy arrays
    (turned into float32 constants). Returns the Variables in argument order."""
    given = [isinstance(v, Variable) for v in args.values()]
    if all(given):
        return list(args.values())
    if any(given):
        raise ValueError("%s: if one argument is a Variable, all must be; got %s"
                         % (owner, {k: type(v).__name__ for k, v in args.items()}))
    out = []
    for arg, value in args.items():
        array = np.asarray(value, dtype=np.float32)
        if array.ndim == 0:
            array = array.reshape(1)
        if not np.isfinite(array).all():
            raise ValueError("%s: %s must be finite, got %s" % (owner, arg, value))
        out.append(creation.assign(array))
    return out


def _unit_draws(owner, draw, shape, seed, batch):
    """draw(out_shape, seed): draws of shape `shape + batch.shape`; a batch shape with an
    unknown dim (parameters fed with their batch dim) is read when the program runs."""
    if not isinstance(shape, (list, tuple)) or not all(isinstance(d, int) and d > 0
                                                      for d in shape):
        raise TypeError("%s.sample: shape must be a list of positive ints, got %r"
                        % (owner, shape))
    if not isinstance(seed, int):
        raise TypeError("%s.sample: seed must be an int, got %s %r"
                        % (owner, type(seed).__name__, seed))
    batch_shape = list(batch.shape)
    if all(d is not None and d >= 0 for d in batch_shape):
        return draw(list(shape) + batch_shape, seed)
    return draw(concat([creation.assign(np.array(shape, np.int32)), shape_of(batch)]), seed)


def _check_same(owner, other, cls):
    if not isinstance(other, cls):
        raise TypeError("%s.kl_divergence: other must be a %s, got %s"
                        % (owner, cls.__name__, type(other).__name__))


class Distribution:
    """Base class: sample, entropy, log_prob and kl_divergence as Paddle 1.8 names them."""

    def sample(self, shape, seed=0):
        raise NotImplementedError("%s has no sample() in Paddle 1.8" % type(self).__name__)

    def entropy(self):
        raise NotImplementedError("%s has no entropy() in Paddle 1.8" % type(self).__name__)

    def log_prob(self, value):
        raise NotImplementedError("%s has no log_prob() in Paddle 1.8" % type(self).__name__)

    def kl_divergence(self, other):
        raise NotImplementedError("%s has no kl_divergence() in Paddle 1.8"
                                  % type(self).__name__)


class Uniform(Distribution):
    """U(low, high): density 1 / (high - low) on [low, high). Batch shape: low + high."""

    def __init__(self, low, high):
        _check_types("Uniform", _FLOAT_OR_ARRAY, low=low, high=high)
        self._floats = isinstance(low, float) and isinstance(high, float)
        self.low, self.high = _as_variables("Uniform", low=low, high=high)

    def sample(self, shape, seed=0):
        """Draws of shape `shape + batch_shape` (`shape` for float parameters, as 1.8)."""
        width = self.high - self.low
        unit = _unit_draws("Uniform", lambda out_shape, seed: creation.fluid_uniform_random(
            out_shape, self.low.dtype, 0.0, 1.0, seed), shape, seed, width)
        out = unit * width + self.low
        return fluid_reshape(out, list(shape)) if self._floats else out

    def log_prob(self, value):
        """log(1 / (high - low)) inside [low, high), -inf outside."""
        _check_value("Uniform", value)
        inside = ((self.low < value).astype(value.dtype)
                  * (value < self.high).astype(value.dtype))
        return log(inside) - log(self.high - self.low)

    def entropy(self):
        return log(self.high - self.low)


class Normal(Distribution):
    """N(loc, scale**2); `scale` is the standard deviation."""

    def __init__(self, loc, scale):
        _check_types("Normal", _FLOAT_OR_ARRAY, loc=loc, scale=scale)
        self._floats = isinstance(loc, float) and isinstance(scale, float)
        self.loc, self.scale = _as_variables("Normal", loc=loc, scale=scale)

    def sample(self, shape, seed=0):
        """Draws of shape `shape + batch_shape` (`shape` for float parameters, as 1.8)."""
        zeros = self.loc * 0.0 + self.scale * 0.0   # the broadcast batch shape
        unit = _unit_draws("Normal", lambda out_shape, seed: creation.fluid_gaussian_random(
            out_shape, 0.0, 1.0, seed, self.loc.dtype), shape, seed, zeros)
        out = unit * self.scale + self.loc
        return fluid_reshape(out, list(shape)) if self._floats else out

    def entropy(self):
        """0.5 + log(sqrt(2 pi)) + log(scale), broadcast over loc's shape too."""
        return log(self.scale) + (self.loc * 0.0 + (0.5 + _LOG_SQRT_2PI))

    def log_prob(self, value):
        _check_value("Normal", value)
        var = self.scale * self.scale
        diff = value - self.loc
        return -(diff * diff) / (var * 2.0) - log(self.scale) - _LOG_SQRT_2PI

    def kl_divergence(self, other):
        """KL(self || other) = 0.5 (r + t - 1 - log r), r = (s/s')^2, t = ((m - m')/s')^2."""
        _check_same("Normal", other, Normal)
        ratio = self.scale / other.scale
        ratio = ratio * ratio
        shift = (self.loc - other.loc) / other.scale
        return (ratio + shift * shift - 1.0 - log(ratio)) * 0.5


def _normalized(logits):
    """(probabilities, log partition) along the last axis, shifted by the max for safety."""
    shifted = logits - reduce_max(logits, dim=-1, keep_dim=True)
    expd = exp(shifted)
    total = reduce_sum(expd, dim=-1, keep_dim=True)
    return expd / total, shifted - log(total)


class Categorical(Distribution):
    """Categories with unnormalized log-probabilities `logits` along the last axis."""

    def __init__(self, logits):
        _check_types("Categorical", _ARRAY, logits=logits)
        (self.logits,) = _as_variables("Categorical", logits=logits)

    def entropy(self):
        """-sum p log p over the last axis (kept as size 1)."""
        prob, log_prob = _normalized(self.logits)
        return -reduce_sum(prob * log_prob, dim=-1, keep_dim=True)

    def kl_divergence(self, other):
        """sum p (log p - log q) over the last axis (kept as size 1)."""
        _check_same("Categorical", other, Categorical)
        prob, log_prob = _normalized(self.logits)
        _, other_log_prob = _normalized(other.logits)
        return reduce_sum(prob * (log_prob - other_log_prob), dim=-1, keep_dim=True)


class MultivariateNormalDiag(Distribution):
    """N(loc, scale) in k dimensions, `scale` a k x k diagonal *covariance* matrix (as in
    Paddle 1.8, whose formulas use scale as the covariance, not its square root)."""

    def __init__(self, loc, scale):
        _check_types("MultivariateNormalDiag", _ARRAY, loc=loc, scale=scale)
        self.loc, self.scale = _as_variables("MultivariateNormalDiag", loc=loc, scale=scale)
        k = self.scale.shape[0] if len(self.scale.shape) == 2 else None
        if k is None or k < 1 or list(self.scale.shape) != [k, k]:
            raise ValueError("MultivariateNormalDiag: scale must be a k x k matrix, got shape "
                             "%s" % list(self.scale.shape))
        if list(self.loc.shape) != [k]:
            raise ValueError("MultivariateNormalDiag: loc must have shape [%d] to match scale, "
                             "got %s" % (k, list(self.loc.shape)))
        self.k = k

    def _diagonal(self, matrix):
        """The diagonal as a [k] vector (off-diagonal entries are zero by contract)."""
        eye = diag(creation.fluid_ones([self.k], matrix.dtype))
        return reduce_sum(matrix * eye, dim=1)

    def entropy(self):
        """0.5 (k (1 + log 2 pi) + log det scale), shape [1]."""
        log_det = log(reduce_prod(self._diagonal(self.scale), keep_dim=True))
        return (log_det + self.k * (1.0 + math.log(2 * math.pi))) * 0.5

    def kl_divergence(self, other):
        """0.5 (tr(S'^-1 S) + (m' - m)^T S'^-1 (m' - m) - k + log det S' - log det S)."""
        _check_same("MultivariateNormalDiag", other, MultivariateNormalDiag)
        var, other_var = self._diagonal(self.scale), self._diagonal(other.scale)
        shift = other.loc - self.loc
        terms = var / other_var + shift * shift / other_var + log(other_var) - log(var)
        return (reduce_sum(terms, keep_dim=True) - float(self.k)) * 0.5


EXPORTS = {
    "fluid.layers": {"Uniform": Uniform, "Normal": Normal, "Categorical": Categorical,
                     "MultivariateNormalDiag": MultivariateNormalDiag},
}
