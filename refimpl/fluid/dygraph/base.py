"""fluid.dygraph.base (1.8): guard, to_variable, enabled.

Inside `guard()`, every op is run the moment it is added to a block: the guard installs an
EagerRunner on a fresh main and startup program, and Block.append_op hands each new op to
it. Values live in the runner's scope; Variables read them through numpy(), value(),
gradient(), and backward() appends the backward ops (backward.append_backward) and runs
them. This is the part of Paddle 1.8's dygraph that Paddle's OpTest and functional-layer
code need; refimpl's dynamic mode (a later issue) supersedes it (specs/fluid_dygraph.md).
"""
import contextlib

import numpy as np

from ...backward import append_backward
from ...executor import bind_op
from ...framework import unique_name
from ...framework.program import GRAD_SUFFIX, Program, Variable, program_guard
from ...framework.scope import Scope
from ..._env import no_grad

__all__ = ["guard", "to_variable", "enabled", "no_grad"]

_runners = []     # the active guards' runners, innermost last


class EagerRunner:
    """Runs ops as they are appended; holds their values."""

    def __init__(self, place):
        self.place = place
        self.scope = Scope()
        self.paused = False

    def run_op(self, op):
        if self.paused:
            return
        if getattr(op.op_def, "runs_sub_block", False):
            raise NotImplementedError(
                "%s: control-flow ops do not run inside fluid.dygraph.guard() in refimpl; "
                "build the program statically (outside the guard)" % op.type)
        bind_op(op)(self.scope._values)

    def value_of(self, var):
        value = self.scope._values.get(var.name)
        if value is None:
            raise ValueError("variable %r has no value: no op in this dygraph guard wrote it"
                             % var.name)
        return value

    def numpy(self, var):
        return np.array(self.value_of(var), copy=True)

    def value(self, var):
        return self.scope.var(var.name)

    def gradient(self, var):
        grad = self.scope._values.get(var.name + GRAD_SUFFIX)
        return None if grad is None else np.array(grad, copy=True)

    def backward(self, loss):
        """Append the backward ops of `loss` and run them."""
        block = loss.block
        start = len(block.ops)
        self.paused = True
        try:
            append_backward(loss)
        finally:
            self.paused = False
        for op in block.ops[start:]:
            self.run_op(op)


def enabled():
    """Whether ops run as they are built (inside fluid.dygraph.guard())."""
    return bool(_runners)


@contextlib.contextmanager
def guard(place=None):
    """Run the ops built inside one by one, on fresh programs and names."""
    runner = EagerRunner(place)
    main, startup = Program(), Program()
    main._eager = startup._eager = runner
    _runners.append(runner)
    try:
        with program_guard(main, startup), unique_name.guard():
            yield
    finally:
        _runners.pop()


def _current_runner(what):
    if not _runners:
        raise RuntimeError("%s works inside fluid.dygraph.guard() only" % what)
    return _runners[-1]


def to_variable(value, name=None, zero_copy=None):
    """A Variable holding `value` (an ndarray, or a Variable of this guard)."""
    runner = _current_runner("to_variable")
    if isinstance(value, Variable):
        return value
    value = np.array(value, copy=True)
    from ...framework.program import default_main_program
    block = default_main_program().global_block()
    var = block.create_var(name=name or unique_name.generate("_generated_var"),
                           shape=value.shape, dtype=value.dtype, stop_gradient=True)
    runner.scope._values[var.name] = value
    return var
