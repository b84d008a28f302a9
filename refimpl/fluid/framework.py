"""paddle.fluid.framework: the IR classes and the helpers fluid code imports from here."""
import numpy as np

from ..framework.dtypes import VarType, get_dtype
from .op_proto import OpProtoHolder
from ..framework.place import cpu_places, cuda_places, is_compiled_with_cuda
from ..framework.program import (OpRole, Operator, Parameter, Program, Variable, Block,
                                 default_main_program, default_startup_program, name_scope,
                                 program_guard, switch_main_program, switch_startup_program,
                                 grad_var_name)

__all__ = ["OpRole", "Operator", "Parameter", "Program", "Variable", "Block",
           "default_main_program", "default_startup_program", "name_scope", "program_guard",
           "switch_main_program", "switch_startup_program", "grad_var_name", "OpProtoHolder",
           "convert_np_dtype_to_dtype_", "dtype_is_floating", "in_dygraph_mode",
           "is_compiled_with_cuda", "cpu_places", "cuda_places", "GRAD_VAR_SUFFIX",
           "TEMP_VAR_NAME", "ZERO_VAR_SUFFIX", "EMPTY_VAR_NAME"]


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


