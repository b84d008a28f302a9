"""paddle.incubate.optimizer.ModelAverage (Paddle 2.0): the mean of each parameter over a
sliding window of recent steps, kept by the average_accumulates op (refimpl/ops/
average_accumulates.py) in accumulators named as Paddle's (`<param>_sum_1_0`, ...,
`<param>_num_updates_0`, and `<param>_restore_0`, the backup apply() takes). In static mode
the ops go into the main program when the ModelAverage is made (make it after minimize);
in dynamic mode step() runs them. apply() writes (sum_1 + sum_2 + sum_3) /
(num_accumulates + old_num_accumulates) into the parameters, restore() puts them back."""
import contextlib

from ...framework import mode
from ...framework.program import Program, default_main_program, program_guard
from ...layers.creation import assign
from ...layers.math import cast
from ...optimizer.optimizer import Optimizer

__all__ = ["ModelAverage"]

_SUMS = ("sum_1", "sum_2", "sum_3")
_COUNTS = ("num_accumulates", "old_num_accumulates", "num_updates")


def _declared(block, var):
    """`var` declared in another program's block (the same scope variable)."""
    return block.create_var(name=var.name, shape=var.shape, dtype=var.dtype,
                            persistable=True)


class ModelAverage(Optimizer):
    def __init__(self, average_window_rate, parameters=None, min_average_window=10000,
                 max_average_window=10000, name=None):
        super().__init__(learning_rate=0.0, parameters=parameters, name=name)
        self.average_window = float(average_window_rate)
        self.min_average_window = int(min_average_window)
        self.max_average_window = int(max_average_window)
        self.type = "average_accumulates"
        if mode.dynamic:
            return
        block = default_main_program().global_block()
        self._averaged = list(parameters) if parameters else block.all_parameters()
        self._create_accumulators(block, self._averaged)
        for param in self._averaged:
            self._append_optimize_op(block, (param, None))
        self.apply_program = self._swap_program(self._append_apply)
        self.restore_program = self._swap_program(self._append_restore)

    def _create_accumulators(self, block, parameters):
        for param in parameters:
            for name in _SUMS + ("restore",):
                self._add_accumulator(name, param)
            for name in _COUNTS:
                self._add_accumulator(name, param, dtype="int64", shape=[1])

    def _append_optimize_op(self, block, param_and_grad):
        param = param_and_grad[0]
        names = _SUMS + _COUNTS
        accumulators = [self._get_accumulator(name, param) for name in names]
        inputs = {"in_" + n: [v] for n, v in zip(names, accumulators)}
        inputs["param"] = [param]
        block.append_op(type=self.type, inputs=inputs,
                        outputs={"out_" + n: [v] for n, v in zip(names, accumulators)},
                        attrs={"average_window": self.average_window,
                               "min_average_window": self.min_average_window,
                               "max_average_window": self.max_average_window})

    def _average(self, param, accumulator):
        total = accumulator("sum_1") + accumulator("sum_2") + accumulator("sum_3")
        count = cast(accumulator("num_accumulates") + accumulator("old_num_accumulates"),
                     total.dtype)
        return total / count

    def _append_apply(self, param, accumulator):
        assign(param, output=accumulator("restore"))
        assign(self._average(param, accumulator), output=param)

    def _append_restore(self, param, accumulator):
        assign(accumulator("restore"), output=param)

    def _swap_program(self, append):
        """A program running append(param, accumulator) for each averaged parameter."""
        program = Program()
        block = program.global_block()
        with program_guard(program):
            for param in self._averaged:
                here = _declared(block, param)
                append(here, lambda name, p=param: _declared(block,
                                                             self._get_accumulator(name, p)))
        return program

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """Dynamic mode: step(); static mode: nothing (the ops were added when made)."""
        if self._eager:
            self.step()

    @mode.no_grad()
    def step(self):
        """Accumulate every trainable parameter that has a gradient (dynamic mode)."""
        self._check_eager("step")
        block = self._block()
        self._create_accumulators(block, self._parameter_list)
        for param in self._parameter_list:
            if param.trainable and not param.stop_gradient and param._grad is not None:
                self._append_optimize_op(block, (param, None))

    @contextlib.contextmanager
    def apply(self, executor=None, need_restore=True):
        """Write the averages into the parameters (backed up first) for the `with` block;
        after it they are restored unless need_restore=False. Static mode needs the
        executor that runs the programs."""
        with mode.no_grad():
            if self._eager:
                for param in self._parameter_list:
                    self._append_apply(param, lambda name, p=param:
                                       self._get_accumulator(name, p))
            else:
                self._executor(executor, "apply").run(self.apply_program)
        try:
            yield
        finally:
            if need_restore:
                self.restore(executor)

    def restore(self, executor=None):
        """Put back the parameters apply() backed up."""
        if self._eager:
            with mode.no_grad():
                for param in self._parameter_list:
                    self._append_restore(param, lambda name, p=param:
                                         self._get_accumulator(name, p))
            return
        self._executor(executor, "restore").run(self.restore_program)

    @staticmethod
    def _executor(executor, what):
        if executor is None:
            raise RuntimeError("ModelAverage.%s: in static mode pass the Executor that runs "
                               "the programs" % what)
        return executor
