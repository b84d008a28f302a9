"""adadelta: the update with no learning rate (Zeiler 2012), as Paddle 1.8's op.
  E[g^2] = rho E[g^2] + (1 - rho) g^2
  update = -sqrt((E[dx^2] + eps) / (E[g^2] + eps)) g
  E[dx^2] = rho E[dx^2] + (1 - rho) update^2
  param += update
Param and both averages are updated in place, as every optimizer op."""
import numpy as np

from ._common import rand
from .optimizer_ops import _Update
from .registry import Sample, register


@register
class Adadelta(_Update):
    type = "adadelta"
    inputs = ("Param", "Grad", "AvgSquaredGrad", "AvgSquaredUpdate")
    outputs = ("ParamOut", "AvgSquaredGradOut", "AvgSquaredUpdateOut")
    attrs = {"rho": 0.95, "epsilon": 1e-6}

    @staticmethod
    def forward(param, grad, avg_squared_grad, avg_squared_update, rho=0.95, epsilon=1e-6):
        t = param.dtype.type
        rho, epsilon = t(rho), t(epsilon)
        avg_squared_grad *= rho
        avg_squared_grad += (1 - rho) * grad * grad
        update = -np.sqrt((avg_squared_update + epsilon) / (avg_squared_grad + epsilon)) * grad
        avg_squared_update *= rho
        avg_squared_update += (1 - rho) * update * update
        param += update
        return param, avg_squared_grad, avg_squared_update

    def samples(self, rng):
        yield Sample({"Param": rand(rng, 3, 4), "Grad": rand(rng, 3, 4),
                      "AvgSquaredGrad": rng.uniform(0, 1, (3, 4)),
                      "AvgSquaredUpdate": rng.uniform(0, 1, (3, 4))},
                     {"rho": 0.875, "epsilon": 2.0 ** -20})
