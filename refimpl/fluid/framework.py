"""paddle.fluid.framework: the IR classes and the helpers fluid code imports from here."""
import contextlib
import functools

import numpy as np

from ..dygraph.tensor import ParamBase   # Paddle 2.0's dygraph Parameter class lives here
from ..dygraph.tensor import ParamBase as EagerParamBase   # ... and Paddle 3's name for it
from ..framework.dtypes import VarType, get_dtype
from . import core
from .core import is_compiled_with_xpu
from .op_proto import OpProtoHolder
from .compat import cuda_pinned_places, load_op_library, require_version
from .flags import get_flags, set_flags
from ..static.device import device_guard
from ..framework.ir_graph import IrGraph
from ..framework.mode import in_dynamic_or_pir_mode, in_pir_mode   # Paddle 3 (paddle.base)
from ..framework.place import (cpu_places, cuda_places, current_place,
                               is_compiled_with_cuda, place_guard, xpu_places)
from ..framework.program import (OpRole, Operator, Parameter, Program, Variable, Block,
                                 default_main_program, default_startup_program, name_scope,
                                 program_guard, switch_main_program, switch_startup_program,
                                 grad_var_name)

__all__ = ["OpRole", "Operator", "Parameter", "ParamBase", "EagerParamBase", "Program", "Variable", "Block",
           "default_main_program", "default_startup_program", "name_scope", "program_guard",
           "switch_main_program", "switch_startup_program", "grad_var_name", "OpProtoHolder",
           "convert_np_dtype_to_dtype_", "dtype_is_floating", "in_dygraph_mode",
           "is_compiled_with_cuda", "is_compiled_with_xpu", "cpu_places", "cuda_places",
           "xpu_places", "GRAD_VAR_SUFFIX",
           "TEMP_VAR_NAME", "ZERO_VAR_SUFFIX", "EMPTY_VAR_NAME", "dygraph_only",
           "dygraph_not_support", "_dygraph_tracer", "_dygraph_guard", "_dygraph_place_guard",
           "cuda_pinned_places",
           "load_op_library", "require_version", "get_flags", "set_flags", "device_guard",
           "IrGraph", "in_pir_mode", "in_dynamic_or_pir_mode", "use_pir_api",
           "canonicalize_attrs"]


# Paddle's reserved name parts
GRAD_VAR_SUFFIX = "@GRAD"
TEMP_VAR_NAME = "@TEMP@"
ZERO_VAR_SUFFIX = "@ZERO"
EMPTY_VAR_NAME = "@EMPTY@"


def convert_np_dtype_to_dtype_(np_dtype):
    """The VarType (e.g. core.VarDesc.VarType.FP32) of a numpy dtype or dtype name."""
    return get_dtype(np.dtype(np_dtype))


def dtype_is_floating(dtype):
    return get_dtype(dtype) in (VarType.FP16, VarType.FP32, VarType.FP64)


def in_dygraph_mode():
    from ..framework import mode
    return mode.dynamic




def dygraph_only(func):
    """Paddle 1.8's decorator: `func` may only run in dynamic mode (an AssertionError
    naming it otherwise, as 1.8)."""
    @functools.wraps(func)
    def checked(*args, **kwargs):
        assert in_dygraph_mode(), ("We Only support %s in imperative mode, please use "
                                   "fluid.dygraph.guard() as context to run it in imperative "
                                   "Mode" % func.__name__)
        return func(*args, **kwargs)
    return checked


def dygraph_not_support(func):
    """Paddle 1.8's decorator: `func` may only run in static mode."""
    @functools.wraps(func)
    def checked(*args, **kwargs):
        assert not in_dygraph_mode(), "We don't support %s in imperative mode" % func.__name__
        return func(*args, **kwargs)
    return checked


def use_pir_api():
    """Paddle 3: whether the static API builds PIR programs. refimpl's programs are one IR
    with the legacy program API (in_pir_mode() is False): never."""
    return False


def canonicalize_attrs(attrs, op_proto):
    """Paddle 3: a copy of `attrs` with each value in the type the op proto declares (its
    Scalar-typed attributes wrapped). refimpl's ops take attribute values as Python gives
    them, so the copy holds the same values; the None ones are left out of the conversion,
    as there."""
    return dict(attrs)


def _dygraph_tracer():
    """1.8's current tracer: the one Tracer in dynamic mode, None in static mode."""
    from .dygraph.tracer import Tracer
    return Tracer.instance if in_dygraph_mode() else None


@contextlib.contextmanager
def _dygraph_guard(tracer):
    """Dynamic mode inside when `tracer` is a Tracer, static mode when it is None (what
    1.8's helpers use to look at programs from inside fluid.dygraph.guard())."""
    from ..framework import mode
    with mode.dygraph_guard(tracer is not None):
        yield


def _dygraph_place_guard(place):
    """1.8's helper: the ops run inside go to `place` (its tests pin CPU-only layers to
    CPUPlace()); the previous place after."""
    return place_guard(place)


def _current_expected_place():
    """Paddle 2.0's name for the place paddle.set_device chose (CPUPlace or CUDAPlace)."""
    return current_place()


def _get_var(name, program=None):
    """Paddle 1.8's helper: the variable `name` of `program`'s global block (default: the
    main program); its tests mark fetched variables persistable through it."""
    if program is None:
        program = default_main_program()
    if not isinstance(name, str) or not isinstance(program, Program):
        raise TypeError("_get_var: expected a variable name (str) and a Program, got %s and %s"
                        % (type(name).__name__, type(program).__name__))
    return program.global_block().var(name)


def _var_base_to_np(var_base):
    """1.8's deprecated spelling of `var_base.numpy()`."""
    return var_base.numpy()
