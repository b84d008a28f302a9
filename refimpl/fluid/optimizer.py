"""paddle.fluid.optimizer: the 1.x optimizer names (the paddle.optimizer classes, whose
argument order already matches 1.8's where 2.0 kept it; Lamb's did not)."""
from ..optimizer.dgc import DGCMomentumOptimizer
from ..optimizer.optimizer import Optimizer, SGD
from ..optimizer.pipeline import PipelineOptimizer
from ..optimizer.gradient_merge import GradientMergeOptimizer
from ..optimizer.lookahead import LookaheadOptimizer
from ..optimizer.optimizers import (Adadelta, Adagrad, Adam, Adamax, AdamW, DecayedAdagrad,
                                    Dpsgd, Ftrl, Lamb, LarsMomentum, Momentum, RMSProp)
from ..optimizer.recompute import RecomputeOptimizer
# (module attributes of Paddle's fluid.optimizer, which imports them to build its updates)
from ..framework.regularizer import append_regularization_ops
from ..framework.place import is_compiled_with_cuda
from .moving_average import ExponentialMovingAverage, ModelAverage


class LambOptimizer(Lamb):
    """Paddle 1.8's argument order: regularization comes before grad_clip."""
    _fluid_api = True

    def __init__(self, learning_rate=0.001, lamb_weight_decay=0.01, beta1=0.9, beta2=0.999,
                 epsilon=1e-6, parameter_list=None, regularization=None, grad_clip=None,
                 exclude_from_weight_decay_fn=None, name=None):
        super().__init__(learning_rate, lamb_weight_decay, beta1, beta2, epsilon,
                         grad_clip=grad_clip,
                         exclude_from_weight_decay_fn=exclude_from_weight_decay_fn, name=name,
                         parameter_list=parameter_list, regularization=regularization)


def _fluid_class(cls, name):
    """fluid.optimizer's `name`: `cls` taking a learning-rate Variable or a 1.8
    LearningRateDecay as well, as fluid's optimizers do in 2.0, where paddle.optimizer's
    refuse them (Optimizer._fluid_api)."""
    return type(name, (cls,), {"_fluid_api": True, "__module__": __name__,
                               "__doc__": cls.__doc__})


SGD = SGDOptimizer = _fluid_class(SGD, "SGDOptimizer")
Momentum = MomentumOptimizer = _fluid_class(Momentum, "MomentumOptimizer")
Adam = AdamOptimizer = _fluid_class(Adam, "AdamOptimizer")
AdamW = _fluid_class(AdamW, "AdamW")
Adamax = AdamaxOptimizer = _fluid_class(Adamax, "AdamaxOptimizer")
Adagrad = AdagradOptimizer = _fluid_class(Adagrad, "AdagradOptimizer")
LarsMomentum = LarsMomentumOptimizer = _fluid_class(LarsMomentum, "LarsMomentumOptimizer")
DecayedAdagrad = DecayedAdagradOptimizer = _fluid_class(DecayedAdagrad,
                                                        "DecayedAdagradOptimizer")
Ftrl = FtrlOptimizer = _fluid_class(Ftrl, "FtrlOptimizer")
Dpsgd = DpsgdOptimizer = _fluid_class(Dpsgd, "DpsgdOptimizer")
RMSProp = RMSPropOptimizer = _fluid_class(RMSProp, "RMSPropOptimizer")
Adadelta = AdadeltaOptimizer = _fluid_class(Adadelta, "AdadeltaOptimizer")
Lamb = LambOptimizer

__all__ = ["Optimizer", "SGD", "SGDOptimizer", "Momentum", "MomentumOptimizer", "Adam",
           "AdamOptimizer", "AdamW", "Adamax", "AdamaxOptimizer", "Adagrad", "AdagradOptimizer",
           "RMSProp", "RMSPropOptimizer", "Lamb", "LambOptimizer", "LarsMomentum",
           "LarsMomentumOptimizer", "DecayedAdagrad", "DecayedAdagradOptimizer", "Ftrl",
           "FtrlOptimizer", "Dpsgd", "DpsgdOptimizer", "LookaheadOptimizer",
           "RecomputeOptimizer", "Adadelta", "AdadeltaOptimizer",
           "ExponentialMovingAverage", "ModelAverage", "DGCMomentumOptimizer",
           "PipelineOptimizer", "GradientMergeOptimizer"]
