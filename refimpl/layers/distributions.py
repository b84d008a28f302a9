"""Paddle 1.8 `fluid.layers` probability distributions: Uniform, Normal, Categorical,
MultivariateNormalDiag. Each method appends ordinary ops (uniform_random, gaussian_random,
elementwise, log, exp, reduce) to the current program and returns Variables; see
specs/distributions.md for the formulas and the divergences from Paddle."""
import math

import numpy as np

from ..framework.dtypes import convert_dtype
from ..framework.program import Variable
from . import creation
from .common import binary
from .math import _fluid_reduce, _paddle_unary, fluid_matmul, scale as _scale
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


# -- the formulas, shared with paddle.distribution (Paddle 2.0), whose methods name their
# last op's output `name` (e.g. "Normal_log_prob.tmp_0")
def uniform_sample(owner, low, high, shape, seed, name=None):
    """low + U[0, 1) (high - low), of shape `shape + batch_shape`."""
    width = high - low
    unit = _unit_draws(owner, lambda out_shape, seed: creation.fluid_uniform_random(
        out_shape, low.dtype, 0.0, 1.0, seed), shape, seed, width)
    return binary("elementwise_add", unit * width, low, name=name)


def _inside(low, high, value):
    """1 where low < value < high, else 0, in value's dtype."""
    return (low < value).astype(value.dtype) * (value < high).astype(value.dtype)


def uniform_log_prob(low, high, value, name=None):
    """log(1 / (high - low)) inside (low, high), -inf outside."""
    return binary("elementwise_sub", log(_inside(low, high, value)), log(high - low),
                  name=name)


def uniform_probs(low, high, value, name=None):
    """1 / (high - low) inside (low, high), 0 outside."""
    return binary("elementwise_div", _inside(low, high, value), high - low, name=name)


def uniform_entropy(low, high, name=None):
    return log(high - low, name=name)


def normal_sample(owner, loc, scale, shape, seed, name=None):
    """loc + N(0, 1) scale, of shape `shape + batch_shape`."""
    zeros = loc * 0.0 + scale * 0.0   # the broadcast batch shape
    unit = _unit_draws(owner, lambda out_shape, seed: creation.fluid_gaussian_random(
        out_shape, 0.0, 1.0, seed, loc.dtype), shape, seed, zeros)
    return binary("elementwise_add", unit * scale, loc, name=name)


def normal_entropy(loc, scale, name=None):
    """0.5 + log(sqrt(2 pi)) + log(scale), broadcast over loc's shape too."""
    return binary("elementwise_add", loc * 0.0 + scale * 0.0 + (0.5 + _LOG_SQRT_2PI),
                  log(scale), name=name)


def _normal_exponent(loc, scale, value):
    """-(value - loc)^2 / (2 scale^2)."""
    diff = value - loc
    return -(diff * diff) / (scale * scale * 2.0)


def normal_log_prob(loc, scale, value, name=None):
    # summed in 1.8's order (the float32 rounding its tests compare at 1e-6)
    return _scale(_normal_exponent(loc, scale, value) - log(scale), bias=-_LOG_SQRT_2PI,
                  name=name)


def normal_probs(loc, scale, value, name=None):
    return binary("elementwise_div", exp(_normal_exponent(loc, scale, value)),
                  scale * math.sqrt(2 * math.pi), name=name)


def normal_kl_divergence(loc, scale, other_loc, other_scale, name=None):
    """KL(N(loc, scale) || N(other_loc, other_scale)) = 0.5 (r + t - 1 - log r),
    r = (scale / other_scale)^2, t = ((loc - other_loc) / other_scale)^2."""
    ratio = scale / other_scale
    ratio = ratio * ratio
    shift = (loc - other_loc) / other_scale
    return _scale(ratio + shift * shift - 1.0 - log(ratio), 0.5, name=name)


def _normalized(logits):
    """(probabilities, log probabilities) along the last axis, shifted by the max for
    safety."""
    shifted = logits - reduce_max(logits, dim=-1, keep_dim=True)
    expd = exp(shifted)
    total = reduce_sum(expd, dim=-1, keep_dim=True)
    return expd / total, shifted - log(total)


def categorical_entropy(logits, name=None):
    """-sum p log p of softmax(logits) over the last axis (kept as size 1)."""
    prob, log_prob = _normalized(logits)
    return _scale(reduce_sum(prob * log_prob, dim=-1, keep_dim=True), -1.0, name=name)


