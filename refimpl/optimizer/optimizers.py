"""The optimizers beyond SGD: each names its accumulators like Paddle and appends its
update op (see refimpl/ops/optimizer_ops.py for the formulas)."""

import numbers

import numpy as np

from .. import versions, xp
from ..dygraph.tensor import Tensor, on_place_of
from ..dygraph.tracer import layout
from ..framework.program import Variable
from ..framework.regularizer import L2Decay
from ..framework.selected_rows import RowsValue
from ..ops.registry import round_float32_attrs
from ..ops.selected_rows import rows_forward
from .optimizer import IN_UNIT, NON_NEGATIVE, Optimizer, check_set

__all__ = ["Momentum", "LarsMomentum", "Adam", "AdamW", "Adamax", "RMSProp", "Adagrad", "Lamb",
           "DecayedAdagrad", "Ftrl", "Dpsgd", "Adadelta"]


class Momentum(Optimizer):
    type = "momentum"
    _group_hyperparameters = {"momentum": "_momentum", "use_nesterov": "_use_nesterov"}
    _velocity_acc_str = "velocity"      # accumulator names, as Paddle 1.8's attributes

    def __init__(self, learning_rate=0.001, momentum=0.9, parameters=None, use_nesterov=False,
                 weight_decay=None, grad_clip=None, name=None, parameter_list=None,
                 regularization=None, multi_precision=False, rescale_grad=1.0,
                 use_multi_tensor=False):
        # Paddle 2.0's and 3's multi_precision keeps float32 master weights of float16
        # parameters (float32 ones have none: accepted, nothing changes);
        # use_multi_tensor (3) updates them in one merged op, to the same values
        if rescale_grad != 1.0:
            raise ValueError("Momentum: rescale_grad=%r is not implemented in refimpl (only "
                             "1.0)" % (rescale_grad,))
        check_set(self, learning_rate=learning_rate, momentum=momentum)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name,
                         parameter_list, regularization)
        self._momentum = self._hyperparameter("momentum", momentum, NON_NEGATIVE)
        self._use_nesterov = bool(use_nesterov)
        # an L2Decay the momentum op applies (its regularization_coeff), not a scale op
        reg, rule = weight_decay if weight_decay is not None else regularization, \
            self._l2_decay_rule()
        self._fused_decay = None
        if rule == "fused" and isinstance(reg, (numbers.Real, L2Decay)) or \
                rule == "optimizer" and isinstance(reg, L2Decay):
            self._fused_decay, self.regularization = self.regularization, None
        self._fused_coeff = {}      # parameter name -> the coefficient its update fuses

    def _l2_decay_rule(self):
        """How an L2Decay reaches the update (switch momentum_l2_decay): fluid's Momentum
        appends it as any regularizer (1.8.5; 2.0's fluid.optimizer too)."""
        return "appended" if self._fluid_api else versions.switch("momentum_l2_decay")

    def _regularize(self, params_grads, regularization):
        """As Paddle's Momentum: an L2Decay it fuses leaves the gradient as it is (under
        "fused" a parameter's own L2Decay too, and its own other regularizer turns the
        optimizer's fused one off; under "optimizer" the optimizer's is fused for every
        parameter, a parameter's own regularizer appended as well, as 2.0's source does)."""
        rule = self._l2_decay_rule()
        if rule == "appended":
            return super()._regularize(params_grads, regularization)
        passed = set()
        for p, g in params_grads:
            fused = self._fused_decay
            if rule == "fused":
                own = getattr(p, "regularizer", None)
                decay = own if own is not None else regularization or self._fused_decay
                fused = decay if isinstance(decay, L2Decay) else None
                if fused is not None:
                    passed.add(p.name)
            self._fused_coeff[p.name] = None if fused is None else fused.coeff
        appended = iter(super()._regularize(
            [pg for pg in params_grads if pg[0].name not in passed], regularization))
        return [pg if pg[0].name in passed else next(appended) for pg in params_grads]

    def _create_accumulators(self, block, parameters):
        for p in parameters:
            self._add_accumulator(self._velocity_acc_str, p)

    def _append_optimize_op(self, block, param_and_grad):
        p, g = param_and_grad
        v = self._get_accumulator(self._velocity_acc_str, p)
        return block.append_op(
            type=self.type,
            inputs={"Param": [p], "Grad": [g], "Velocity": [v],
                    "LearningRate": [self._param_lr(p)]},
            outputs={"ParamOut": [p], "VelocityOut": [v]}, attrs=self._update_attrs(p))

    def _update_attrs(self, param):
        attrs = {"mu": self._momentum, "use_nesterov": self._use_nesterov}
        coeff = self._fused_coeff.get(param.name)
        if coeff is not None:
            attrs.update(regularization_method="l2_decay", regularization_coeff=coeff)
        return attrs

    def _run_update(self, fn, p, g, lr, attrs):
        v = self._get_accumulator(self._velocity_acc_str, p)
        p._value, v._value = fn(p._value, g, v._value, lr, **attrs)


