"""Paddle 1.8's averages of the parameters over training, for evaluation:
ExponentialMovingAverage and ModelAverage (fluid.optimizer). Both append their update ops
to the main program (in the optimize role) and keep their sums in persistable variables;
apply(executor) swaps the averages into the parameters (a context manager that restores
them after, unless need_restore=False); specs/fluid_moving_average.md."""
import contextlib


from ..framework import mode, unique_name
from ..framework.program import OpRole, Program, default_main_program, program_guard

__all__ = ["ExponentialMovingAverage", "ModelAverage"]


def _averaged_parameters():
    return [p for p in default_main_program().global_block().all_parameters()
            if p.do_model_average is not False]


def _clone(block, var):
    """`var` declared in another program's block (the same scope variable)."""
    return block.create_var(name=var.name, shape=var.shape, dtype=var.dtype,
                            persistable=True)


class _ParameterSwap:
    """apply / restore: programs that save each parameter to a backup and write the
    average in, and that copy the backup back."""

    def _build_restore(self, pairs):
        from . import layers
        self.restore_program = Program()
        with program_guard(self.restore_program):
            block = self.restore_program.global_block()
            for param, backup in pairs:
                layers.assign(_clone(block, backup), output=_clone(block, param))

    @contextlib.contextmanager
    def apply(self, executor, need_restore=True):
        executor.run(self.apply_program)
        try:
            yield
        finally:
            if need_restore:
                self.restore(executor)

    def restore(self, executor):
        executor.run(self.restore_program)


class ExponentialMovingAverage(_ParameterSwap):
    """ema = decay ema + (1 - decay) param after each step (update() appends those ops;
    call it after minimize). With thres_steps (a float step Variable) the decay is
    min(decay, (thres_steps + 1) / (thres_steps + 10)); an integer thres_steps leaves it
    at decay, as Paddle 1.8.5 (which divides in integers). apply() writes
    ema / (1 - decay^t) (t = the number of updates, the decay its last value) into the
    parameters; with t = 0 the ema itself (zeros), as Paddle 1.8."""

    def __init__(self, decay=0.999, thres_steps=None, name=None):
        if mode.dynamic:
            raise Exception("In dygraph, don't support ExponentialMovingAverage.")
        from . import layers
        self._decay = decay
        self._thres_steps = thres_steps
        self._name = name if name is not None else ""
        self._step_counter_name = "@EMA_STEP_COUNTER@"
        self._decay_var = self._scheduled_decay()
        main = default_main_program()
        self._params_tmps = []
        self._ema_vars = {}
        with main._role_guard(OpRole.Optimize):
            for param in _averaged_parameters():
                backup = main.global_block().create_var(
                    name=unique_name.generate(".".join([self._name + param.name, "ema_tmp"])),
                    shape=param.shape, dtype=param.dtype, persistable=True, stop_gradient=True)
                self._params_tmps.append((param, backup))
                self._ema_vars[param.name] = layers.create_global_var(
                    name=unique_name.generate(self._name + param.name + "_ema"),
                    shape=param.shape, value=0.0, dtype=param.dtype, persistable=True)
        self._build_apply()
        self._build_restore(self._params_tmps)

    def _scheduled_decay(self):
        from . import layers
        main = default_main_program()
        with main._role_guard(OpRole.LRSched):
            decay_var = layers.create_global_var(shape=[1], value=self._decay, dtype="float32",
                                                 persistable=True,
                                                 name="scheduled_ema_decay_rate")
            # Paddle 1.8.5 computes (steps + 1) / (steps + 10) in the counter's dtype: for an
            # int64 counter (autoincreased_step_counter) that is 0, compared with int(decay),
            # so the warm-up never applies (measured); a float counter gets it
            if self._thres_steps is not None and \
                    self._thres_steps.dtype.name in ("float16", "float32", "float64"):
                steps = layers.cast(self._thres_steps, "float32")
                warmup = (steps + 1.0) / (steps + 10.0)
                fixed = layers.fill_constant([1], "float32", self._decay)
                layers.assign(layers.elementwise_min(warmup, fixed), output=decay_var)
        return decay_var

    def _build_apply(self):
        from . import layers
        self.apply_program = Program()
        with program_guard(self.apply_program):
            block = self.apply_program.global_block()
            step = layers.create_global_var(name=self._step_counter_name, shape=[1], value=0,
                                            dtype="int64", persistable=True)
            step = layers.cast(step, "float32")
            decay_pow = layers.elementwise_pow(_clone(block, self._decay_var), step)
            # 1 - decay^t, or 1 before the first update (Paddle skips the division there)
            not_started = layers.cast(layers.equal(step, layers.zeros([1], "float32")),
                                      "float32")
            correction = 1.0 - decay_pow + not_started
            for param, backup in self._params_tmps:
                param_here = _clone(block, param)
                ema = _clone(block, self._ema_vars[param.name])
                layers.assign(param_here, output=_clone(block, backup))
                layers.assign(layers.elementwise_div(ema, correction), output=ema)
                layers.assign(ema, output=param_here)

    def update(self):
        """Append step += 1 and ema = decay ema + (1 - decay) param for every parameter
        (in the train program, after minimize)."""
        from . import layers
        layers.autoincreased_step_counter(counter_name=self._step_counter_name)
        main = default_main_program()
        with main._role_guard(OpRole.Optimize):
            for param, _ in self._params_tmps:
                ema = self._ema_vars[param.name]
                layers.assign(ema * self._decay_var + param * (1.0 - self._decay_var),
                              output=ema)


