"""paddle.base (Paddle 3): the name Paddle 2.5 gave the paddle.fluid package when it took
the 1.x layers out of it. Here it is the same modules as refimpl.fluid (paddle.base.core
is paddle.fluid.core, base.framework is fluid.framework, ...), holding the names Paddle
3.3.1's paddle.base has that refimpl implements: Paddle 3 code and its own tests import
`from paddle.base import core` / `paddle.base.framework` / `base.dygraph.guard()`.
Available in every profile, as a module name a 2.0 script never imports."""
from ..fluid import (BuildStrategy, CompiledProgram, CPUPlace, CUDAPinnedPlace, CUDAPlace,
                     DataFeedDesc, DataFeeder, DatasetFactory, Executor, InMemoryDataset,
                     ParamAttr, Program, Scope, Tensor, Variable, WeightNormParamAttr,
                     append_backward, cpu_places, create_lod_tensor,
                     create_random_int_lodtensor, cuda_pinned_places, cuda_places,
                     default_main_program, default_startup_program, device_guard,
                     disable_dygraph, disable_imperative, enable_dygraph, enable_imperative,
                     get_flags, global_scope, gradients, in_dygraph_mode, is_compiled_with_cuda,
                     is_compiled_with_xpu, name_scope, program_guard, require_version,
                     scope_guard, set_flags, set_global_initializer, xpu_places)
from ..fluid import (backward, compiler, core, data_feeder, dataset, default_scope_funcs,
                     dygraph, dygraph_utils,
                     executor, framework, incubate, initializer, io, layer_helper, layers,
                     multiprocess_utils, param_attr, proto, reader, unique_name,
                     wrapped_decorator)
from ..framework.mode import in_dynamic_or_pir_mode, in_pir_mode
from . import libpaddle