class LarsMomentum(Momentum):
    """Paddle 1.8's LarsMomentumOptimizer: momentum with a layer-wise learning rate
    (the lars_momentum op)."""
    type = "lars_momentum"

    def __init__(self, learning_rate, momentum, lars_coeff=0.001, lars_weight_decay=0.0005,
                 parameter_list=None, regularization=None, grad_clip=None, name=None):
        super().__init__(learning_rate, momentum, grad_clip=grad_clip, name=name,
                         parameter_list=parameter_list, regularization=regularization)
        self._lars_coeff, self._lars_weight_decay = float(lars_coeff), float(lars_weight_decay)

    def _l2_decay_rule(self):
        return "appended"       # the lars_momentum op has no regularization attrs

    def _update_attrs(self, param):
        return {"mu": self._momentum, "lars_coeff": self._lars_coeff,
                "lars_weight_decay": self._lars_weight_decay}


def _beta(optimizer, value, name):
    """A beta: a number in [0, 1) (kept as a float), or a [1] float Variable / Tensor read
    at run time (Adam, AdamW: the op's Beta1Tensor / Beta2Tensor inputs)."""
    if isinstance(value, Variable):
        return value
    return optimizer._hyperparameter(name, value, IN_UNIT)


class _AdamFamily(Optimizer):
    _group_hyperparameters = {"beta1": "_beta1", "beta2": "_beta2", "epsilon": "_epsilon"}
    _moment1_acc_str, _moment2_acc_str = "moment1", "moment2"
    _beta1_pow_acc_str, _beta2_pow_acc_str = "beta1_pow_acc", "beta2_pow_acc"

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 parameters=None, weight_decay=None, grad_clip=None, name=None,
                 lazy_mode=False, parameter_list=None, regularization=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name,
                         parameter_list, regularization)
        self._beta1, self._beta2 = _beta(self, beta1, "beta1"), _beta(self, beta2, "beta2")
        self._epsilon = self._hyperparameter("epsilon", epsilon, NON_NEGATIVE)
        self._lazy_mode = lazy_mode

    def _create_accumulators(self, block, parameters):
        # a beta given as a [1] tensor has no value yet: its power starts at the default
        # beta, as in Paddle 1.8.5 and 2.0
        beta1 = 0.9 if isinstance(self._beta1, Variable) else self._beta1
        beta2 = 0.999 if isinstance(self._beta2, Variable) else self._beta2
        for p in parameters:
            self._add_accumulator(self._moment1_acc_str, p)
            self._add_accumulator(self._moment2_acc_str, p)
            # the powers' initializers on the CPU, as Paddle's Adam places them
            self._add_accumulator(self._beta1_pow_acc_str, p, fill_value=beta1, shape=[1],
                                  device="cpu")
            self._add_accumulator(self._beta2_pow_acc_str, p, fill_value=beta2, shape=[1],
                                  device="cpu")

    def _beta_attrs(self):
        """beta1 / beta2 as attributes; a tensor beta goes in as Beta1Tensor / Beta2Tensor."""
        return {name: value for name, value in (("beta1", self._beta1), ("beta2", self._beta2))
                if not isinstance(value, Variable)}

    def _moment_slots(self, p, g):
        acc = {k: self._get_accumulator(n, p) for k, n in
               (("Moment1", self._moment1_acc_str), ("Moment2", self._moment2_acc_str),
                ("Beta1Pow", self._beta1_pow_acc_str), ("Beta2Pow", self._beta2_pow_acc_str))}
        inputs = {"Param": [p], "Grad": [g], "LearningRate": [self._param_lr(p)]}
        inputs.update({k: [v] for k, v in acc.items()})
        for slot, beta in (("Beta1Tensor", self._beta1), ("Beta2Tensor", self._beta2)):
            if isinstance(beta, Variable):
                inputs[slot] = [beta]
        outputs = {"ParamOut": [p]}
        outputs.update({k + "Out": [v] for k, v in acc.items()})
        return inputs, outputs

    def _append_optimize_op(self, block, param_and_grad):
        p, g = param_and_grad
        inputs, outputs = self._moment_slots(p, g)
        return block.append_op(type=self.type, inputs=inputs, outputs=outputs,
                               attrs=self._update_attrs(p))

    def _direct_ok(self):     # (a tensor beta is an input the direct call does not pass)
        return not isinstance(self._beta1, Variable) and not isinstance(self._beta2, Variable)

    def _run_update(self, fn, p, g, lr, attrs):
        acc = [self._get_accumulator(n, p) for n in (
            self._moment1_acc_str, self._moment2_acc_str, self._beta1_pow_acc_str,
            self._beta2_pow_acc_str)]
        results = fn(p._value, g, lr, *[a._value for a in acc], **attrs)
        p._value = results[0]
        for a, value in zip(acc, results[1:]):
            a._value = value


