"""Optimizer base: backward + (clip, regularize) + one update op per parameter.

Subclasses declare their accumulators in `_create_accumulators` and append their
update op in `_append_optimize_op`; everything else (learning-rate variable,
accumulator naming `<param>_<name>_0`, op roles, startup initialization) is here.

Given eager parameters (dynamic mode) the same code runs the update ops now on the
parameters' values: `step()` hands `_append_optimize_op` the eager block, whose
append_op runs each op (specs/dygraph.md#optimizers).
"""
import contextlib
import math
import numbers

import numpy as np

from .. import backward as _backward
from .. import versions
from ..framework import mode
from ..framework.dtypes import get_default_dtype, to_numpy_dtype
from ..dygraph.tensor import EAGER_BLOCK, Tensor, on_place_of
from ..framework import unique_name
from ..framework.program import (OpRole, Parameter, Variable, current_device,
                                 default_main_program, default_startup_program, name_scope,
                                 program_guard)
from ..framework.errors import LayerAssertionError
from ..framework.initializer import add_init_op, filled_value
from ..framework.selected_rows import static_sparse_gradients
from ..framework.regularizer import L2Decay, WeightDecayRegularizer, append_regularization_ops
from ..ops.registry import round_float32_attrs
from ..ops.selected_rows import SPARSE_UPDATES, mark_sparse_gradients, sparse_gradients
from ..dygraph.learning_rate_decay import LearningRateDecay
from ..dygraph.tracer import layout
from .clip import _Clip, clip_by_param_attrs, error_clip_callback
from .lr import LRScheduler

__all__ = ["Optimizer", "SGD"]


# what a hyperparameter may be, beyond a finite float: (test, the words for the message)
IN_UNIT = (lambda v: 0.0 <= v < 1.0, "in [0, 1)")
NON_NEGATIVE = (lambda v: v >= 0.0, ">= 0")


