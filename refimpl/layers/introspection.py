"""Layers about a tensor rather than its values: rank, is_empty, is_tensor, and the
complex parts conj / real / imag (the ops of those names; conj of a real tensor is a copy,
real / imag take complex tensors only)."""
from ..framework import mode
from ..framework.dtypes import REAL_OF
from ..framework.program import Variable
from . import creation, math
from .common import check_variable, unary


def rank(input):
    """The rank of `input` as an int32 [1] tensor (known at build time)."""
    check_variable(input, "input", "rank")
    return creation.fill_constant([1], "int32", len(input.shape))


def is_empty(x, cond=None):
    """bool [1]: whether x has no elements (the is_empty op, checked at run time)."""
    return math._bool_out("is_empty", {"X": [x]}, {}, None, cond)


def is_tensor(x):
    return isinstance(x, Variable)


def _is_complex(x, layer_name):
    check_variable(x, "x", layer_name)
    return x.dtype.name.startswith("complex")


def conj(x, name=None):
    """The complex conjugate (`conj` op); of a real tensor, a copy."""
    if _is_complex(x, "conj"):
        return unary("conj", x, name=name)
    return creation.assign(x)


def _complex_part(op, x, name):
    """The `op` part (real / imag) of a complex x, of the real dtype. Another dtype is
    refused as Paddle 2.0 and 3.3.1 do (measured): statically a TypeError of the API's
    dtype check, eagerly a RuntimeError (the op has no kernel for it)."""
    check_variable(x, "x", op)
    dtype = x.dtype.name
    if dtype not in REAL_OF:
        if mode.in_dynamic_mode():
            raise RuntimeError("(NotFound) the %s op has no kernel for %s: x must be complex64 "
                               "or complex128" % (op, dtype))
        raise TypeError("The data type of 'x' in %s must be ['complex64', 'complex128'], but "
                        "received %s." % (op, dtype))
    return unary(op, x, name=name, out_dtype=REAL_OF[dtype])


def real(x, name=None):
    """The real part (`real` op: complex64 -> float32, complex128 -> float64)."""
    return _complex_part("real", x, name)


def imag(x, name=None):
    """The imaginary part (`imag` op)."""
    return _complex_part("imag", x, name)


EXPORTS = {
    "paddle": {"rank": rank, "is_empty": is_empty, "is_tensor": is_tensor, "conj": conj,
               "real": real, "imag": imag},
    "fluid.layers": {"rank": rank, "is_empty": is_empty},
}