class Adam(_AdamFamily):
    type = "adam"
    _group_hyperparameters = dict(_AdamFamily._group_hyperparameters, lazy_mode="_lazy_mode")
    _sparse_decay_error = ("Adam don't support weight_decay with sparse parameters, please "
                           "set it to None.")     # Paddle 3.3.1's text

    def _update_attrs(self, p):
        return dict(self._beta_attrs(), epsilon=self._epsilon, lazy_mode=self._lazy_mode)

    def _update_rows(self, p, g, rows):
        """A gradient Paddle keeps as a SelectedRows of `rows`: the adam op's SelectedRows
        rule on the values (the beta powers read one step ahead, as the optimizer's op
        aliases them; lazy_mode), with the kernel the op would run."""
        self._create_accumulators(self._block(), [p])
        self._create_global_learning_rate()
        inputs, outputs = self._moment_slots(p, g)
        value = p._array()
        listed = np.unique(np.asarray(rows, np.int64))
        values = {k: xp.to_host(v[0]._array()) for k, v in inputs.items() if k != "Grad"}
        lay = layout(self.type)
        given = self._update_attrs(p)
        attrs = round_float32_attrs(lay.op_def, {k: given.get(k, default)
                                                 for k, default in lay.attr_items}, eager=True)
        results = rows_forward(self.type, lay.kernels.get(attrs, value.dtype)[0])(
            values["Param"], RowsValue(tuple(listed.tolist()), len(value), xp.to_host(g)[listed]),
            values["LearningRate"], values["Moment1"], values["Moment2"], values["Beta1Pow"],
            values["Beta2Pow"], values.get("Beta1Tensor"), values.get("Beta2Tensor"),
            powers_aliased=(True, True), **attrs)
        for slot, result in zip(("ParamOut", "Moment1Out", "Moment2Out", "Beta1PowOut",
                                 "Beta2PowOut"), results):
            target = outputs[slot][0]
            target._value = on_place_of(target._array(), result)


class AdamW(_AdamFamily):
    """Adam with decoupled weight decay (coeff = weight_decay, default 0.01)."""
    type = "adamw"

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 parameters=None, weight_decay=0.01, apply_decay_param_fun=None,
                 grad_clip=None, lazy_mode=False, name=None):
        super().__init__(learning_rate, beta1, beta2, epsilon, parameters, None, grad_clip,
                         name, lazy_mode)
        self._coeff = self._hyperparameter("weight_decay", weight_decay)
        self._apply_decay = apply_decay_param_fun

    def _update_attrs(self, p):
        decay = self._apply_decay is None or self._apply_decay(p.name)
        return dict(self._beta_attrs(), epsilon=self._epsilon, coeff=self._coeff,
                    with_decay=bool(decay))


