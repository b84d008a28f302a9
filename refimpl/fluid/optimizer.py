"""paddle.fluid.optimizer: the 1.x optimizer names."""
from ..optimizer.optimizer import Optimizer, SGD

SGDOptimizer = SGD

__all__ = ["Optimizer", "SGD", "SGDOptimizer"]
