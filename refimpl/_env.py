"""Environment functions of the paddle 2.0 namespace: default dtype, XPU / CUDA / cuDNN
queries, to_tensor, no_grad, grad, and DataParallel (refimpl.distributed.parallel)."""
import numpy as np

from .backward import gradients
from .framework import mode
from .fluid.dygraph.base import grad as _checked_eager_grad
from .framework.mode import no_grad as _eager_no_grad
from .dygraph.printing import set_printoptions
from .dygraph.tensor import Tensor, on_place
from .distributed.parallel import DataParallel
from .framework.dtypes import convert_dtype, get_default_dtype, set_default_dtype
from .framework.place import as_place, current_place, device_count, device_of
from .framework.program import Variable, default_main_program
from .layers import creation, math
from .framework.initializer import value_attrs
from . import versions
from .xp import is_device_array

__all__ = ["get_default_dtype", "set_default_dtype", "XPUPlace", "is_compiled_with_xpu",
           "get_cuda_rng_state", "set_cuda_rng_state", "get_cudnn_version", "to_tensor",
           "no_grad", "grad", "DataParallel", "set_printoptions", "is_compiled_with_distribute"]

def is_compiled_with_xpu():
    return False


def is_compiled_with_distribute():
    """Whether Paddle's distributed training (fleet's parameter servers, auto-parallel) is
    built in: refimpl's distributed package is collectives on spawned processes only."""
    return False


class XPUPlace:
    def __init__(self, dev_id=0):
        raise RuntimeError("XPUPlace(%s): refimpl is not compiled with XPU (Baidu Kunlun); "
                           "use CPUPlace or CUDAPlace" % dev_id)


def get_cuda_rng_state():
    """One state per visible GPU; refimpl's random ops all draw on the CPU, so the list is
    empty when there is no GPU and holds the CPU generator's state otherwise."""
    from .framework import random
    return [random.default_cpu_generator().get_state() for _ in range(device_count())]


def set_cuda_rng_state(state_list):
    from .framework import random
    state_list = list(state_list)
    if len(state_list) != device_count():
        raise ValueError("set_cuda_rng_state: got %d states for %d GPUs"
                         % (len(state_list), device_count()))
    for state in state_list:
        random.default_cpu_generator().set_state(state)


def get_cudnn_version():
    """None: refimpl uses no cuDNN."""
    return None


def to_tensor(data, dtype=None, place=None, stop_gradient=True):
    """A Tensor holding a copy of `data` in dynamic mode, on `place` (default: the place
    set_device chose); in static mode a constant Variable (an assign_value op), or a copy
    of a Variable. Python floats become the default dtype (float32), Python complex numbers
    its complex dtype (complex64), Python ints int64, numpy arrays keep theirs. A scalar (a
    Python or numpy number) gives shape
    to_tensor_scalar_shape: [1] up to Paddle 2.0, 0-D in 3."""
    if isinstance(data, Tensor) or (mode.dynamic and not isinstance(data, Variable)):
        chosen = as_place(place) if place is not None else current_place()
        return _eager_tensor(data, dtype, stop_gradient, device_of(chosen))
    if isinstance(data, Variable):
        out = creation.assign(data)
        if dtype is not None and out.dtype.name != convert_dtype(dtype):
            out = math.cast(out, dtype)
    else:
        value = _scalar_shaped(data, np.asarray(data))
        if dtype is not None:
            value = value.astype(convert_dtype(dtype))
        elif not isinstance(data, np.ndarray) and not (
                isinstance(data, np.generic) and
                versions.switch("to_tensor_numpy_scalar_dtype") == "kept"):
            value = _python_numbers_as_default(value)
        out = creation._source_op("assign_value", value_attrs(value), value.dtype.name)
    out.stop_gradient = stop_gradient
    return out


def _python_numbers_as_default(value):
    """The array of Python numbers in the default dtype: floats in it, complex numbers in
    complex64 under a float16 / float32 default, else complex128 (Paddle 2.0's to_tensor;
    3.3.1 measured alike)."""
    if value.dtype == np.float64:
        return value.astype(get_default_dtype())
    if value.dtype == np.complex128 and get_default_dtype() in ("float16", "float32"):
        return value.astype(np.complex64)
    return value


def _scalar_shaped(data, value):
    """`value`, the array of `data`, in to_tensor_scalar_shape when `data` is a Python
    or numpy number (a 0-D array is not one: it keeps its shape)."""
    if np.isscalar(data) and not isinstance(data, (str, bytes)):
        return value.reshape(versions.switch("to_tensor_scalar_shape"))
    return value