class Lamb(_AdamFamily):
    type = "lamb"
    _group_hyperparameters = dict(_AdamFamily._group_hyperparameters,
                                  lamb_weight_decay="_lamb_weight_decay",
                                  exclude_from_weight_decay_fn="_exclude_from_weight_decay_fn")

    def __init__(self, learning_rate=0.001, lamb_weight_decay=0.01, beta1=0.9, beta2=0.999,
                 epsilon=1e-6, parameters=None, grad_clip=None, exclude_from_weight_decay_fn=None,
                 name=None, parameter_list=None, regularization=None, multi_precision=False,
                 always_adapt=False):
        # Paddle 3's multi_precision (master weights of float16 parameters only) and
        # always_adapt (the trust ratio even without weight decay: switch lamb_trust_ratio)
        super().__init__(learning_rate, beta1, beta2, epsilon, parameters, None, grad_clip,
                         name, parameter_list=parameter_list, regularization=regularization)
        for name, beta in (("beta1", beta1), ("beta2", beta2)):
            if isinstance(beta, Variable):
                raise TypeError("Lamb: %s must be a float (the lamb op has no %sTensor "
                                "input), got the Variable %r" % (name, name.title(), beta.name))
        # Paddle's attribute names: a subclass's own _append_optimize_op reads them
        self._lamb_weight_decay = float(lamb_weight_decay)
        self._exclude_from_weight_decay_fn = exclude_from_weight_decay_fn
        self._always_adapt = bool(always_adapt)

    def _update_attrs(self, p):
        exclude = self._exclude_from_weight_decay_fn
        wd = 0.0 if exclude is not None and exclude(p) else self._lamb_weight_decay
        return {"beta1": self._beta1, "beta2": self._beta2, "epsilon": self._epsilon,
                "weight_decay": wd, "always_adapt": self._always_adapt}


class Adamax(Optimizer):
    type = "adamax"
    _group_hyperparameters = {"beta1": "_beta1", "beta2": "_beta2", "epsilon": "_epsilon"}
    _moment_acc_str, _inf_norm_acc_str, _beta1_pow_acc_str = "moment", "inf_norm", "beta1_pow_acc"

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 parameters=None, weight_decay=None, grad_clip=None, name=None,
                 parameter_list=None, regularization=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name,
                         parameter_list, regularization)
        # a one-value eager Tensor beta is read here: Paddle 2.0's adamax op takes the
        # betas as attributes only, and its dynamic mode converts a Tensor with float()
        self._beta1, self._beta2 = (
            self._hyperparameter(n, float(v) if isinstance(v, Tensor) else v, IN_UNIT)
            for n, v in (("beta1", beta1), ("beta2", beta2)))
        self._epsilon = self._hyperparameter("epsilon", epsilon, NON_NEGATIVE)

    def _create_accumulators(self, block, parameters):
        for p in parameters:
            self._add_accumulator(self._moment_acc_str, p)
            self._add_accumulator(self._inf_norm_acc_str, p)
            self._add_accumulator(self._beta1_pow_acc_str, p, fill_value=self._beta1, shape=[1])

    def _append_optimize_op(self, block, param_and_grad):
        p, g = param_and_grad
        m, u, b1p = (self._get_accumulator(n, p) for n in (
            self._moment_acc_str, self._inf_norm_acc_str, self._beta1_pow_acc_str))
        return block.append_op(
            type="adamax",
            inputs={"Param": [p], "Grad": [g], "LearningRate": [self._param_lr(p)],
                    "Moment": [m], "InfNorm": [u], "Beta1Pow": [b1p]},
            outputs={"ParamOut": [p], "MomentOut": [m], "InfNormOut": [u]},
            attrs={"beta1": self._beta1, "beta2": self._beta2, "epsilon": self._epsilon})

    def _finish_update(self, block, params_grads):
        """The adamax op reads beta1^t; a scale op per parameter advances it."""
        for p, g in params_grads:
            if g is None or not p.trainable:
                continue
            with block.program._optimized_guard([p, g]):
                b1p = self._get_accumulator(self._beta1_pow_acc_str, p)
                block.append_op(type="scale", inputs={"X": [b1p]}, outputs={"Out": [b1p]},
                                attrs={"scale": self._beta1})