def categorical_kl_divergence(logits, other_logits, name=None):
    """sum p (log p - log q) of the two softmaxes over the last axis (kept as size 1)."""
    prob, log_prob = _normalized(logits)
    _, other_log_prob = _normalized(other_logits)
    return reduce_sum(prob * (log_prob - other_log_prob), dim=-1, keep_dim=True, name=name)


class Uniform(Distribution):
    """U(low, high): density 1 / (high - low) on [low, high). Batch shape: low + high."""

    def __init__(self, low, high):
        _check_types("Uniform", _FLOAT_OR_ARRAY, low=low, high=high)
        self._floats = isinstance(low, float) and isinstance(high, float)
        self.low, self.high = _as_variables("Uniform", low=low, high=high)

    def sample(self, shape, seed=0):
        """Draws of shape `shape + batch_shape` (`shape` for float parameters, as 1.8)."""
        out = uniform_sample("Uniform", self.low, self.high, shape, seed)
        return fluid_reshape(out, list(shape)) if self._floats else out

    def log_prob(self, value):
        _check_value("Uniform", value)
        return uniform_log_prob(self.low, self.high, value)

    def entropy(self):
        return uniform_entropy(self.low, self.high)


class Normal(Distribution):
    """N(loc, scale**2); `scale` is the standard deviation."""

    def __init__(self, loc, scale):
        _check_types("Normal", _FLOAT_OR_ARRAY, loc=loc, scale=scale)
        self._floats = isinstance(loc, float) and isinstance(scale, float)
        self.loc, self.scale = _as_variables("Normal", loc=loc, scale=scale)

    def sample(self, shape, seed=0):
        """Draws of shape `shape + batch_shape` (`shape` for float parameters, as 1.8)."""
        out = normal_sample("Normal", self.loc, self.scale, shape, seed)
        return fluid_reshape(out, list(shape)) if self._floats else out

    def entropy(self):
        return normal_entropy(self.loc, self.scale)

    def log_prob(self, value):
        _check_value("Normal", value)
        return normal_log_prob(self.loc, self.scale, value)

    def kl_divergence(self, other):
        _check_same("Normal", other, Normal)
        return normal_kl_divergence(self.loc, self.scale, other.loc, other.scale)


class Categorical(Distribution):
    """Categories with unnormalized log-probabilities `logits` along the last axis."""

    def __init__(self, logits):
        _check_types("Categorical", _ARRAY, logits=logits)
        (self.logits,) = _as_variables("Categorical", logits=logits)

    def entropy(self):
        return categorical_entropy(self.logits)

    def kl_divergence(self, other):
        _check_same("Categorical", other, Categorical)
        return categorical_kl_divergence(self.logits, other.logits)


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

    # Paddle 1.8's matrix forms, exact for a diagonal matrix and rounded as 1.8 rounds them
    # (a tiny variance loses low bits in s + 1 - 1; its tests compare at 1e-6)
    def _ones_and_eye(self, dtype):
        return (creation.fluid_ones([self.k, self.k], dtype),
                diag(creation.fluid_ones([self.k], dtype)))

    def _det(self, matrix):
        """prod(matrix + 1 - I): the diagonal's product, the off-diagonal zeros made ones."""
        ones, eye = self._ones_and_eye(matrix.dtype)
        return reduce_prod(matrix + ones - eye)

    def _inverse(self, matrix):
        """matrix ** (1 - 2 I) elementwise: the diagonal inverted, the zeros kept."""
        ones, eye = self._ones_and_eye(matrix.dtype)
        return binary("elementwise_pow", matrix, ones - eye * 2.0)

    def entropy(self):
        """0.5 (k (1 + log 2 pi) + log det scale), shape [1]."""
        return (log(self._det(self.scale)) + self.k * (1.0 + math.log(2 * math.pi))) * 0.5

    def kl_divergence(self, other):
        """0.5 (tr(S'^-1 S) + (m' - m)^T S'^-1 (m' - m) - k + log det S' - log det S)."""
        _check_same("MultivariateNormalDiag", other, MultivariateNormalDiag)
        inverse = self._inverse(other.scale)
        shift = other.loc - self.loc
        trace = reduce_sum(inverse * self.scale)
        quadratic = fluid_matmul(fluid_matmul(shift, inverse), shift)
        log_det_ratio = log(self._det(other.scale)) - log(self._det(self.scale))
        return (trace + quadratic - float(self.k) + log_det_ratio) * 0.5


EXPORTS = {
    "fluid.layers": {"Uniform": Uniform, "Normal": Normal, "Categorical": Categorical,
                     "MultivariateNormalDiag": MultivariateNormalDiag},
}
