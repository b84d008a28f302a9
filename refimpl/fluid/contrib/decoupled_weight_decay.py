"""fluid.contrib.extend_with_decoupled_weight_decay (Paddle 1.8): an optimizer class that
shrinks each parameter by weight_decay * parameter before its update (decoupled weight
decay, Loshchilov & Hutter; AdamW when the base is Adam). The gradients come from the
parameters before the shrink; the ops run after the backward pass and before the base
optimizer's ops: param -= param * coeff, then the base update."""
from ...framework.program import Variable, name_scope
from ...layers.creation import assign
from ...optimizer.optimizer import Optimizer

__all__ = ["extend_with_decoupled_weight_decay"]


class DecoupledWeightDecay:
    """The mixin: weight_decay (coeff) a float or a Variable; apply_decay_param_fun(name)
    chooses the parameters (default: all with a gradient)."""

    def __init__(self, coeff=0.0, apply_decay_param_fun=None, **kwargs):
        if not isinstance(coeff, (float, Variable)):
            raise TypeError("coeff should be float or Variable.")
        self._coeff = coeff
        self._apply_decay_param_fun = apply_decay_param_fun
        self._params_name = set()
        super().__init__(**kwargs)

    def _decayed(self, params_grads):
        if isinstance(self._coeff, float) and self._coeff == 0.0:
            return []
        chosen = []
        for param, grad in params_grads:
            if grad is None or (self._apply_decay_param_fun is not None and
                                not self._apply_decay_param_fun(param.name)):
                continue
            if isinstance(self._coeff, Variable) and self._coeff.dtype != param.dtype:
                raise TypeError("weight_decay %r is %s, parameter %r %s"
                                % (self._coeff.name, self._coeff.dtype.name, param.name,
                                   param.dtype.name))
            if param.name in self._params_name:
                raise ValueError("parameter %r is decayed twice (minimize called again?)"
                                 % param.name)
            chosen.append((param, grad))
            self._params_name.add(param.name)
        return chosen

    def minimize(self, loss, startup_program=None, parameter_list=None, no_grad_set=None):
        params_grads = self.backward(loss, startup_program, parameter_list, no_grad_set)
        for param, grad in self._decayed(params_grads):
            with param.block.program._optimized_guard([param, grad]), \
                    name_scope("weight decay"):
                assign(param - param * self._coeff, output=param)
        optimize_ops = self.apply_optimize(loss, startup_program, params_grads)
        return optimize_ops, params_grads

    def __str__(self):
        return " ".join(["Weight Decay, params:", ",".join(self._params_name)])


def extend_with_decoupled_weight_decay(base_optimizer):
    """A subclass of the optimizer class `base_optimizer` whose __init__ takes
    (weight_decay, apply_decay_param_fun=None, **the base's keywords)."""
    if not (isinstance(base_optimizer, type) and issubclass(base_optimizer, Optimizer)):
        raise TypeError("The input(base_optimizer) should be a derived class of Optimizer.")

    class OptimizerWithDecoupledWeightDecay(DecoupledWeightDecay, base_optimizer):
        def __init__(self, weight_decay, apply_decay_param_fun=None, **kwargs):
            super().__init__(weight_decay, apply_decay_param_fun, **kwargs)

    return OptimizerWithDecoupledWeightDecay
