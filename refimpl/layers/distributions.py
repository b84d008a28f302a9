"""Paddle 1.8 `fluid.layers` probability distributions: Uniform, Normal, Categorical,
MultivariateNormalDiag. Each method appends ordinary ops (uniform_random, gaussian_random,
elementwise, log, exp, reduce) to the current program and returns Variables; see
specs/distributions.md for the formulas and the divergences from Paddle."""
import math

import numpy as np

from ..framework.program import Variable
from . import creation
from .math import _fluid_reduce, _paddle_unary
from .manipulation import diag

exp, log = _paddle_unary("exp"), _paddle_unary("log")
reduce_max, reduce_sum = _fluid_reduce("reduce_max"), _fluid_reduce("reduce_sum")
reduce_prod = _fluid_reduce("reduce_prod")

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


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


def _known_shape(owner, var):
    shape = list(var.shape)
    if any(d is None or d < 0 for d in shape):
        raise ValueError("%s.sample: the batch shape %s has an unknown (-1) dimension; "
                         "sample needs a fully known parameter shape" % (owner, shape))
    return shape


def _sample_shape(owner, shape):
    if not isinstance(shape, (list, tuple)) or not all(isinstance(d, int) and d > 0
                                                      for d in shape):
        raise TypeError("%s.sample: shape must be a list of positive ints, got %r"
                        % (owner, shape))
    return list(shape)


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
        self.low, self.high = _as_variables("Uniform", low=low, high=high)

    def sample(self, shape, seed=0):
        """Draws of shape `shape + batch_shape`."""
        width = self.high - self.low
        out_shape = _sample_shape("Uniform", shape) + _known_shape("Uniform", width)
        unit = creation.fluid_uniform_random(out_shape, self.low.dtype, 0.0, 1.0, seed)
        return unit * width + self.low

    def log_prob(self, value):
        """log(1 / (high - low)) inside [low, high), -inf outside."""
        inside = ((self.low < value).astype(value.dtype)
                  * (value < self.high).astype(value.dtype))
        return log(inside) - log(self.high - self.low)

    def entropy(self):
        return log(self.high - self.low)


class Normal(Distribution):
    """N(loc, scale**2); `scale` is the standard deviation."""

    def __init__(self, loc, scale):
        self.loc, self.scale = _as_variables("Normal", loc=loc, scale=scale)

    def sample(self, shape, seed=0):
        """Draws of shape `shape + batch_shape`."""
        zeros = self.loc * 0.0 + self.scale * 0.0   # the broadcast batch shape
        out_shape = _sample_shape("Normal", shape) + _known_shape("Normal", zeros)
        unit = creation.fluid_gaussian_random(out_shape, 0.0, 1.0, seed, self.loc.dtype)
        return unit * self.scale + self.loc

    def entropy(self):
        """0.5 + log(sqrt(2 pi)) + log(scale), broadcast over loc's shape too."""
        return log(self.scale) + (self.loc * 0.0 + (0.5 + _LOG_SQRT_2PI))

    def log_prob(self, value):
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
