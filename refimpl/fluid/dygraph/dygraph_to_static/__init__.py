"""Paddle 1.8's dygraph-to-static names: declarative, dygraph_to_static_func and
ProgramTranslator, without 1.8's source rewriting. refimpl runs the decorated function as
written: eagerly in dynamic mode (what 1.8 returns there, too; the StaticFunction also
records each new input signature's static program, refimpl/jit), and in static mode on the
static Variables it is given, building ops into the current program. Python control flow
on tensor values therefore is not turned into cond / while ops: it runs eagerly in dynamic
mode, and in static mode raises the Variable's error (use fluid.layers.cond /
while_loop). specs/fluid_dygraph.md#dygraph-to-static."""
import functools
import inspect

import numpy as np

from ....framework import mode
from ....submodules import group

__all__ = ["ProgramTranslator", "declarative", "dygraph_to_static_func", "not_to_static"]


class ProgramTranslator:
    """The one translator (ProgramTranslator() returns the same object each time).
    enable(False) is recorded (enable_declarative) and changes nothing here, since the
    function runs as written either way."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
            cls._instance.enable_declarative = True
        return cls._instance

    @classmethod
    def get_instance(cls):
        return cls()

    def enable(self, enable_declarative):
        if not isinstance(enable_declarative, bool):
            raise TypeError("ProgramTranslator.enable: expected a bool, got %s"
                            % type(enable_declarative).__name__)
        self.enable_declarative = enable_declarative

    def get_output(self, dygraph_func, *args, **kwargs):
        return dygraph_func(*args, **kwargs)

    def get_func(self, dygraph_func):
        return dygraph_func

    def get_code(self, dygraph_func):
        return inspect.getsource(dygraph_func)

    def get_program(self, dygraph_func, *args, **kwargs):
        """(main program, startup program, input Variables, outputs): the function called
        in static mode on `fluid.data` variables shaped like the numpy / Tensor args."""
        from .... import fluid
        main, startup = fluid.Program(), fluid.Program()
        with mode.dygraph_guard(False), mode.translating(), fluid.program_guard(main, startup):
            inputs = [fluid.data(name="input_%d" % i, shape=list(np.shape(a)),
                                 dtype=str(np.asarray(a).dtype))
                      if isinstance(a, np.ndarray) else a for i, a in enumerate(args)]
            outputs = dygraph_func(*inputs, **kwargs)
        return main, startup, inputs, outputs


def declarative(function=None, input_spec=None):
    """Run `function` as written (see the module docstring). Paddle 2.0's declarative is
    paddle.jit.to_static: `@declarative`, `@declarative(input_spec=[...])` (the specs
    jit.save builds its program from)."""
    from ....jit import to_static
    return to_static(function, input_spec)


dygraph_to_static_func = declarative

def __getattr__(name):
    """Paddle 2.0's modules program_translator (ProgramTranslator, StaticFunction,
    ConcreteProgram) and partial_program, made at first use: their classes live in
    refimpl/jit, which imports this package."""
    from ....jit import partial_program, static_function
    table = {"program_translator": ["ProgramTranslator", "ConcreteProgram", "StaticFunction"],
             "partial_program": ["PartialProgramLayer", "partial_program_from"]}
    if name not in table:
        raise AttributeError("module %r has no attribute %r" % (__name__, name))
    names = {**vars(static_function), **vars(partial_program),
             "ProgramTranslator": ProgramTranslator}
    module = group(__name__, names, {name: table[name]})[name]
    globals()[name] = module
    return module

def not_to_static(func=None):
    """Paddle 2.0's mark on a function that to_static must leave as Python. refimpl
    converts no function (see the module docstring): `func` comes back unchanged, as the
    decorator without arguments comes back for `@not_to_static()`."""
    return not_to_static if func is None else func
