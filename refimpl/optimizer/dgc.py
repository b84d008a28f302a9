"""DGCMomentumOptimizer: fluid.optimizer's name in 1.8 / 2.0,
paddle.distributed.fleet.meta_optimizers' in Paddle 3."""
from ..framework import mode
from ..framework.place import is_compiled_with_cuda


class DGCMomentumOptimizer:
    """Paddle's deep gradient compression Momentum, which its CPU build cannot construct:
    dynamic mode raises Paddle's Exception, static mode its AssertionError "Paddle is not
    compiled with CUDA" (refimpl has no dgc ops: with a GPU, NotImplementedError)."""

    def __init__(self, learning_rate, momentum, rampup_begin_step, rampup_step=1,
                 sparsity=(0.999,), parameter_list=None, use_nesterov=False,
                 num_trainers=None, regularization=None, grad_clip=None, name=None):
        if mode.dynamic:
            raise Exception("In dygraph, don't support DGCMomentumOptimizer.")
        assert is_compiled_with_cuda(), \
            "Paddle is not compiled with CUDA. DGC is only support GPU for now."
        raise NotImplementedError("DGCMomentumOptimizer: refimpl has no dgc / dgc_momentum "
                                  "ops; use MomentumOptimizer")
