"""paddle.distribution.Uniform (Paddle 2.0): U(low, high), density 1 / (high - low) on
(low, high)."""
from ..layers import distributions as formulas
from ..layers.tensor import fluid_reshape
from .distribution import Distribution, check_sample_args, parameters, value_in_dtype


class Uniform(Distribution):
    """Batch shape: the broadcast of low and high. Each method names its result
    `<name>_<method>` (name defaults to "Uniform")."""

    def __init__(self, low, high, name=None):
        (self.low, self.high), self._numbers = parameters("Uniform", low=low, high=high)
        self.name = name or "Uniform"
        self.dtype = self.low.dtype

    def sample(self, shape, seed=0):
        """Draws of shape `shape + batch_shape`; just `shape` when low and high are numbers."""
        check_sample_args("Uniform", shape, seed)
        name = self.name + "_sample"
        out = formulas.uniform_sample("Uniform", self.low, self.high, shape, seed, name)
        return fluid_reshape(out, shape, name=name) if self._numbers else out

    def log_prob(self, value):
        value = value_in_dtype("Uniform", "log_prob", value, self.low)
        return formulas.uniform_log_prob(self.low, self.high, value, self.name + "_log_prob")

    def probs(self, value):
        value = value_in_dtype("Uniform", "probs", value, self.low)
        return formulas.uniform_probs(self.low, self.high, value, self.name + "_probs")

    def entropy(self):
        return formulas.uniform_entropy(self.low, self.high, self.name + "_entropy")