class RMSProp(Optimizer):
    type = "rmsprop"
    _group_hyperparameters = {"rho": "_rho", "epsilon": "_epsilon", "momentum": "_momentum",
                              "centered": "_centered"}
    _momentum_acc_str, _mean_square_acc_str, _mean_grad_acc_str = \
        "momentum", "mean_square", "mean_grad"

    def __init__(self, learning_rate, rho=0.95, epsilon=1e-6, momentum=0.0, centered=False,
                 parameters=None, weight_decay=None, grad_clip=None, name=None,
                 parameter_list=None, regularization=None):
        check_set(self, learning_rate=learning_rate, rho=rho, epsilon=epsilon,
                  momentum=momentum)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name,
                         parameter_list, regularization)
        self._rho, self._epsilon, self._momentum = (
            self._hyperparameter(n, v, NON_NEGATIVE)
            for n, v in (("rho", rho), ("epsilon", epsilon), ("momentum", momentum)))
        self._centered = bool(centered)

    def _create_accumulators(self, block, parameters):
        for p in parameters:
            for name in (self._momentum_acc_str, self._mean_square_acc_str,
                         self._mean_grad_acc_str):
                self._add_accumulator(name, p)

    def _append_optimize_op(self, block, param_and_grad):
        p, g = param_and_grad
        mom, ms, mg = (self._get_accumulator(n, p) for n in (
            self._momentum_acc_str, self._mean_square_acc_str, self._mean_grad_acc_str))
        return block.append_op(
            type="rmsprop",
            inputs={"Param": [p], "Grad": [g], "Moment": [mom], "MeanSquare": [ms],
                    "MeanGrad": [mg], "LearningRate": [self._param_lr(p)]},
            outputs={"ParamOut": [p], "MomentOut": [mom], "MeanSquareOut": [ms],
                     "MeanGradOut": [mg]},
            attrs={"epsilon": self._epsilon, "decay": self._rho, "momentum": self._momentum,
                   "centered": self._centered})


class Adagrad(Optimizer):
    type = "adagrad"
    _group_hyperparameters = {"epsilon": "_epsilon", "initial_accumulator_value": "_initial"}
    _moment_acc_str = "moment"

    def __init__(self, learning_rate, epsilon=1e-6, parameters=None, weight_decay=None,
                 grad_clip=None, name=None, initial_accumulator_value=0.0,
                 parameter_list=None, regularization=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name,
                         parameter_list, regularization)
        self._epsilon = self._hyperparameter("epsilon", epsilon, NON_NEGATIVE)
        self._initial = float(initial_accumulator_value)

    def _create_accumulators(self, block, parameters):
        for p in parameters:
            self._add_accumulator(self._moment_acc_str, p, fill_value=self._initial)

    def _append_optimize_op(self, block, param_and_grad):
        p, g = param_and_grad
        m = self._get_accumulator(self._moment_acc_str, p)
        return block.append_op(type="adagrad",
                               inputs={"Param": [p], "Grad": [g], "Moment": [m],
                                       "LearningRate": [self._param_lr(p)]},
                               outputs={"ParamOut": [p], "MomentOut": [m]},
                               attrs={"epsilon": self._epsilon})


class Adadelta(Optimizer):
    """Paddle 1.8's AdadeltaOptimizer and 2.0's paddle.optimizer.Adadelta (the adadelta
    op; 2.0 names the 4th and 5th arguments parameters / weight_decay where 1.8 has
    parameter_list / regularization). As in 1.8 and 2.0 the op takes no learning rate: it
    is kept (get_lr) but does not scale the update."""
    type = "adadelta"
    _group_hyperparameters = {"epsilon": "_epsilon", "rho": "_rho"}
    _avg_squared_grad_acc_str = "_avg_squared_grad"
    _avg_squared_update_acc_str = "_avg_squared_update"

    def __init__(self, learning_rate=0.001, epsilon=1.0e-6, rho=0.95, parameters=None,
                 weight_decay=None, grad_clip=None, name=None, parameter_list=None,
                 regularization=None):
        for what, value in (("learning_rate", learning_rate), ("epsilon", epsilon),
                            ("rho", rho)):
            if value is None:
                raise ValueError("Adadelta: %s is not set." % what)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name,
                         parameter_list, regularization)
        self._epsilon, self._rho = (self._hyperparameter(n, v, NON_NEGATIVE)
                                    for n, v in (("epsilon", epsilon), ("rho", rho)))

    def _create_accumulators(self, block, parameters):
        for p in parameters:
            self._add_accumulator(self._avg_squared_grad_acc_str, p)
            self._add_accumulator(self._avg_squared_update_acc_str, p)

    def _append_optimize_op(self, block, param_and_grad):
        p, g = param_and_grad
        grad_avg = self._get_accumulator(self._avg_squared_grad_acc_str, p)
        update_avg = self._get_accumulator(self._avg_squared_update_acc_str, p)
        inputs = {"Param": [p], "Grad": [g], "AvgSquaredGrad": [grad_avg],
                  "AvgSquaredUpdate": [update_avg]}
        if versions.switch("adadelta_learning_rate") == "scales":
            inputs["LearningRate"] = [self._param_lr(p)]
        return block.append_op(
            type="adadelta",
            inputs=inputs,
            outputs={"ParamOut": [p], "AvgSquaredGradOut": [grad_avg],
                     "AvgSquaredUpdateOut": [update_avg]},
            attrs={"epsilon": self._epsilon, "rho": self._rho})