def _eager_tensor(data, dtype, stop_gradient, device):
    """The Tensor of to_tensor in dynamic mode, on GPU `device` (None: the host)."""
    if isinstance(data, Tensor):
        value = data._array()
    elif is_device_array(data):
        value = data
    else:
        try:
            value = np.array(data)
        except ValueError as e:   # numpy 2 refuses ragged nests itself
            raise ValueError("to_tensor: cannot make a Tensor of %s (ragged or non-numeric "
                             "data: %s)" % (type(data).__name__, e)) from None
        if value.dtype == object:     # a ValueError, as Paddle 2.0's and 3.3.1's
            raise ValueError("to_tensor: cannot make a Tensor of %s (ragged or non-numeric "
                             "data)" % type(data).__name__)
        # Python numbers (lists, tuples, scalars) take the default dtype; arrays, and
        # tensors of the core (core.LoDTensor: Paddle 3.3.1 keeps its float64), keep theirs
        if dtype is None and (isinstance(data, (list, tuple)) or
                              (np.isscalar(data) and not isinstance(data, np.generic))):
            value = _python_numbers_as_default(value)
        value = _scalar_shaped(data, value)
    if dtype is not None:
        value = value.astype(convert_dtype(dtype))
    convert_dtype(value.dtype)     # a clear error for dtypes paddle has not
    moved = on_place(device, value)
    return Tensor(moved.copy() if moved is data or moved is getattr(data, "_value", None)
                  else moved, stop_gradient=stop_gradient)


class no_grad(_eager_no_grad):
    """Context manager and decorator. Dynamic mode: eager ops run inside are not recorded
    (results stop gradient). Static mode: the outputs of ops built inside get
    stop_gradient, so backward does not flow through them."""

    def __enter__(self):
        self._block = default_main_program().current_block()
        self._start = len(self._block.ops)
        return super().__enter__()

    def __exit__(self, *exc):
        for op in self._block.ops[self._start:]:
            for name in op.output_arg_names:
                var = self._block._find_var_recursive(name)
                if var is not None:
                    var.stop_gradient = True
        return super().__exit__(*exc)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=False, no_grad_vars=None):
    """paddle.grad. Eager Tensors: the gradients of sum(outputs) w.r.t. `inputs`
    (dygraph/autograd.py). Static Variables: appends the backward ops of `outputs` and
    returns the gradient Variables of `inputs` (static.gradients). allow_unused=False
    makes an input that the outputs do not depend on an error."""
    given = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
    given += list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    static = [v for v in given if isinstance(v, Variable) and not isinstance(v, Tensor)]
    if any(isinstance(v, Tensor) for v in given) or (mode.dynamic and not static):
        # Paddle 2.0's paddle.grad is fluid.dygraph.grad, with its argument checks
        return _checked_eager_grad(outputs, inputs, grad_outputs, retain_graph, create_graph,
                                   only_inputs, allow_unused, no_grad_vars)
    single = isinstance(inputs, Variable)
    grads = gradients(outputs if isinstance(outputs, (list, tuple)) else [outputs],
                      [inputs] if single else list(inputs), grad_outputs, no_grad_vars)
    if not allow_unused:
        unused = [v.name for v, g in zip([inputs] if single else inputs, grads) if g is None]
        if unused:
            raise ValueError("grad: outputs do not depend on inputs %s; pass allow_unused=True "
                             "to get None for them" % unused)
    return grads


# -- Paddle 3's creation, generator and dtype names (3.3.1's; specs/tensor_methods.md
# "Paddle 3's tensor surface")

def as_tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """to_tensor(data, dtype, device), needing a gradient when requires_grad (a copy, as
    3.3.1's)."""
    return to_tensor(data, dtype, device, stop_gradient=not requires_grad)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    return to_tensor(obj, dtype, device, stop_gradient=not requires_grad)


def from_numpy(ndarray):
    """A Tensor of a numpy array (a copy: 3.3.1's does not share the array either)."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError("The input type of from_numpy() must be numpy.ndarray, but received "
                        "%s." % type(ndarray))
    return to_tensor(ndarray)


def clone(x, name=None):
    """x.clone(): a copy that stays in the graph (the assign op)."""
    if not isinstance(x, Variable):
        raise TypeError("clone: x must be a Tensor, got %s" % type(x).__name__)
    return x.clone()


def manual_seed(seed):
    """paddle.seed(seed): the global generator, reseeded."""
    from .framework.random import seed_all
    return seed_all(seed)


def get_rng_state(device=None):
    """[the global generator's state] (3.3.1: one per device of the kind; refimpl draws on
    the CPU only)."""
    from .framework import random
    return [random.default_cpu_generator().get_state()]


def set_rng_state(state_list, device=None):
    from .framework import random
    for state in state_list:
        random.default_cpu_generator().set_state(state)


def set_default_device(device):
    """paddle.set_device (an int i is 'gpu:i')."""
    from .device import set_device
    set_device("gpu:%d" % device if isinstance(device, int) else device)


def get_default_device():
    from .device import get_device
    return get_device()


from .framework.dtypes import DType as dtype  # noqa: E402  (paddle.dtype: the dtypes' class)
from .framework.dtype_info import BFLOAT16 as bfloat16, finfo, iinfo  # noqa: E402

e, pi, inf, nan, newaxis = np.e, np.pi, np.inf, np.nan, None

__all__ += ["as_tensor", "asarray", "from_numpy", "clone", "manual_seed", "get_rng_state",
            "set_rng_state", "set_default_device", "get_default_device", "dtype", "finfo",
            "iinfo", "bfloat16", "e", "pi", "inf", "nan", "newaxis"]
