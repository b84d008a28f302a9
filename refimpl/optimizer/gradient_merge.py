"""GradientMergeOptimizer (Paddle 2.0, fluid.optimizer; static mode only): gradient
accumulation. Each run of the main program adds the gradients to persistable merge
variables `<param>@GRAD@GradientMerge`; every k_steps-th run the inner optimizer updates
the parameters from the merged gradients (divided by k_steps when avg) and the merge
variables return to zero.

The program as Paddle 2.0 builds it (specs/optimizer.md): persistable int32 counters
`gradient_merge_step` (0), `gradient_merge_k`, `gradient_merge_zero` and the bool
`gradient_merge_cond`, initialized in the startup program; after the backward the main
block increments the step, takes it modulo k, sets cond to step == 0 and adds each
gradient into its merge variable; a conditional block on cond then scales the merge
variables (avg), runs the inner optimizer's update ops on them and zeroes them.
"""
from ..framework import mode
from ..framework.program import (Variable, default_main_program, default_startup_program,
                                 program_guard)
from ..layers.control_flow import cond
from ..layers.creation import create_global_var, fill_constant
from ..layers.tensor import increment

__all__ = ["GradientMergeOptimizer"]


class GradientMergeOptimizer:
    def __init__(self, inner_optimizer, k_steps=1, avg=True):
        if mode.dynamic:
            raise Exception(
                "In dygraph, we don't support GradientMergeOptimizer.You can do Gradient "
                "merge by yourself with k-times forward + backward, and one-time "
                "optimizer.minimize()")
        assert inner_optimizer is not None, "inner optimizer can not be None"
        assert isinstance(k_steps, int) and not isinstance(k_steps, bool) and k_steps > 0, \
            "k_steps should be a positive integer, got %r" % (k_steps,)
        self.inner_optimizer = inner_optimizer
        self.k_steps = k_steps
        self.avg = avg
        self.type = "gradient_merge"

    def backward(self, loss, startup_program=None, parameter_list=None, no_grad_set=None,
                 callbacks=None):
        """The inner optimizer's gradients of all parameters (Paddle 2.0 refuses a
        parameter_list or no_grad_set here: AssertionError)."""
        assert isinstance(loss, Variable), "The loss should be an Variable."
        assert parameter_list is None, \
            "The parameter_list should be None when using GradientMergeOptimizer"
        assert no_grad_set is None, \
            "The no_grad_set should be None when using GradientMergeOptimizer"
        return self.inner_optimizer.backward(loss, startup_program=startup_program)

    def apply_optimize(self, loss, startup_program, params_grads):
        with program_guard(loss.block.program, startup_program or default_startup_program()):
            return self.apply_gradients(params_grads)

    def apply_gradients(self, params_grads):
        """The merge ops in the main block and the conditional update; returns the inner
        optimizer's update ops (in the conditional block)."""
        block = default_main_program().global_block()
        startup = default_startup_program().global_block()
        run_update = self._update_condition(block)
        merged = []
        for param, grad in params_grads:
            if grad is None:
                continue
            name = param.name + "@GRAD@GradientMerge"
            total = block.create_var(name=name, shape=param.shape, dtype=param.dtype,
                                     persistable=True)
            startup_total = startup.create_var(name=name, shape=param.shape,
                                               dtype=param.dtype, persistable=True)
            startup.append_op(type="fill_constant", outputs={"Out": [startup_total]},
                              attrs={"shape": list(param.shape), "dtype": param.dtype.name,
                                     "value": 0.0})
            block.append_op(type="elementwise_add", inputs={"X": [grad], "Y": [total]},
                            outputs={"Out": [total]}, attrs={"axis": -1})
            merged.append((param, total))
        update_ops = []

        def update():
            branch = default_main_program().current_block()
            if self.avg:
                for _, total in merged:
                    branch.append_op(type="scale", inputs={"X": [total]},
                                     outputs={"Out": [total]},
                                     attrs={"scale": 1.0 / self.k_steps, "bias": 0.0,
                                            "bias_after_scale": False})
            update_ops.extend(self.inner_optimizer.apply_gradients(merged))
            for _, total in merged:
                fill_constant(total.shape, total.dtype, 0.0, out=total)

        cond(run_update, update)
        return update_ops

    def _update_condition(self, block):
        """cond = ((step + 1) % k == 0), the step kept across runs."""
        def counter(name, value, dtype="int32"):
            return create_global_var([1], value, dtype, persistable=True, force_cpu=True,
                                     name=name)
        k = counter("gradient_merge_k", self.k_steps)
        zero = counter("gradient_merge_zero", 0)
        step = counter("gradient_merge_step", 0)
        run_update = counter("gradient_merge_cond", 0, "bool")
        increment(step, 1.0, in_place=True)
        block.append_op(type="elementwise_mod", inputs={"X": [step], "Y": [k]},
                        outputs={"Out": [step]}, attrs={"axis": -1})
        block.append_op(type="equal", inputs={"X": [step], "Y": [zero]},
                        outputs={"Out": [run_update]})
        return run_update

    def minimize(self, loss, startup_program=None, parameter_list=None, no_grad_set=None):
        params_grads = self.backward(loss, startup_program, parameter_list, no_grad_set)
        optimize_ops = self.apply_optimize(loss, startup_program, params_grads)
        return optimize_ops, params_grads
