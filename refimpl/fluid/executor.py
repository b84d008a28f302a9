"""paddle.fluid.executor: the Executor and the scope helpers fluid code imports from here."""
import numpy as np

from .. import versions
from ..executor import Executor
from ..framework.dtypes import convert_dtype
from ..framework.scope import Tensor, global_scope, scope_guard

__all__ = ["Executor", "global_scope", "scope_guard", "as_numpy"]


def _fetch_var(name, scope=None, return_numpy=True):
    """The value of variable `name` in `scope` (default: the global scope)."""
    scope = scope if scope is not None else global_scope()
    holder = scope.find_var(name.name if hasattr(name, "name") else name)
    if holder is None or not holder.is_initialized():
        raise ValueError("_fetch_var: no value of %r in the scope" % (name,))
    tensor = holder.get_tensor()
    return as_numpy(tensor) if return_numpy else tensor


def _as_lodtensor(data, place, dtype=None):
    """A LoDTensor (no LoD) holding `data`: an ndarray as it is, a Python or numpy scalar as
    a [1] array of `dtype`, which a scalar must give (AssertionError otherwise). A list or
    tuple (switch as_lodtensor_sequences): refused, as 1.8 does (it may hold sequences),
    or from 2.0 an array of `dtype` (a TypeError for ragged nesting), another type a
    TypeError."""
    if isinstance(data, np.ndarray):
        pass
    elif versions.switch("as_lodtensor_sequences") == "refused":
        if isinstance(data, list):
            raise RuntimeError("_as_lodtensor: a list of arrays may hold sequences (LoD); "
                               "make a LoDTensor of them directly")
        if np.isscalar(data):
            assert dtype is not None, "dtype should be given when casting python scalar to " \
                                      "tensor"
            data = np.array([data]).astype(convert_dtype(dtype))
    else:
        assert dtype is not None, "dtype should be given when the data is no numpy.ndarray"
        if np.isscalar(data):
            data = np.array([data]).astype(convert_dtype(dtype))
        elif isinstance(data, (list, tuple)):
            try:
                data = np.array(data).astype(convert_dtype(dtype))
            except ValueError:
                raise TypeError("_as_lodtensor: %r is no regular array (nested lists of "
                                "different lengths?); make a LoDTensor of it with "
                                "fluid.create_lod_tensor" % (data,)) from None
        else:
            raise TypeError("_as_lodtensor: data of type %s cannot become a Tensor"
                            % type(data).__name__)
    tensor = Tensor()
    tensor.set(data, place)
    return tensor


def as_numpy(tensor):
    """An ndarray of a LoDTensor (or of each in a list); a LoDTensor with sequence
    lengths has no dense array and is refused, as in Paddle."""
    if isinstance(tensor, (list, tuple)):
        return [as_numpy(t) for t in tensor]
    if isinstance(tensor, Tensor):
        if tensor.lod():
            raise RuntimeError("Some of your fetched tensors hold LoD information. They can "
                               "not be completely cast to Python ndarray; fetch them with "
                               "return_numpy=False")
        return np.array(tensor)
    return tensor
