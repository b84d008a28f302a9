"""paddle.incubate.optimizer: Paddle 2.0's LookAhead and ModelAverage (Optimizer wrappers
of 2.0's API, specs/incubate_optimizer.md), and RecomputeOptimizer's spelling outside
paddle.fluid (2.2+)."""
from ...optimizer.recompute import RecomputeOptimizer
from .lookahead import LookAhead
from .modelaverage import ModelAverage

__all__ = ["LookAhead", "ModelAverage", "RecomputeOptimizer"]
