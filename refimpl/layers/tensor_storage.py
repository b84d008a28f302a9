"""Paddle 3's Tensor methods about a tensor's storage, place and graph (3.3.1's names, all
profiles; eager tensors): `requires_grad` (not stop_gradient) and `requires_grad_`,
`data_ptr`, `is_contiguous` / `contiguous`, `strides` / `get_strides` / `stride`,
`itemsize`, `device`, `is_cuda`, `pin_memory`, `to(device / dtype / other)`, `copy_`,
`set_`, `resize_`, `detach_`, `apply` / `apply_`, and paddle.tolist.

refimpl keeps every tensor as one array of its own, so a tensor is always contiguous and
its strides are those of its row-major layout (3.3.1's strided views are copies here,
specs/tensor_methods.md)."""
import numpy as np

from .. import xp
from ..dygraph.tensor import Tensor, on_place_of
from ..framework import mode
from ..framework.dtypes import convert_dtype, to_numpy_dtype
from ..framework.place import CUDAPlace, Place, as_place, device_of
from ..framework.program import Variable
from .math import cast


def _eager(x, method):
    if not isinstance(x, Tensor):
        raise TypeError("Tensor.%s is dygraph-only: got %s" % (method, type(x).__name__))
    return x._array()


def _requires_grad(self):
    return not self.stop_gradient


def _set_requires_grad(self, value):
    self.stop_gradient = not value


def requires_grad_(self, requires_grad=True):
    self.stop_gradient = not requires_grad
    return self


def data_ptr(self):
    """The address of the tensor's first element (an int, as 3.3.1's)."""
    a = _eager(self, "data_ptr")
    return int(a.data.ptr) if xp.is_device_array(a) else a.__array_interface__["data"][0]


def is_contiguous(self):
    _eager(self, "is_contiguous")
    return True


def contiguous(self):
    """The tensor itself (it is contiguous, as 3.3.1 returns a contiguous one)."""
    _eager(self, "contiguous")
    return self


def get_strides(self):
    """The element strides of the row-major layout of the shape: [3, 1] for [2, 3]."""
    _eager(self, "get_strides")
    return [int(np.prod(self.shape[k + 1:])) for k in range(len(self.shape))]


def stride(self, dim=None):
    strides = get_strides(self)
    return strides if dim is None else strides[dim]


def _itemsize(self):
    return np.dtype(to_numpy_dtype(self.dtype)).itemsize


def _device(self):
    """'cpu' or 'gpu:i' (3.3.1's paddle.device.Device reads alike)."""
    place = self.place
    return "gpu:%d" % place.device_id if isinstance(place, CUDAPlace) else "cpu"


def _is_cuda(self):
    return isinstance(self.place, CUDAPlace)


def pin_memory(self, blocking=True):
    """The tensor on the host (pinned memory is host memory here; 3.3.1's CPU-only build
    refuses CUDAPinnedPlace instead)."""
    _eager(self, "pin_memory")
    return self._copy_to(None)


def _device_or_dtype(value):
    """('device', place) or ('dtype', name) of one positional argument of Tensor.to."""
    if isinstance(value, Place):
        return "device", value
    if isinstance(value, str):
        try:
            return "dtype", convert_dtype(value)
        except TypeError:
            return "device", as_place(value)
    try:
        return "dtype", convert_dtype(value)
    except TypeError:
        raise ValueError("device value error, must be str, paddle.CPUPlace(), "
                         "paddle.CUDAPlace() or paddle.CUDAPinnedPlace(), but the type of "
                         "device is %s" % type(value).__name__) from None


