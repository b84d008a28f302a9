"""paddle.fluid.contrib.optimizer (Paddle 2.0): Momentum that folds an L2Decay
regularization into the momentum op (its regularization_method / regularization_coeff
attrs: coeff * param added inside the update) instead of appending regularization ops;
any other regularizer is appended as by fluid.optimizer.Momentum."""
from ...optimizer.optimizers import Momentum as _Momentum

__all__ = ["Momentum"]


class Momentum(_Momentum):
    _fluid_api = True       # a fluid optimizer: a learning-rate Variable too

    def __init__(self, learning_rate, momentum, parameter_list=None, use_nesterov=False,
                 regularization=None, grad_clip=None, multi_precision=False,
                 rescale_grad=1.0, name=None):
        if multi_precision or rescale_grad != 1.0:
            raise NotImplementedError("contrib.optimizer.Momentum: multi_precision and "
                                      "rescale_grad (float16 master weights) are not supported")
        super().__init__(learning_rate, momentum, use_nesterov=use_nesterov,
                         grad_clip=grad_clip, name=name, parameter_list=parameter_list,
                         regularization=regularization)

    def _l2_decay_rule(self):
        return "optimizer"      # 2.0's contrib Momentum: the optimizer's L2Decay, fused
