"""paddle.incubate.optimizer: RecomputeOptimizer's spelling outside paddle.fluid."""
from ..optimizer.recompute import RecomputeOptimizer

__all__ = ["RecomputeOptimizer"]
