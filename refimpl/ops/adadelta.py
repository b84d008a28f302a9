"""adadelta: the update with no learning rate (Zeiler 2012), as Paddle 1.8's op.
  E[g^2] = rho E[g^2] + (1 - rho) g^2
  update = -sqrt((E[dx^2] + eps) / (E[g^2] + eps)) g
  E[dx^2] = rho E[dx^2] + (1 - rho) update^2
  param += update, or param += LearningRate update when that optional input is given
  (Paddle 2.3 on: 3.3.1's op and paddle.optimizer.Adadelta, measured; switch
  adadelta_learning_rate)
Param and both averages are updated in place, as every optimizer op."""
import numpy as np

from ._common import rand
from .optimizer_ops import _Update, _lr
from .registry import Sample, register


@register
class Adadelta(_Update):
    type = "adadelta"
    inputs = ("Param", "Grad", "AvgSquaredGrad", "AvgSquaredUpdate", "LearningRate?")
    outputs = ("ParamOut", "AvgSquaredGradOut", "AvgSquaredUpdateOut")
    attrs = {"rho": 0.95, "epsilon": 1e-6}

    @staticmethod
    def forward(param, grad, avg_squared_grad, avg_squared_update, lr=None, rho=0.95,
                epsilon=1e-6):
        t = param.dtype.type
        rho, epsilon = t(rho), t(epsilon)
        avg_squared_grad *= rho
        avg_squared_grad += (1 - rho) * grad * grad
        update = -np.sqrt((avg_squared_update + epsilon) / (avg_squared_grad + epsilon)) * grad
        avg_squared_update *= rho
        avg_squared_update += (1 - rho) * update * update
        param += update if lr is None else _lr(lr, param) * update
        return param, avg_squared_grad, avg_squared_update

    def samples(self, rng):
        yield Sample({"Param": rand(rng, 3, 4), "Grad": rand(rng, 3, 4),
                      "AvgSquaredGrad": rng.uniform(0, 1, (3, 4)),
                      "AvgSquaredUpdate": rng.uniform(0, 1, (3, 4))},
                     {"rho": 0.875, "epsilon": 2.0 ** -20})
        yield Sample({"Param": rand(rng, 3, 4), "Grad": rand(rng, 3, 4),
                      "AvgSquaredGrad": rng.uniform(0, 1, (3, 4)),
                      "AvgSquaredUpdate": rng.uniform(0, 1, (3, 4)),
                      "LearningRate": np.array([0.25])},
                     {"rho": 0.875, "epsilon": 2.0 ** -20}, name="learning_rate")