def real_hyperparameter(owner, name, value, rule=None):
    """`value` as a float: a real number (not a bool), finite, and meeting `rule` (IN_UNIT,
    NON_NEGATIVE) when given; otherwise a TypeError / ValueError naming `owner` and `name`."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError("%s: %s must be a float, got %s %r"
                        % (owner, name, type(value).__name__, value))
    value = float(value)
    test, words = rule or (lambda v: True, "finite")
    if not math.isfinite(value) or not test(value):
        raise ValueError("%s: %s must be %s, got %r" % (owner, name, words, value))
    return value


def check_set(optimizer, **hyperparameters):
    """SGD's, Momentum's and RMSProp's hyperparameters may not be None: 2.0 (and 3.3.1)
    raise ValueError "... is not set", 1.8 asserts (1.8.5 measured for SGD)."""
    for arg, value in hyperparameters.items():
        if value is None:
            raise LayerAssertionError("%s: %s is not set" % (type(optimizer).__name__, arg))


class Optimizer:
    type = None
    # fluid.optimizer's classes (refimpl/fluid/optimizer.py) take a learning-rate Variable
    # or a 1.8 LearningRateDecay too; from 2.0 paddle.optimizer's take a float or an
    # LRScheduler only (switch paddle_optimizer_lr_types)
    _fluid_api = False

    def __init__(self, learning_rate=0.001, parameters=None, weight_decay=None,
                 grad_clip=None, name=None, parameter_list=None, regularization=None):
        if not isinstance(learning_rate, (numbers.Number, Variable, LearningRateDecay)) and \
                not hasattr(learning_rate, "_var_name"):
            raise TypeError("learning_rate must be a float, a Variable, an LRScheduler or a "
                            "1.8 LearningRateDecay, got %s" % type(learning_rate).__name__)
        if not self._fluid_api and \
                versions.switch("paddle_optimizer_lr_types") == "float_or_scheduler" and \
                not isinstance(learning_rate, (float, LRScheduler)):
            raise TypeError("learning rate should be float or LRScheduler, got %s here"
                            % type(learning_rate))
        if isinstance(learning_rate, numbers.Number):
            learning_rate = self._hyperparameter("learning_rate", learning_rate)
        self._learning_rate = learning_rate
        reg = weight_decay if weight_decay is not None else regularization
        self.regularization = _regularizer(reg)
        if grad_clip is not None and not isinstance(grad_clip, _Clip):
            raise TypeError("grad_clip must be a gradient clip (GradientClipByValue / "
                            "ByNorm / ByGlobalNorm, paddle.nn.ClipGradBy*), got %s"
                            % type(grad_clip).__name__)
        self._grad_clip = grad_clip
        self._name = name
        self._accumulators = {}      # accumulator name -> {param name: Variable}
        self._opti_name_list = []    # the accumulators' variable names, as made
        self._lr_vars = {}           # id(program) -> learning-rate Variable
        self._startup_program = None
        params = parameters if parameters is not None else parameter_list
        self._param_groups = _param_groups(params, self._group_hyperparameters)
        self._parameter_list = None if params is None else \
            [p for group in self._param_groups for p in group["params"]]
        # eager: the parameters are Tensors, and step() updates their values
        self._eager = self._parameter_list is not None and any(
            isinstance(p, Tensor) for p in self._parameter_list)
        self._accumulators_holder = {}   # set_state_dict values for accumulators not yet made
        # the dtype of the learning rate (_lr_dtype): a static minimize's loss's, or under
        # Paddle 3 the first parameter's (switch optimizer_dtype_from_parameters)
        self._dtype = self._parameter_list[0].dtype if self._parameter_list and \
            versions.switch("optimizer_dtype_from_parameters") else None
        self._eager_lr = None            # the value the eager learning-rate tensor holds
        self._eager_lr_from = None       # the constant rate (a float) it was set from
        self._eager_lr_held = False      # in a step, after its rate was set: keep it

    # -- learning rate
    def _global_learning_rate(self, program=None):
        if self._eager:
            return self._lr_vars.get("eager")
        program = program or default_main_program()
        return self._lr_vars.get(id(program))

    def _lr_dtype(self):
        """The learning-rate tensor's dtype, as Paddle makes it (release/2.0's optimizer.py):
        the loss's in a static minimize, else float32 for fluid.optimizer's classes and the
        default dtype (paddle.set_default_dtype) for paddle.optimizer's. A float64 run then
        steps with lr 0.01, not float32(0.01). Paddle 3 makes a float16 one float32 (unless
        float16 is the default dtype)."""
        if self._dtype is not None:
            if versions.switch("optimizer_dtype_from_parameters") and \
                    self._dtype.name == "float16" and get_default_dtype() != "float16":
                return "float32"
            return self._dtype.name
        return "float32" if self._fluid_api else get_default_dtype()

    def _create_global_learning_rate(self):
        if self._eager:     # a [1] tensor holding this step's value
            lr = self._lr_vars.get("eager")
            if lr is None:
                lr = self._lr_vars["eager"] = Tensor(np.zeros([1], self._lr_dtype()),
                                                     name=unique_name.generate("learning_rate"))
            decay = self._learning_rate
            if self._eager_lr_held or type(decay) is float and decay == self._eager_lr_from:
                return lr     # this step's rate, or a constant one, already there
            # a 1.8 decay advances once per minimize / step (1.8.5), not once per update
            # of a param group
            # (Paddle makes it with a fill_constant initializer, as in a static program)
            rate = decay._advance() if isinstance(decay, LearningRateDecay) else self.get_lr()
            value = np.array([filled_value(rate)], lr._array().dtype)
            if self._eager_lr != value[0]:
                # where the parameters are: one copy to a GPU per change, not per update
                param = next((p for p in self._parameter_list if isinstance(p, Tensor)), None)
                lr._value = on_place_of(param._array(), value)
                self._eager_lr = value[0]
            self._eager_lr_from = decay if type(decay) is float else None
            return lr
        program = default_main_program()
        if id(program) in self._lr_vars:
            return self._lr_vars[id(program)]
        lr = self._learning_rate
        if isinstance(lr, LearningRateDecay):
            raise TypeError("%s: %s is one of Paddle 1.8's dygraph learning-rate decays; in a "
                            "static program use fluid.layers' decays (e.g. "
                            "fluid.layers.piecewise_decay) or a paddle.optimizer.lr scheduler"
                            % (type(self).__name__, type(lr).__name__))
        if isinstance(lr, Variable):
            if lr.block.program is not program:
                raise ValueError("%s: the learning_rate Variable %r belongs to another program "
                                 "(build the decay inside the program's program_guard)"
                                 % (type(self).__name__, lr.name))
            var = lr
        else:
            var = program.global_block().create_var(
                name=unique_name.generate("learning_rate"), shape=[1], dtype=self._lr_dtype(),
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
        block = self._block()
        out = block.create_var(name=unique_name.generate(param.name + "_lr"), shape=[1],
                               dtype=lr.dtype)
        block.append_op(type="scale", inputs={"X": [lr]}, outputs={"Out": [out]},
                        attrs={"scale": float(factor)})
        return out

    def _create_param_lr(self, param_and_grad):
        """_param_lr under Paddle's name and signature, for subclasses that write their own
        _append_optimize_op (Paddle 2.0's test_lambv2_op does)."""
        return self._param_lr(param_and_grad[0])

    def get_lr(self):
        lr = self._learning_rate
        if isinstance(lr, LearningRateDecay):
            return lr.current()
        if isinstance(lr, Tensor):
            return float(lr._array().reshape(-1)[0])
        return float(lr()) if hasattr(lr, "_var_name") else float(lr) \
            if isinstance(lr, numbers.Number) else lr

    def current_step_lr(self):
        """Paddle 1.8: the rate the last minimize / step used (before the first, the rate
        the first will use)."""
        last = self._lr_vars.get("eager")
        return float(last._array().reshape(-1)[0]) if self._eager and last is not None \
            else self.get_lr()

    def set_lr(self, value):
        if hasattr(self._learning_rate, "_var_name") or \
                isinstance(self._learning_rate, LearningRateDecay):
            raise RuntimeError("set_lr: the learning rate is an LRScheduler; step it instead")
        if self._fluid_api and isinstance(value, Variable):
            # Paddle 2.0's fluid.optimizer: the steps after read the Variable's value
            if list(value.shape) != [1]:
                raise AssertionError("%s: set_lr's Variable %r must have shape [1], got %s"
                                     % (type(self).__name__, value.name, list(value.shape)))
            self._learning_rate = value
            return
        value = self._hyperparameter("set_lr's value", value)
        self._learning_rate = value
        from ..framework.scope import global_scope
        for var in self._lr_vars.values():
            global_scope().var(var.name).get_tensor().set(
                np.array([value], to_numpy_dtype(var.dtype)))

    def set_lr_scheduler(self, scheduler):
        """Paddle 2.2+: the learning rate becomes `scheduler` (an LRScheduler; TypeError in
        3.3.1's words otherwise), replacing a float or an earlier scheduler."""
        if not isinstance(scheduler, LRScheduler):
            raise TypeError("The type of 'scheduler' in optimizer.set_lr_scheduler must be "
                            "LRScheduler, but received %s." % type(scheduler))
        self._learning_rate = scheduler

    def _hyperparameter(self, name, value, rule=None):
        return real_hyperparameter(type(self).__name__, name, value, rule)

    # -- accumulators
    def _add_accumulator(self, name, param, fill_value=0.0, shape=None, dtype=None,
                         device=None):
        """The accumulator `name` of `param`, made (and initialized in the startup program,
        its op placed on `device` as Paddle's device_guard places it) the first time."""
        per_param = self._accumulators.setdefault(name, {})
        if param.name in per_param:
            return per_param[param.name]
        if self._eager:
            value = np.full(list(shape if shape is not None else param.shape),
                            filled_value(fill_value), dtype=_np_dtype(dtype or param.dtype))
            var = Tensor(on_place_of(param._array(), value),    # on the parameter's GPU
                         name=unique_name.generate(param.name + "_" + name), persistable=True)
            held = self._accumulators_holder.pop(var.name, None)
            if held is not None:
                var.set_value(held)
            per_param[param.name] = var
            self._opti_name_list.append(var.name)
            return var
        block = default_main_program().global_block()
        var = block.create_var(name=unique_name.generate(param.name + "_" + name),
                               shape=list(shape if shape is not None else param.shape),
                               dtype=dtype or param.dtype, persistable=True, stop_gradient=True)
        with current_device(device):
            self._init_in_startup(var, fill_value)
        per_param[param.name] = var
        self._opti_name_list.append(var.name)
        return var

    def get_opti_var_name_list(self):
        """The names of the accumulators made so far, in the order they were made."""
        return self._opti_name_list

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
        if callbacks is None:     # as Paddle 1.8: Variable.error_clip takes effect
            callbacks = [error_clip_callback]
        return _backward.append_backward(loss, params, no_grad_set, callbacks)

    def apply_gradients(self, params_grads):
        params_grads = sorted(params_grads, key=lambda pg: pg[0].name)
        sparse = not self._eager and static_sparse_gradients()
        raw = [g for _, g in params_grads if g is not None]
        if sparse and raw:
            made = {g.name for g in sparse_gradients(raw[0].block, raw)}
            self._check_sparse_gradients([(g.name, p.name) for p, g in params_grads
                                          if g is not None and g.name in made])
        if self._grad_clip is not None:
            params_grads = self._grad_clip(params_grads)
        else:     # 1.8's fluid.clip.set_gradient_clip (the optimizer's grad_clip wins)
            params_grads = clip_by_param_attrs(params_grads)
        params_grads = self._regularize(params_grads, self.regularization)
        ops = self._create_optimization_pass(params_grads)
        if sparse:      # (the raw gradients: clipping passes a SelectedRows on)
            mark_sparse_gradients(self._block(), raw)
        return ops

    def apply_optimize(self, loss, startup_program, params_grads):
        program = loss.block.program
        with program_guard(program, startup_program or default_startup_program()):
            self._startup_program = startup_program
            return self.apply_gradients(params_grads)

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None,
                 parameter_list=None):
        if self._eager or isinstance(loss, Tensor):
            # dynamic mode, as Paddle: the gradients come from loss.backward(), called before
            self._check_eager("minimize")
            # as Paddle 1.8.5 and 2.0: the gradients before clipping and regularization
            params = parameters if parameters is not None else parameter_list
            return None, self._step(params)[0]
        if not isinstance(loss, Variable):
            raise TypeError("minimize: loss must be a Variable, got %s" % type(loss).__name__)
        params = parameters if parameters is not None else parameter_list
        if self._dtype is None or not versions.switch("optimizer_dtype_from_parameters"):
            self._dtype = loss.dtype
        params_grads = self.backward(loss, startup_program, params, no_grad_set)
        optimize_ops = self.apply_optimize(loss, startup_program, params_grads)
        return optimize_ops, params_grads

    def _create_optimization_pass(self, params_grads):
        block = self._block()
        start = len(block.ops)
        with block.program._role_guard(OpRole.Optimize):
            # the learning rate's initializer before the accumulators' in the startup
            # program: Paddle 1.8 / 2.0 make the accumulators first and prepend their
            # initializers, 3.x makes the learning rate first and appends (switch
            # startup_init_order)
            lr_first = versions.switch("startup_init_order") != "prepend"
            if lr_first:
                self._create_global_learning_rate()
            self._create_accumulators(block, [p for p, g in params_grads if g is not None])
            if not lr_first:
                self._create_global_learning_rate()
        for param, grad in params_grads:
            if grad is None or not param.trainable:
                continue
            # each parameter's update in its own name scope, /optimizer/, /optimizer_1/,
            # ... (Paddle 1.8.5 and 3.3.1)
            with block.program._optimized_guard([param, grad]), \
                    self._update_name_scope():
                self._append_optimize_op(block, (param, grad))
        with block.program._role_guard(OpRole.Optimize):
            self._finish_update(block, params_grads)
        return block.ops[start:]

    def _finish_update(self, block, params_grads):
        pass

    def _update_name_scope(self):
        return contextlib.nullcontext() if self._eager else name_scope("optimizer")

    def _block(self):
        """Where update ops go: the eager block (run now) or the main program's current
        block (a cond branch's when minimize is called there, as Paddle 1.8's: the
        updates run when the branch runs)."""
        return EAGER_BLOCK if self._eager else default_main_program().current_block()

    # -- dynamic mode
    def _check_eager(self, what):
        """Eager updates need eager parameters. (Without parameters= the optimizer is
        accepted in dynamic mode too, unlike Paddle 2.0's: a fluid program may be built
        after it, specs/dygraph.md#mode-rules.)"""
        if self._parameter_list is None and mode.dynamic:
            raise AttributeError("%s.%s(): in dynamic mode pass parameters= (e.g. "
                                 "model.parameters()) when making the optimizer: it updates "
                                 "those" % (type(self).__name__, what))
        if not self._eager:
            raise RuntimeError("%s.%s() updates eager parameters (dynamic mode, parameters= "
                               "given); in static mode call minimize(loss) and run the "
                               "program" % (type(self).__name__, what))

    @mode.no_grad()
    def step(self, parameters=None):
        """Update every trainable parameter that has a gradient (from loss.backward()):
        clip, regularize (a param group's weight_decay, else the optimizer's), then run
        this optimizer's update op on the parameter's value. Returns [(param, grad)]."""
        return self._step(parameters)[1]

    def _step(self, parameters):
        """step(): ([(param, gradient)], [(param, the gradient it was updated with)])."""
        self._check_eager("step")
        chosen = None if parameters is None else {id(p) for p in parameters}
        params_grads, decay = [], {}
        for group in self._param_groups:
            for p in group["params"]:
                if p.trainable and not p.stop_gradient and p._grad is not None \
                        and (chosen is None or id(p) in chosen):
                    params_grads.append((p, Tensor(p._grad)))
                    if "weight_decay" in group:
                        decay[id(p)] = _regularizer(group["weight_decay"])
        params_grads.sort(key=lambda pg: pg[0].name)
        raw = params_grads
        if self._grad_clip is not None:
            params_grads = self._grad_clip(params_grads)
        clipped = params_grads
        if decay:    # param groups' own weight_decay
            params_grads = [self._regularize([pg], decay.get(id(pg[0]), self.regularization))[0]
                            for pg in params_grads]
        else:
            params_grads = self._regularize(params_grads, self.regularization)
        self._create_global_learning_rate()     # this step's rate, for every update below
        self._eager_lr_held = True
        try:
            params_grads = self._update_sparse(raw, clipped, params_grads)
            for values, group_pgs in self._by_group_hyperparameters(params_grads):
                with self._hyperparameters_set(values):
                    if not self._update_directly(group_pgs):
                        self._create_optimization_pass(group_pgs)
        finally:
            self._eager_lr_held = False
        return raw, params_grads

    def _regularize(self, params_grads, regularization):
        """The pairs with each parameter's weight decay added to its gradient (its own
        regularizer, else `regularization`: the optimizer's or its param group's)."""
        return append_regularization_ops(params_grads, regularization)

    def append_regularization_ops(self, parameters_and_grads, regularization=None):
        """Paddle 2.0's and 3's public method: the pairs with each parameter's own
        regularizer's term (else `regularization`'s) summed into its gradient, as ops."""
        return append_regularization_ops(parameters_and_grads, regularization)

    # a param group's own values of the optimizer's hyperparameters, as Paddle 3's
    # _default_dict: {group key: the attribute holding it}
    _group_hyperparameters = {}

    @property
    def _param_groups(self):
        return self._groups

    @_param_groups.setter
    def _param_groups(self, groups):
        self._groups = groups
        self._group_values = None       # made again from these groups on the next step

    def _by_group_hyperparameters(self, params_grads):
        """[(a group's hyperparameter values, its (param, grad) pairs)] in the pairs' order:
        one item for all when no group sets one (Paddle 3 updates group by group, each
        with its values set: the update ops and the accumulators' initial values)."""
        if self._group_values is None:     # {id(param): its group's values}, once
            keys = self._group_hyperparameters
            self._group_values = {id(p): {k: g[k] for k in keys if k in g}
                                  for g in self._param_groups if any(k in g for k in keys)
                                  for p in g["params"]}
        value_of = self._group_values
        if not value_of:
            return [({}, params_grads)]
        runs = []
        for pg in params_grads:
            values = value_of.get(id(pg[0]), {})
            if runs and runs[-1][0] == values:
                runs[-1][1].append(pg)
            else:
                runs.append((values, [pg]))
        return runs

    @contextlib.contextmanager
    def _hyperparameters_set(self, values):
        """Set a param group's hyperparameters (attribute by attribute) for the block."""
        attrs = self._group_hyperparameters
        saved = {k: getattr(self, attrs[k]) for k in values}
        try:
            for k, v in values.items():
                setattr(self, attrs[k], v)
            yield
        finally:
            for k, v in saved.items():
                setattr(self, attrs[k], v)

    # (param, grad array, rows): apply a gradient Paddle keeps as a SelectedRows of `rows`
    # where its update differs from the dense one (Adam)
    _update_rows = None
    # the RuntimeError Paddle 2.x / 3's optimizer raises for such a gradient when it has a
    # weight_decay (Adam; the switch sparse_weight_decay)
    _sparse_decay_error = None

    def _update_sparse(self, raw, clipped, params_grads):
        """Apply the gradients Paddle keeps as SelectedRows (an is_sparse embedding's,
        autograd's _grad_rows) where that changes the update (`_update_rows`); the pairs
        left for the dense update. `raw`, `clipped`: the pairs before clipping and before
        regularization. Clipping keeps the rows (Paddle clips the SelectedRows' values;
        zeros stay zeros, the norms are the dense ones); regularization makes the gradient
        dense (Paddle adds the dense decay to it). An optimizer Paddle runs on no
        SelectedRows: TypeError."""
        listed = {id(p): p._grad_rows for p, _ in raw if p._grad_rows is not None}
        if not listed:
            return params_grads
        self._check_sparse_gradients([(p.name + "@GRAD", p.name) for p, _ in raw
                                      if id(p) in listed])
        if self._sparse_decay_error and self.regularization is not None and \
                versions.switch("sparse_weight_decay") == "refused":
            raise RuntimeError(self._sparse_decay_error)
        if self._update_rows is None:
            return params_grads
        unregularized = {id(g) for _, g in clipped}
        dense = []
        for p, g in params_grads:
            if id(p) in listed and id(g) in unregularized:
                self._update_rows(p, g._array(), listed[id(p)])
            else:
                dense.append((p, g))
        return dense

    def _check_sparse_gradients(self, grads):
        """[(gradient name, parameter name)] of gradients Paddle keeps as SelectedRows:
        TypeError unless this optimizer's op takes them (SPARSE_UPDATES)."""
        if grads and self.type not in SPARSE_UPDATES:
            raise TypeError(
                "%s: the gradient %r of parameter %r is a SelectedRows (an is_sparse / "
                "sparse embedding's): Paddle's %s op takes only a dense gradient (1.8.5: "
                "\"The input var's type should be LoDTensor\"); use a dense embedding or "
                "one of SGD, Momentum, Adam, Adagrad, RMSProp, Lamb"
                % (type(self).__name__, grads[0][0], grads[0][1], self.type))

    # (fn, param, grad array, learning-rate array, attrs): call the update op's kernel `fn`
    # on the parameter's (and its accumulators') values and keep its results; optimizers
    # with one (SGD, Momentum, the Adam family) update without an op per parameter
    _run_update = None

    def _update_attrs(self, param):
        """The attrs of `param`'s update op."""
        return {}

    def _update_directly(self, params_grads):
        """Call the update op's kernel on each parameter's value in one loop, as PyTorch's
        foreach optimizers do: the same update without the tracer's per-op work. The op
        path's shape checks hold by construction here: host parameters, gradients of their
        shape and dtype, accumulators made like them, the global learning rate unscaled;
        else (or without `_run_update`) False: nothing done, the ops run."""
        if self._run_update is None or not self._direct_ok():
            return False
        for p, g in params_grads:
            v, gv = p._value, g._value
            if type(v) is not np.ndarray or type(gv) is not np.ndarray or \
                    v.shape != gv.shape or v.dtype != gv.dtype or \
                    p.optimize_attr.get("learning_rate", 1.0) != 1.0:
                return False
        self._create_accumulators(self._block(), [p for p, _ in params_grads])
        lr = self._create_global_learning_rate()._value
        lay, found = layout(self.type), {}
        attrs_of, run = self._update_attrs, self._run_update
        for p, g in params_grads:
            given, v = attrs_of(p), p._value
            key = (v.dtype.char, *given.values()) if given else v.dtype.char
            kernel = found.get(key)
            if kernel is None:
                attrs = round_float32_attrs(   # as the tracer's
                    lay.op_def, {k: given.get(k, d) for k, d in lay.attr_items}, eager=True)
                kernel = found[key] = (lay.kernels.get(attrs, v.dtype)[0], attrs)
            run(kernel[0], p, g._value, lr, kernel[1])
        return True

    def _direct_ok(self):
        """Whether this optimizer's settings allow `_run_update`."""
        return True

    def clear_grad(self, set_to_zero=True):
        """Forget the parameters' gradients (dynamic mode; nothing to do in static mode,
        where gradients are temporaries of each run)."""
        for p in self._parameter_list or ():
            if isinstance(p, Tensor):
                p.clear_grad(set_to_zero)

    clear_gradients = clear_grad

    def state_dict(self):
        """{accumulator name: Tensor} (e.g. 'linear_0.w_0_moment1_0'), plus the LR
        scheduler's state under 'LR_Scheduler' when the learning rate is one."""
        state = {}
        for per_param in self._accumulators.values():
            for var in per_param.values():
                state[var.name] = var
        if hasattr(self._learning_rate, "state_dict"):
            state["LR_Scheduler"] = self._learning_rate.state_dict()
        return state

    def set_state_dict(self, state_dict):
        """Load what state_dict() returned (values may be Tensors or arrays); accumulators
        not created yet take their value when the first step creates them."""
        state = dict(state_dict)
        sched = state.pop("LR_Scheduler", None)
        if sched is not None and hasattr(self._learning_rate, "set_state_dict"):
            self._learning_rate.set_state_dict(sched)
        for per_param in self._accumulators.values():
            for var in per_param.values():
                if var.name in state:
                    value = state.pop(var.name)
                    if isinstance(var, Tensor):
                        var.set_value(value)
        self._accumulators_holder = state

    set_dict = set_state_dict


