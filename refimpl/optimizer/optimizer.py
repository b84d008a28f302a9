"""Optimizer base: backward + (clip, regularize) + one update op per parameter.

Subclasses declare their accumulators in `_create_accumulators` and append their
update op in `_append_optimize_op`; everything else (learning-rate variable,
accumulator naming `<param>_<name>_0`, op roles, startup initialization) is here.
"""
import numbers

import numpy as np

from .. import backward as _backward
from ..framework import unique_name
from ..framework.program import (OpRole, Variable, default_main_program,
                                 default_startup_program, program_guard)
from ..framework.initializer import add_init_op
from ..framework.regularizer import L2Decay, append_regularization_ops

__all__ = ["Optimizer", "SGD"]


class Optimizer:
    type = None

    def __init__(self, learning_rate=0.001, parameters=None, weight_decay=None,
                 grad_clip=None, name=None, parameter_list=None, regularization=None):
        if not isinstance(learning_rate, (numbers.Number, Variable)) and \
                not hasattr(learning_rate, "_var_name"):
            raise TypeError("learning_rate must be a float, a Variable or an LRScheduler, "
                            "got %s" % type(learning_rate).__name__)
        self._learning_rate = learning_rate
        self._parameter_list = parameters if parameters is not None else parameter_list
        reg = weight_decay if weight_decay is not None else regularization
        self.regularization = L2Decay(reg) if isinstance(reg, numbers.Number) else reg
        self._grad_clip = grad_clip
        self._name = name
        self._accumulators = {}      # accumulator name -> {param name: Variable}
        self._lr_vars = {}           # id(program) -> learning-rate Variable
        self._startup_program = None

    # -- learning rate
    def _global_learning_rate(self, program=None):
        program = program or default_main_program()
        return self._lr_vars.get(id(program))

    def _create_global_learning_rate(self):
        program = default_main_program()
        if id(program) in self._lr_vars:
            return self._lr_vars[id(program)]
        lr = self._learning_rate
        if isinstance(lr, Variable):
            if lr.block.program is not program:
                raise ValueError("%s: the learning_rate Variable %r belongs to another program "
                                 "(build the decay inside the program's program_guard)"
                                 % (type(self).__name__, lr.name))
            var = lr
        else:
            var = program.global_block().create_var(
                name=unique_name.generate("learning_rate"), shape=[1], dtype="float32",
                persistable=True, stop_gradient=True)
            if hasattr(lr, "_var_name"):      # an LRScheduler: the executor feeds it
                lr._var_name = var.name
                program.lr_scheduler = lr
                value = float(lr())
            else:
                value = float(lr)
            self._init_in_startup(var, value)
        self._lr_vars[id(program)] = var
        return var

    def _init_in_startup(self, var, value):
        startup = (self._startup_program or default_startup_program()).global_block()
        startup.create_var(name=var.name, shape=var.shape, dtype=var.dtype, persistable=True)
        add_init_op(startup, "fill_constant", {"Out": [var.name]},
                    {"shape": list(var.shape), "dtype": var.dtype.name, "value": float(value)})

    def _param_lr(self, param):
        """The global learning rate times the parameter's own lr multiplier."""
        lr = self._global_learning_rate()
        factor = param.optimize_attr.get("learning_rate", 1.0)
        if factor == 1.0:
            return lr
        block = default_main_program().global_block()
        out = block.create_var(name=unique_name.generate(param.name + "_lr"), shape=[1],
                               dtype="float32")
        block.append_op(type="scale", inputs={"X": [lr]}, outputs={"Out": [out]},
                        attrs={"scale": float(factor)})
        return out

    def get_lr(self):
        lr = self._learning_rate
        return float(lr()) if hasattr(lr, "_var_name") else float(lr) \
            if isinstance(lr, numbers.Number) else lr

    def set_lr(self, value):
        if hasattr(self._learning_rate, "_var_name"):
            raise RuntimeError("set_lr: the learning rate is an LRScheduler; step it instead")
        self._learning_rate = float(value)
        from ..framework.scope import global_scope
        for var in self._lr_vars.values():
            global_scope().var(var.name).get_tensor().set(np.array([value], np.float32))

    # -- accumulators
    def _add_accumulator(self, name, param, fill_value=0.0, shape=None, dtype=None):
        per_param = self._accumulators.setdefault(name, {})
        if param.name in per_param:
            return per_param[param.name]
        block = default_main_program().global_block()
        var = block.create_var(name=unique_name.generate(param.name + "_" + name),
                               shape=list(shape if shape is not None else param.shape),
                               dtype=dtype or param.dtype, persistable=True, stop_gradient=True)
        self._init_in_startup(var, fill_value)
        per_param[param.name] = var
        return var

    def _get_accumulator(self, name, param):
        return self._accumulators[name][param.name]

    def _create_accumulators(self, block, parameters):
        pass

    def _append_optimize_op(self, block, param_and_grad):
        raise NotImplementedError

    # -- the three phases
    def backward(self, loss, startup_program=None, parameter_list=None, no_grad_set=None,
                 callbacks=None):
        self._startup_program = startup_program
        params = parameter_list if parameter_list is not None else self._parameter_list
        return _backward.append_backward(loss, params, no_grad_set, callbacks)

    def apply_gradients(self, params_grads):
        params_grads = sorted(params_grads, key=lambda pg: pg[0].name)
        if self._grad_clip is not None:
            params_grads = self._grad_clip(params_grads)
        params_grads = append_regularization_ops(params_grads, self.regularization)
        return self._create_optimization_pass(params_grads)

    def apply_optimize(self, loss, startup_program, params_grads):
        program = loss.block.program
        with program_guard(program, startup_program or default_startup_program()):
            self._startup_program = startup_program
            return self.apply_gradients(params_grads)

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None,
                 parameter_list=None):
        if not isinstance(loss, Variable):
            raise TypeError("minimize: loss must be a Variable, got %s" % type(loss).__name__)
        params = parameters if parameters is not None else parameter_list
        params_grads = self.backward(loss, startup_program, params, no_grad_set)
        optimize_ops = self.apply_optimize(loss, startup_program, params_grads)
        return optimize_ops, params_grads

    def _create_optimization_pass(self, params_grads):
        program = default_main_program()
        block = program.global_block()
        start = len(block.ops)
        with program._role_guard(OpRole.Optimize):
            self._create_global_learning_rate()
            self._create_accumulators(block, [p for p, g in params_grads if g is not None])
        for param, grad in params_grads:
            if grad is None or not param.trainable:
                continue
            with program._optimized_guard([param, grad]):
                self._append_optimize_op(block, (param, grad))
        with program._role_guard(OpRole.Optimize):
            self._finish_update(block, params_grads)
        return block.ops[start:]

    def _finish_update(self, block, params_grads):
        pass

    def clear_grad(self):
        pass

    clear_gradients = clear_grad


class SGD(Optimizer):
    type = "sgd"

    def _append_optimize_op(self, block, param_and_grad):
        param, grad = param_and_grad
        return block.append_op(type="sgd", inputs={"Param": [param], "Grad": [grad],
                                                   "LearningRate": [self._param_lr(param)]},
                               outputs={"ParamOut": [param]})
