"""paddle.fluid.optimizer: the 1.x optimizer names (same classes as paddle.optimizer)."""
from ..optimizer.optimizer import Optimizer, SGD
from ..optimizer.optimizers import Adagrad, Adam, AdamW, Lamb, Momentum, RMSProp
from ..optimizer.recompute import RecomputeOptimizer

SGDOptimizer = SGD
MomentumOptimizer = Momentum
AdamOptimizer = Adam
AdagradOptimizer = Adagrad
RMSPropOptimizer = RMSProp
LambOptimizer = Lamb

__all__ = ["Optimizer", "SGD", "SGDOptimizer", "Momentum", "MomentumOptimizer", "Adam",
           "AdamOptimizer", "AdamW", "Adagrad", "AdagradOptimizer", "RMSProp",
           "RMSPropOptimizer", "Lamb", "LambOptimizer", "RecomputeOptimizer"]