class ModelAverage(_ParameterSwap):
    """The mean of each parameter over a sliding window of recent steps (the
    average_accumulates op after each step; the window is between min_average_window
    and max_average_window steps and about average_window_rate of all steps so far).
    apply() writes (sum_1 + sum_2 + sum_3) / (num_accumulates + old_num_accumulates)
    into the parameters. Make it after minimize: it averages the parameters the main
    program has then."""

    def __init__(self, average_window_rate, min_average_window=10000,
                 max_average_window=10000, regularization=None, name=None):
        if mode.dynamic:
            raise Exception("In dygraph, don't support ModelAverage.")
        self.average_window = float(average_window_rate)
        self.min_average_window = int(min_average_window)
        self.max_average_window = int(max_average_window)
        self._accumulators = {}
        main = default_main_program()
        self.params_grads = []
        with main._role_guard(OpRole.Optimize):
            for param in _averaged_parameters():
                backup = main.global_block().create_var(
                    name=unique_name.generate(".".join([param.name, "tmp"])),
                    shape=param.shape, dtype=param.dtype, persistable=True,
                    stop_gradient=True)
                self.params_grads.append((param, backup))
                self._append_average_accumulate_op(param)
        self._build_apply()
        self._build_restore(self.params_grads)

    def _append_average_accumulate_op(self, param):
        from . import layers
        accumulators = {}
        for name in ("sum_1", "sum_2", "sum_3"):
            accumulators[name] = layers.create_global_var(
                name=unique_name.generate("_".join([param.name, name])), shape=param.shape,
                value=0.0, dtype=param.dtype, persistable=True)
        for name in ("num_accumulates", "old_num_accumulates", "num_updates"):
            accumulators[name] = layers.create_global_var(
                name=unique_name.generate("_".join([param.name, name])), shape=[1], value=0,
                dtype="int64", persistable=True)
        self._accumulators[param.name] = accumulators
        inputs = {"in_" + k: [v] for k, v in accumulators.items()}
        inputs["param"] = [param]
        default_main_program().global_block().append_op(
            type="average_accumulates", inputs=inputs,
            outputs={"out_" + k: [v] for k, v in accumulators.items()},
            attrs={"average_window": self.average_window,
                   "min_average_window": self.min_average_window,
                   "max_average_window": self.max_average_window})

    def _build_apply(self):
        from . import layers
        self.apply_program = Program()
        with program_guard(self.apply_program):
            block = self.apply_program.global_block()
            for param, backup in self.params_grads:
                acc = {k: _clone(block, v) for k, v in self._accumulators[param.name].items()}
                param_here = _clone(block, param)
                layers.assign(param_here, output=_clone(block, backup))
                count = layers.cast(layers.sums([acc["num_accumulates"],
                                                 acc["old_num_accumulates"]]), param.dtype)
                total = layers.sums([acc["sum_1"], acc["sum_2"], acc["sum_3"]])
                layers.assign(layers.elementwise_div(total, count), output=param_here)
