"""refimpl: a readable, fast reference implementation of PaddlePaddle's static-graph
training stack. `import refimpl as paddle`, or run an unmodified paddle script with
`python -m refimpl run script.py`."""
from . import versions as _versions


# paddle.int / long / short (Paddle 3: int32, int64, int16) are read through __getattr__,
# so that `from paddle import *` does not shadow the builtin int (3.3.1's __all__ leaves
# them out; its float, bool, double, ... it exports, and so does refimpl)
_INT_ALIASES = {"int": "int32", "long": "int64", "short": "int16"}


def __getattr__(name):
    # Paddle's __version__ is its release (scripts gate features on it): the release the
    # profile follows, read when asked; refimpl's own version is its package metadata's
    if name == "__version__":
        return _versions.release()
    if name in _INT_ALIASES:
        return globals()[_INT_ALIASES[name]]
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


from .parallel import cores as _cores

_cores.share_cores()     # before numpy and the kernels read their thread counts

from . import _allocator

_allocator.tune()

from .framework.dtypes import (bool_ as bool, complex64, complex128, float16, float32, float64,
                               int8, int16, int32, int64, uint8)
# Paddle 3's aliases (3.3.1: paddle.float is float32, paddle.double float64, ...)
from .framework.dtypes import (complex64 as cfloat, complex128 as cdouble, float16 as half,
                               float32 as float, float64 as double)
from .framework.place import (CPUPlace, CUDAPinnedPlace, CUDAPlace, is_compiled_with_cuda)
from .framework.param_attr import ParamAttr
from .framework.program import Variable
from .framework.random import seed_all as seed
from .layers import exports as _exports
from .framework.model_formats import save
from . import (framework, static, fluid, nn, optimizer, regularizer, metric, distributed,
               incubate, vision, text, jit, io, utils, distribution, inference)
from .static.io import paddle_load as load
from . import reader, dataset, compat, pir_utils, version, sysconfig, complex, base, pir
from . import _C_ops, _legacy_C_ops, autograd, decomposition, linalg
from .reader import batch
from .fluid.flags import get_flags, set_flags

globals().update(_exports("paddle"))
from . import tensor_methods as _tensor_methods

_tensor_methods.attach(Variable)

from .framework.mode import (disable_static, enable_grad, enable_static, in_dynamic_mode,
                           is_grad_enabled, set_grad_enabled)
from .dygraph.tensor import Tensor, batch_value as _batch_value

# a DataLoader's batches are eager Tensors in dynamic mode, arrays in static mode
io.dataloader.set_output_converter(_batch_value)

from ._env import *  # noqa: F401,F403  (default dtype, XPU/CUDA queries, to_tensor, no_grad, grad, ...)
from . import amp, device, onnx, sysconfig
from .device import get_device, set_device
from . import callbacks, hapi
from .hapi import Model, flops, summary
from . import tensor

# paddle.framework also re-exports names the layers above refimpl.framework own (Paddle
# 2.0's paddle/framework/__init__.py imports them from fluid; test_gather_op does
# `from paddle.framework import core`)
framework.core = fluid.core
framework.VarBase = fluid.core.VarBase
for _name in ("create_parameter", "grad", "no_grad", "DataParallel", "save", "load"):
    setattr(framework, _name, globals()[_name])
del _name

tensor.populate(globals())      # last: paddle.tensor.* are the functions defined above
