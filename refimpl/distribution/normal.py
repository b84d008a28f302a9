"""paddle.distribution.Normal (Paddle 2.0): N(loc, scale^2), scale the standard
deviation."""
from ..layers import distributions as formulas
from ..layers.tensor import fluid_reshape
from .distribution import (Distribution, check_other, check_sample_args, parameters,
                           value_in_dtype)


class Normal(Distribution):
    """Batch shape: the broadcast of loc and scale. Each method names its result
    `<name>_<method>` (name defaults to "Normal")."""

    def __init__(self, loc, scale, name=None):
        (self.loc, self.scale), self._numbers = parameters("Normal", loc=loc, scale=scale)
        self.name = name or "Normal"
        self.dtype = self.loc.dtype

    def sample(self, shape, seed=0):
        """Draws of shape `shape + batch_shape`; just `shape` when loc and scale are numbers."""
        check_sample_args("Normal", shape, seed)
        name = self.name + "_sample"
        out = formulas.normal_sample("Normal", self.loc, self.scale, shape, seed, name)
        return fluid_reshape(out, shape, name=name) if self._numbers else out

    def entropy(self):
        return formulas.normal_entropy(self.loc, self.scale, self.name + "_entropy")

    def log_prob(self, value):
        value = value_in_dtype("Normal", "log_prob", value, self.loc)
        return formulas.normal_log_prob(self.loc, self.scale, value, self.name + "_log_prob")

    def probs(self, value):
        value = value_in_dtype("Normal", "probs", value, self.loc)
        return formulas.normal_probs(self.loc, self.scale, value, self.name + "_probs")

    def kl_divergence(self, other):
        check_other("Normal", other, Normal)
        return formulas.normal_kl_divergence(self.loc, self.scale, other.loc, other.scale,
                                             self.name + "_kl_divergence")
