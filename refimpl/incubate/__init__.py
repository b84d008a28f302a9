"""paddle.incubate: where later Paddle releases (2.2+) keep RecomputeOptimizer."""
from . import optimizer

__all__ = ["optimizer"]