class DecayedAdagrad(Optimizer):
    """Paddle 1.8's DecayedAdagradOptimizer (the decayed_adagrad op)."""
    type = "decayed_adagrad"
    _moment_acc_str = "moment"

    def __init__(self, learning_rate, decay=0.95, epsilon=1.0e-6, parameter_list=None,
                 regularization=None, grad_clip=None, name=None):
        super().__init__(learning_rate, grad_clip=grad_clip, name=name,
                         parameter_list=parameter_list, regularization=regularization)
        self._decay, self._epsilon = float(decay), float(epsilon)

    def _create_accumulators(self, block, parameters):
        for p in parameters:
            self._add_accumulator(self._moment_acc_str, p)

    def _append_optimize_op(self, block, param_and_grad):
        p, g = param_and_grad
        m = self._get_accumulator(self._moment_acc_str, p)
        return block.append_op(type="decayed_adagrad",
                               inputs={"Param": [p], "Grad": [g], "Moment": [m],
                                       "LearningRate": [self._param_lr(p)]},
                               outputs={"ParamOut": [p], "MomentOut": [m]},
                               attrs={"decay": self._decay, "epsilon": self._epsilon})


class Ftrl(Optimizer):
    """Paddle 1.8's FtrlOptimizer (the ftrl op)."""
    type = "ftrl"
    _squared_acc_str, _linear_acc_str = "squared", "linear"

    def __init__(self, learning_rate, l1=0.0, l2=0.0, lr_power=-0.5, parameter_list=None,
                 regularization=None, grad_clip=None, name=None):
        super().__init__(learning_rate, grad_clip=grad_clip, name=name,
                         parameter_list=parameter_list, regularization=regularization)
        self._l1, self._l2, self._lr_power = float(l1), float(l2), float(lr_power)

    def _create_accumulators(self, block, parameters):
        for p in parameters:
            self._add_accumulator(self._squared_acc_str, p)
            self._add_accumulator(self._linear_acc_str, p)

    def _append_optimize_op(self, block, param_and_grad):
        p, g = param_and_grad
        squared = self._get_accumulator(self._squared_acc_str, p)
        linear = self._get_accumulator(self._linear_acc_str, p)
        return block.append_op(
            type="ftrl",
            inputs={"Param": [p], "Grad": [g], "SquaredAccumulator": [squared],
                    "LinearAccumulator": [linear], "LearningRate": [self._param_lr(p)]},
            outputs={"ParamOut": [p], "SquaredAccumOut": [squared],
                     "LinearAccumOut": [linear]},
            attrs={"l1": self._l1, "l2": self._l2, "lr_power": self._lr_power})


class Dpsgd(Optimizer):
    """Paddle 1.8's DpsgdOptimizer (the dpsgd op; its defaults are Paddle's)."""
    type = "dpsgd"

    def __init__(self, learning_rate=0.001, clip=0.9, batch_size=0.999, sigma=1e-8,
                 parameter_list=None):
        super().__init__(learning_rate, parameter_list=parameter_list)
        self._clip, self._batch_size, self._sigma = float(clip), float(batch_size), \
            float(sigma)
        # the noise's seed attr, as Paddle's: None (0) draws fresh noise each run; Paddle's
        # own tests set a fixed one to compare static and dynamic training
        self._seed = None

    def _append_optimize_op(self, block, param_and_grad):
        p, g = param_and_grad
        return block.append_op(
            type="dpsgd", inputs={"Param": [p], "Grad": [g],
                                  "LearningRate": [self._param_lr(p)]},
            outputs={"ParamOut": [p]},
            attrs={"clip": self._clip, "batch_size": self._batch_size, "sigma": self._sigma,
                   "seed": self._seed or 0})
