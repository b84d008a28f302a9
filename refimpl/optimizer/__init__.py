"""paddle.optimizer: optimizers and learning-rate schedulers."""
from .optimizer import Optimizer, SGD

__all__ = ["Optimizer", "SGD"]