def _np_dtype(dtype):
    from ..framework.dtypes import to_numpy_dtype
    return to_numpy_dtype(dtype)


def _regularizer(reg):
    """weight_decay / regularization: None, a coefficient (L2Decay's) or a regularizer."""
    if reg is None or isinstance(reg, WeightDecayRegularizer):
        return reg
    return L2Decay(real_hyperparameter("optimizer", "weight_decay", reg))


def _param_groups(params, hyperparameters=()):
    """[{'params': [...], optional 'learning_rate', 'weight_decay' and the optimizer's
    `hyperparameters`}] from a list of parameters or of such dicts (param groups). A
    group's learning_rate multiplies the optimizer's for its parameters (it becomes their
    optimize_attr)."""
    if params is None:
        return []
    params = list(params)
    if not params or not isinstance(params[0], dict):
        groups = [{"params": params}]
    else:
        groups = []
        for g in params:
            if not isinstance(g, dict) or "params" not in g:
                raise TypeError("optimizer parameters: a list of parameters, or of dicts with "
                                "a 'params' list (param groups); got %r" % (g,))
            known = ["params", "learning_rate", "weight_decay", *hyperparameters]
            unknown = set(g) - set(known)
            if unknown:     # (Paddle 3.3.1 ignores them)
                raise KeyError("optimizer param group: unknown keys %s (known: %s)"
                               % (sorted(unknown), ", ".join(known)))
            g = dict(g, params=list(g["params"]))
            if "learning_rate" in g:
                for p in g["params"]:
                    p.optimize_attr = dict(p.optimize_attr, learning_rate=float(g["learning_rate"]))
            groups.append(g)
    for g in groups:
        for p in g["params"]:
            if not isinstance(p, (Parameter, str)):
                raise TypeError("optimizer parameters must be Parameters (e.g. "
                                "layer.parameters()), got %s %r"
                                % (type(p).__name__, getattr(p, "name", p)))
    return groups


class SGD(Optimizer):
    type = "sgd"

    def __init__(self, learning_rate=0.001, parameters=None, weight_decay=None,
                 grad_clip=None, name=None, parameter_list=None, regularization=None):
        check_set(self, learning_rate=learning_rate)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name,
                         parameter_list, regularization)

    def _run_update(self, fn, p, g, lr, attrs):    # (the sgd op has no attrs)
        p._value = fn(p._value, lr, g)

    def _append_optimize_op(self, block, param_and_grad):
        param, grad = param_and_grad
        return block.append_op(type="sgd", inputs={"Param": [param], "Grad": [grad],
                                                   "LearningRate": [self._param_lr(param)]},
                               outputs={"ParamOut": [param]})
