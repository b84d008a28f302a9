"""paddle.fluid: the 1.x spelling of the static API."""
from ..compiler import BuildStrategy, CompiledProgram, ExecutionStrategy
from ..executor import Executor
from ..compiler.parallel_executor import ParallelExecutor
from ..framework import initializer, unique_name
from ..framework.initializer import set_global_initializer     # Paddle 2.0's fluid name
from ..framework.place import CPUPlace, CUDAPinnedPlace, CUDAPlace, cpu_places, cuda_places, \
    is_compiled_with_cuda, xpu_places
from .core import is_compiled_with_xpu
from ..framework.program import (Program, Variable, default_main_program,
                                 default_startup_program, name_scope, program_guard)
from ..framework.scope import Scope, global_scope, scope_guard, Tensor
from ..framework.param_attr import ParamAttr, WeightNormParamAttr
from ..framework import regularizer
from ..backward import append_backward, gradients
from ..layers import exports as _exports
from . import (framework, layers, optimizer, backward, clip, transpiler, core, op, executor,
               compiler, dygraph, io, reader, nets, contrib, layer_helper, dygraph_utils,
               wrapped_decorator, metrics, input, average, evaluator, profiler,
               install_check, dataset, debugger, incubate)
from ..framework import param_attr
from .framework import in_dygraph_mode
from .dygraph import Layer, load_dygraph, save_dygraph
from .dygraph.base import disable_dygraph, disable_imperative, enable_dygraph, \
    enable_imperative
from .dygraph.nn import *  # noqa: F401,F403 (1.8 exports its dygraph Layers here too)
from .io import load, load_program_state, save, set_program_state
from .transpiler import DistributeTranspiler, DistributeTranspilerConfig, HashName, RoundRobin
from ..dygraph.tensor import Tensor as VarBase    # 1.8's name of the eager tensor class
from .lod_tensor import LoDTensor, LoDTensorArray, create_lod_tensor, create_random_int_lodtensor
from .data_feeder import DataFeedDesc, DataFeeder
from .dataset import DatasetFactory, InMemoryDataset, QueueDataset
from .flags import get_flags, set_flags
from .compat import (cuda_pinned_places, load_op_library, memory_optimize, one_hot,
                     release_memory, require_version)
from ..static.device import device_guard
from .deprecation import DEPRECATED_IN_2, mark

globals().update(_exports("fluid"))
globals().update(mark("fluid", {name: globals()[name] for name in DEPRECATED_IN_2["fluid"]}))
from .input import embedding, one_hot      # noqa: E402 (Paddle's fluid.embedding / one_hot)

__all__ = ["DistributeTranspiler", "DistributeTranspilerConfig", "ParallelExecutor", "BuildStrategy", "CompiledProgram", "ExecutionStrategy", "Executor", "initializer", "set_global_initializer",
           "unique_name", "CPUPlace", "CUDAPlace", "CUDAPinnedPlace", "cpu_places",
           "cuda_places", "xpu_places", "is_compiled_with_cuda", "is_compiled_with_xpu", "Program", "Variable",
           "default_main_program", "default_startup_program", "name_scope", "program_guard",
           "Scope", "global_scope", "scope_guard", "LoDTensor", "Tensor", "ParamAttr",
           "WeightNormParamAttr",
           "regularizer", "append_backward", "gradients", "data", "framework", "layers",
           "optimizer", "backward", "LoDTensorArray", "create_lod_tensor",
           "create_random_int_lodtensor", "DataFeedDesc", "DataFeeder", "DatasetFactory",
           "InMemoryDataset", "QueueDataset", "get_flags", "set_flags",
           "cuda_pinned_places", "load_op_library", "memory_optimize", "one_hot",
           "release_memory", "require_version", "device_guard", "core", "op", "executor",
           "compiler", "dygraph", "io", "input", "reader", "nets", "param_attr",
           "layer_helper", "metrics",
           "in_dygraph_mode", "contrib", "save", "load", "load_program_state", "set_program_state",
           "Layer", "save_dygraph", "load_dygraph", "enable_dygraph", "disable_dygraph",
           "enable_imperative", "disable_imperative", "clip", "profiler", "install_check",
           "HashName", "RoundRobin", "VarBase"] + dygraph.nn.__all__
