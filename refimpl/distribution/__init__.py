"""paddle.distribution (Paddle 2.0): Distribution, Uniform, Normal, Categorical
(specs/distributions.md, "paddle.distribution"). The formulas are fluid.layers' 1.8 ones
(refimpl/layers/distributions.py); these classes add 2.0's argument rules, probs, and the
names of their results."""
from .categorical import Categorical
from .distribution import Distribution
from .normal import Normal
from .uniform import Uniform

__all__ = ["Distribution", "Uniform", "Normal", "Categorical"]
