"""paddle.distributed.fleet.meta_optimizers (Paddle 3's home of DGCMomentumOptimizer, which
fluid.optimizer held in 1.8 / 2.0)."""
from ....optimizer.dgc import DGCMomentumOptimizer

__all__ = ["DGCMomentumOptimizer"]
