"""paddle.fluid.optimizer: the 1.x optimizer names (the paddle.optimizer classes, whose
argument order already matches 1.8's where 2.0 kept it; Lamb's did not)."""
from ..optimizer.optimizer import Optimizer, SGD
from ..optimizer.lookahead import LookaheadOptimizer
from ..optimizer.optimizers import (Adadelta, Adagrad, Adam, Adamax, AdamW, DecayedAdagrad,
                                    Dpsgd, Ftrl, Lamb, LarsMomentum, Momentum, RMSProp)
from ..optimizer.recompute import RecomputeOptimizer
from .moving_average import ExponentialMovingAverage, ModelAverage


class LambOptimizer(Lamb):
    """Paddle 1.8's argument order: regularization comes before grad_clip."""

    def __init__(self, learning_rate=0.001, lamb_weight_decay=0.01, beta1=0.9, beta2=0.999,
                 epsilon=1e-6, parameter_list=None, regularization=None, grad_clip=None,
                 exclude_from_weight_decay_fn=None, name=None):
        super().__init__(learning_rate, lamb_weight_decay, beta1, beta2, epsilon,
                         grad_clip=grad_clip,
                         exclude_from_weight_decay_fn=exclude_from_weight_decay_fn, name=name,
                         parameter_list=parameter_list, regularization=regularization)


SGDOptimizer = SGD
MomentumOptimizer = Momentum
AdamOptimizer = Adam
AdamaxOptimizer = Adamax
AdagradOptimizer = Adagrad
LarsMomentumOptimizer = LarsMomentum
DecayedAdagradOptimizer = DecayedAdagrad
FtrlOptimizer = Ftrl
DpsgdOptimizer = Dpsgd
RMSPropOptimizer = RMSProp
AdadeltaOptimizer = Adadelta
Lamb = LambOptimizer

__all__ = ["Optimizer", "SGD", "SGDOptimizer", "Momentum", "MomentumOptimizer", "Adam",
           "AdamOptimizer", "AdamW", "Adamax", "AdamaxOptimizer", "Adagrad", "AdagradOptimizer",
           "RMSProp", "RMSPropOptimizer", "Lamb", "LambOptimizer", "LarsMomentum",
           "LarsMomentumOptimizer", "DecayedAdagrad", "DecayedAdagradOptimizer", "Ftrl",
           "FtrlOptimizer", "Dpsgd", "DpsgdOptimizer", "LookaheadOptimizer",
           "RecomputeOptimizer", "Adadelta", "AdadeltaOptimizer",
           "ExponentialMovingAverage", "ModelAverage"]
