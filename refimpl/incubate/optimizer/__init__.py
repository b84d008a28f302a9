"""paddle.incubate.optimizer: Paddle 2.0's LookAhead and ModelAverage (Optimizer wrappers
of 2.0's API, specs/incubate_optimizer.md), and RecomputeOptimizer's spelling outside
paddle.fluid (2.2+); Paddle 3's GradientMergeOptimizer, LarsMomentumOptimizer and
PipelineOptimizer (fluid.optimizer's before)."""
from ...optimizer.gradient_merge import GradientMergeOptimizer
from ...optimizer.optimizers import LarsMomentum
from ...optimizer.pipeline import PipelineOptimizer
from ...optimizer.recompute import RecomputeOptimizer
from .lookahead import LookAhead
from .modelaverage import ModelAverage


class LarsMomentumOptimizer(LarsMomentum):
    __doc__ = LarsMomentum.__doc__


__all__ = ["LookAhead", "ModelAverage", "RecomputeOptimizer", "LarsMomentumOptimizer",
           "PipelineOptimizer", "GradientMergeOptimizer"]
