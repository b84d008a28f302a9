"""Layers about a tensor rather than its values: rank, is_empty, is_tensor, and the
complex parts conj / real / imag (the ops of those names; of a real tensor a copy, a copy,
zeros)."""
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


def real(x, name=None):
    """The real part (`real` op: complex64 -> float32, complex128 -> float64); of a real
    tensor, a copy."""
    if _is_complex(x, "real"):
        return unary("real", x, name=name, out_dtype=REAL_OF[x.dtype.name])
    return creation.assign(x)


def imag(x, name=None):
    """The imaginary part (`imag` op); of a real tensor, zeros like it."""
    if _is_complex(x, "imag"):
        return unary("imag", x, name=name, out_dtype=REAL_OF[x.dtype.name])
    return creation.zeros_like(x)


EXPORTS = {
    "paddle": {"rank": rank, "is_empty": is_empty, "is_tensor": is_tensor, "conj": conj,
               "real": real, "imag": imag},
    "fluid.layers": {"rank": rank, "is_empty": is_empty},
}
