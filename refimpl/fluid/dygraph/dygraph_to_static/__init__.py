"""The dygraph-to-static names of Paddle 1.8 and 2.0: declarative, dygraph_to_static_func,
ProgramTranslator, convert_to_static, convert_call, not_to_static and 2.0's modules. A
decorated function called in dynamic mode runs as written (eagerly) and records the static
program of its input signature from its converted twin, whose control flow on tensor
values becomes cond / while ops (refimpl/jit/dy2static); called in static mode it runs
as written on the static Variables it is given. specs/jit.md, "Dygraph to static"."""

import functools

import numpy as np

from ....framework import mode
from ....submodules import group

__all__ = ["ProgramTranslator", "declarative", "dygraph_to_static_func", "not_to_static",
           "convert_to_static", "convert_call"]


class ProgramTranslator:
    """The one translator (ProgramTranslator() returns the same object each time).
    enable(False): to_static functions run as written and record nothing; get_func gives
    the function itself."""

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
        """What the to_static function returns for these arguments (it records their
        program when the translator is enabled)."""
        from ....jit import to_static
        if not self.enable_declarative:
            return dygraph_func(*args, **kwargs)
        return to_static(dygraph_func)(*args, **kwargs)

    def get_func(self, dygraph_func):
        """The converted function (the function itself when disabled)."""
        return convert_to_static(dygraph_func) if self.enable_declarative else dygraph_func

    def get_code(self, dygraph_func):
        """The converted function's source (refimpl's conversion, not 2.0's text)."""
        from ....jit.dy2static.ast_transformer import converted_source
        return converted_source(getattr(dygraph_func, "_dygraph_function", dygraph_func))

    def get_program(self, dygraph_func, *args, **kwargs):
        """(main program, startup program, input Variables, outputs): the function called
        in static mode on `fluid.data` variables shaped like the numpy / Tensor args."""
        from .... import fluid
        main, startup = fluid.Program(), fluid.Program()
        with mode.dygraph_guard(False), mode.translating(), fluid.program_guard(main, startup):
            inputs = [fluid.data(name="input_%d" % i, shape=list(np.shape(a)),
                                 dtype=str(np.asarray(a).dtype))
                      if isinstance(a, np.ndarray) else a for i, a in enumerate(args)]
            outputs = self.get_func(dygraph_func)(*inputs, **kwargs)
        return main, startup, inputs, outputs


def declarative(function=None, input_spec=None):
    """Run `function` as written (see the module docstring). Paddle 2.0's declarative is
    paddle.jit.to_static: `@declarative`, `@declarative(input_spec=[...])` (the specs
    jit.save builds its program from)."""
    from ....jit import to_static
    return to_static(function, input_spec)


def dygraph_to_static_func(dygraph_func):
    """2.0's decorator that builds ops: called in static mode (the translator enabled) the
    converted function runs, its dygraph APIs building ops (to_variable an assign) and its
    control flow on tensors cond / while ops; in dynamic mode, or disabled, the function
    as written."""
    @functools.wraps(dygraph_func)
    def run(*args, **kwargs):
        translator = ProgramTranslator()
        if mode.in_dynamic_mode() or not translator.enable_declarative:
            return dygraph_func(*args, **kwargs)
        with mode.translating():
            return translator.get_func(dygraph_func)(*args, **kwargs)
    return run

def convert_to_static(function):
    """The converted twin of `function` (cached: the same object each time)."""
    from ....jit.dy2static.convert_call_func import convert_to_static as converted
    return converted(function)


def convert_call(func):
    """What a converted function calls in place of `func` (refimpl/jit/dy2static)."""
    from ....jit.dy2static import convert_call as converted_call
    return converted_call(func)


def __getattr__(name):
    """Paddle 2.0's modules program_translator (ProgramTranslator, StaticFunction,
    ConcreteProgram), partial_program, convert_call_func, function_spec, utils,
    variable_trans_func, logical_transformer (cmpop_node_to_str) and logging_utils, made at
    first use: their
    contents live in refimpl/jit, which imports this package."""
    from ....jit import function_spec, partial_program, static_function
    from ....jit.dy2static import convert_call_func, utils, variable_trans_func
    table = {"program_translator": ["ProgramTranslator", "ConcreteProgram", "StaticFunction",
                                    "convert_to_static"],
             "partial_program": ["PartialProgramLayer", "partial_program_from"],
             "convert_call_func": ["convert_call", "CONVERSION_OPTIONS", "ConversionOptions"],
             "function_spec": ["FunctionSpec"], "utils": utils.__all__,
             "variable_trans_func": variable_trans_func.__all__,
             "logical_transformer": ["cmpop_node_to_str"]}
    if name == "logging_utils":     # the module itself: its logger object is used
        from ....jit.dy2static import logging_utils as module
        globals()[name] = module
        return module
    if name not in table:
        raise AttributeError("module %r has no attribute %r" % (__name__, name))
    names = {**vars(static_function), **vars(partial_program), **vars(convert_call_func),
             **vars(function_spec), **vars(utils), **vars(variable_trans_func),
             "ProgramTranslator": ProgramTranslator, "convert_to_static": convert_to_static}
    module = group(__name__, names, {name: table[name]})[name]
    globals()[name] = module
    return module


def not_to_static(func=None):
    """Paddle 2.0's mark on a function that to_static must leave as Python: it sets the
    function's conversion options (CONVERSION_OPTIONS: not_convert) and returns it;
    `@not_to_static()` is the decorator itself."""
    from ....jit.dy2static.convert_call_func import CONVERSION_OPTIONS, ConversionOptions
    if func is None:
        return not_to_static
    setattr(func, CONVERSION_OPTIONS, ConversionOptions(not_convert=True))
    return func
