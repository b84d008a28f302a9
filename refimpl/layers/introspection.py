"""Layers about a tensor rather than its values: rank, is_empty, is_tensor, and the
complex parts conj / real / imag of refimpl's real dtypes (a copy, a copy, zeros)."""
from ..framework.program import Variable
from . import creation, math, tensor
from .common import check_variable


def rank(input):
    """The rank of `input` as an int32 [1] tensor (known at build time)."""
    check_variable(input, "input", "rank")
    return creation.fill_constant([1], "int32", len(input.shape))


def is_empty(x, cond=None):
    """bool [1]: whether x has no elements (checked at run time)."""
    zero = creation.fill_constant([1], "int64", 0)
    return math._bool_out("equal", {"X": [tensor.numel(x)], "Y": [zero]}, {"axis": -1}, None,
                          cond, layer_type="is_empty")


def is_tensor(x):
    return isinstance(x, Variable)


def _check_real(x, layer_name):
    check_variable(x, "x", layer_name)
    if x.dtype.name.startswith("complex"):
        raise NotImplementedError("%s: complex tensors are not supported" % layer_name)


def conj(x, name=None):
    """The complex conjugate; refimpl has real dtypes only, where it is a copy."""
    _check_real(x, "conj")
    return creation.assign(x)


def real(x, name=None):
    """The real part; for real dtypes (refimpl's only ones) a copy of x."""
    _check_real(x, "real")
    return creation.assign(x)


def imag(x, name=None):
    """The imaginary part; for real dtypes (refimpl's only ones) zeros like x."""
    _check_real(x, "imag")
    return creation.zeros_like(x)


EXPORTS = {
    "paddle": {"rank": rank, "is_empty": is_empty, "is_tensor": is_tensor, "conj": conj,
               "real": real, "imag": imag},
    "fluid.layers": {"rank": rank, "is_empty": is_empty},
}
