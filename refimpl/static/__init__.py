"""paddle.static"""
from ..compiler import BuildStrategy, CompiledProgram, ExecutionStrategy
from ..executor import Executor
from ..compiler.parallel_executor import ParallelExecutor
from ..framework.place import CPUPlace, CUDAPinnedPlace, CUDAPlace, cpu_places, cuda_places, \
    xpu_places
from ..framework.program import (Program, Variable, default_main_program,
                                 default_startup_program, name_scope, program_guard)
from ..framework.scope import Scope, global_scope, scope_guard
from ..framework.param_attr import ParamAttr
from ..backward import append_backward, gradients
from ..layers import exports as _exports
from ..submodules import group
from .io import (deserialize_persistables, deserialize_program, load, load_from_file,
                 load_inference_model, load_program_state, save, save_inference_model,
                 save_to_file, serialize_persistables, serialize_program, set_program_state)
from .device import device_guard
from .py_func import py_func
from .input_spec import InputSpec
from .weight_norm import WeightNormParamAttr
from . import amp, nn
from ..fluid.io import load_vars, save_vars
from ..fluid.moving_average import ExponentialMovingAverage   # Paddle 2.1 on: paddle.static's
from .io import normalized_program as normalize_program        # Paddle 2.1 on too

globals().update(_exports("static"))
globals().update(group(__name__, globals(), {"input": ["data", "InputSpec"]}))   # 2.0's

__all__ = ["ExponentialMovingAverage", "ParallelExecutor", "BuildStrategy", "CompiledProgram", "ExecutionStrategy", "Executor", "CPUPlace",
           "CUDAPlace", "CUDAPinnedPlace", "cpu_places", "cuda_places", "xpu_places", "Program", "Variable",
           "default_main_program", "default_startup_program", "name_scope", "program_guard",
           "Scope", "global_scope", "scope_guard", "ParamAttr", "append_backward", "gradients",
           "data", "nn", "save", "load", "load_program_state", "set_program_state", "serialize_program",
           "deserialize_program", "serialize_persistables", "deserialize_persistables",
           "save_to_file", "load_from_file", "save_inference_model", "load_inference_model",
           "device_guard", "py_func", "InputSpec", "Print", "load_vars", "save_vars", "accuracy", "auc",
           "WeightNormParamAttr", "normalize_program"]
