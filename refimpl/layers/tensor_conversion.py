"""Paddle 3's dtype conversions and dtype queries of a tensor (3.3.1's names, all profiles):
the cast methods `x.float()`, `x.long()`, `x.float32()`, ... and `x.type_as(y)`, `x.new_full(size, v)`
and its kin (a new tensor of x's dtype), `paddle.is_floating_point / is_complex /
is_integer` (also methods), `x.is_same_shape(y)`. Everything is a cast, a fill or a
Python answer about the dtype: static programs, eager tensors and gradients come from
those layers (specs/tensor_methods.md "Paddle 3's tensor surface")."""
from ..framework.dtypes import FLOAT_DTYPES, convert_dtype
from ..framework.program import Variable
from . import creation
from .math import cast

# x.<method>() is x.astype(<dtype>) (3.3.1's Tensor methods, measured), under the torch
# names and the dtypes' own (x.float32(), x.uint8(), ...)
_DTYPE_NAMES = ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
                "bool", "complex64", "complex128")
CAST_METHODS = dict({name: name for name in _DTYPE_NAMES},
                    float="float32", double="float64", half="float16", int="int32",
                    long="int64", short="int16", char="int8", byte="uint8",
                    cfloat="complex64", cdouble="complex128")

COMPLEX = ("complex64", "complex128")
INTEGER = ("uint8", "int8", "int16", "int32", "int64")


def _cast_method(name, dtype):
    def method(self):
        return cast(self, dtype)
    method.__name__ = name
    method.__doc__ = "x.%s(): x cast to %s (Paddle 3)." % (name, dtype)
    return method


def bfloat16(self):
    """x.bfloat16(): refimpl has no bfloat16 dtype (framework/dtypes.py), so a clear
    refusal instead of 3.3.1's cast."""
    raise TypeError("Tensor.bfloat16: refimpl has no bfloat16 dtype; cast to float16 or "
                    "float32 (x.half(), x.float())")


def type_as(self, other):
    """x cast to other's dtype."""
    _check_tensor(other, "type_as", "other")
    return cast(self, other.dtype)


def _dtype_name(x, layer):
    _check_tensor(x, layer, "x")
    return convert_dtype(x.dtype)


def _check_tensor(x, layer, arg):
    if not isinstance(x, Variable):
        raise TypeError("%s: expected Tensor for %r, but received type of %s: %s"
                        % (layer, arg, arg, type(x)))


def is_floating_point(x):
    """Whether x's dtype is a float one (float16, float32, float64)."""
    return _dtype_name(x, "is_floating_point") in FLOAT_DTYPES


def is_complex(x):
    return _dtype_name(x, "is_complex") in COMPLEX


def is_integer(x):
    """Whether x's dtype is an integer one (bool is not, as 3.3.1 answers)."""
    return _dtype_name(x, "is_integer") in INTEGER


def is_same_shape(self, y):
    _check_tensor(y, "is_same_shape", "y")
    return list(self.shape) == list(y.shape)


def _sized(size):
    return [size] if isinstance(size, int) else size


def _new(make):
    """x.new_<kind>(size, ..., dtype=None, device=None, requires_grad=False,
    pin_memory=False): make(size, ..., dtype) with x's dtype by default; the result needs
    a gradient when requires_grad (device and pin_memory: refimpl's tensors stay where
    set_device puts them)."""
    def method(self, size, *args, dtype=None, device=None, requires_grad=False,
               pin_memory=False):
        out = make(_sized(size), *args, dtype=dtype or self.dtype)
        out.stop_gradient = not requires_grad
        return out
    return method


_TENSOR = dict({name: _cast_method(name, dtype) for name, dtype in CAST_METHODS.items()},
               bfloat16=bfloat16, type_as=type_as, is_floating_point=is_floating_point,
               is_complex=is_complex, is_integer=is_integer, is_same_shape=is_same_shape,
               new_empty=_new(creation.empty), new_full=_new(creation.full),
               new_ones=_new(creation.ones), new_zeros=_new(creation.zeros))

EXPORTS = {
    "paddle": {"is_floating_point": is_floating_point, "is_complex": is_complex,
               "is_integer": is_integer},
    "Tensor": _TENSOR,
}