def to(self, *args, device=None, dtype=None, blocking=None, other=None):
    """x on a device and / or of a dtype: to('gpu:0'), to('float64'), to(other) (other's
    dtype and place), to('cpu', 'int64', blocking), to(device=..., dtype=..., other=...);
    at most 3 positional arguments (3.3.1's TypeError). The tensor itself when nothing
    changes, else a new one in the graph (the cast)."""
    _eager(self, "to")
    if len(args) > 3:
        raise TypeError("Tensor.to takes at most 3 positional arguments (device, dtype, "
                        "blocking), got %d" % len(args))
    given = {"device": device, "dtype": dtype}
    for value in args + ((other,) if other is not None else ()):
        if isinstance(value, Tensor):
            given.update(device=value.place, dtype=value.dtype)
        elif not isinstance(value, bool):
            kind, converted = _device_or_dtype(value)
            given[kind] = converted
    out = self
    if given["device"] is not None:
        out = out._copy_to(device_of(as_place(given["device"])))
    if given["dtype"] is not None and convert_dtype(given["dtype"]) != convert_dtype(out.dtype):
        out = cast(out, given["dtype"])
    return out


def copy_(self, src, blocking=True):
    """This tensor becomes a copy of src (its shape too, as 3.3.1's); the dtypes must be
    the same."""
    a = _eager(self, "copy_")
    if not isinstance(src, Tensor):
        raise TypeError("Tensor.copy_: src must be a Tensor, got %s" % type(src).__name__)
    if convert_dtype(src.dtype) != convert_dtype(self.dtype):
        raise RuntimeError("Tensor.copy_: src's dtype %s must be this tensor's, %s"
                           % (convert_dtype(src.dtype), convert_dtype(self.dtype)))
    return self._replace_value(on_place_of(a, src._array().copy()))


def set_(self, source=None, shape=None, stride=None, offset=0, name=None):
    """This tensor holds source's array (its shape, or `shape`); without a source an empty
    one of this dtype. stride / offset views are not supported (no strided storage)."""
    a = _eager(self, "set_")
    if stride is not None or offset:
        raise NotImplementedError("Tensor.set_: stride and offset are not supported (refimpl "
                                  "keeps no strided storage); pass source and shape only")
    value = a[:0].reshape(0) if source is None else _eager(source, "set_")
    return self._replace_value(value if shape is None else value.reshape(shape))


def resize_(self, shape, fill_zero=False, name=None):
    """This tensor with `shape`: its first elements (row-major) kept, zeros after."""
    a = _eager(self, "resize_")
    flat = a.reshape(-1)
    value = xp.array_module(a).zeros(int(np.prod(shape)), a.dtype)
    n = min(value.size, flat.size)
    value[:n] = flat[:n]
    return self._replace_value(value.reshape(shape))


def share_buffer_to(self, dst):
    """dst holds this tensor's array (Paddle's Tensor._share_buffer_to: one storage)."""
    dst._value = _eager(self, "_share_buffer_to")
    return dst


def detach_(self):
    """This tensor cut from the graph, in place: stop_gradient=True."""
    _eager(self, "detach_")
    self._node, self._index = None, 0
    self.stop_gradient = True
    return self


def _check_apply(self):
    _eager(self, "apply")
    if not self.stop_gradient:
        raise RuntimeError("Cannot apply function on a tensor that required gradient.")


def apply(self, func):
    """func(x) (no gradient recorded): x must stop gradients."""
    _check_apply(self)
    with mode.no_grad():
        return func(self)


def apply_(self, func):
    """x holds func(x), in place."""
    _check_apply(self)
    with mode.no_grad():
        result = func(self)
    return self._replace_value(result._array().astype(self._array().dtype, copy=False))


def tolist(x):
    """paddle.tolist(x): x's values as nested Python lists (a 0-D x: a number)."""
    if not isinstance(x, Variable):
        raise TypeError("tolist: x must be a Tensor, got %s" % type(x).__name__)
    return _eager(x, "tolist").tolist()


EXPORTS = {
    "paddle": {"tolist": tolist},
    "Tensor": {"requires_grad": property(_requires_grad, _set_requires_grad),
               "requires_grad_": requires_grad_, "data_ptr": data_ptr,
               "is_contiguous": is_contiguous, "contiguous": contiguous,
               "strides": property(get_strides), "get_strides": get_strides,
               "stride": stride, "itemsize": property(_itemsize),
               "device": property(_device), "is_cuda": property(_is_cuda),
               "pin_memory": pin_memory, "to": to, "copy_": copy_, "set_": set_,
               "resize_": resize_, "detach_": detach_, "apply": apply, "apply_": apply_,
               "_share_buffer_to": share_buffer_to},
}
