"""Paddle 3's paddle.range (both ends included, 3.3.1's deprecated API) and paddle.logspace,
composed from arange, linspace and pow (3.3.1 runs logspace as a kernel; the values
agree, tests/test_tensor_creation3.py)."""
from ..framework.dtypes import convert_dtype, get_default_dtype
from . import creation
from .math import cast


def range(start=0, end=None, step=1, dtype=None, *, out=None, device=None,
          requires_grad=False, name=None):
    """start, start + step, ... up to and including end (end None: 0 .. start), in dtype
    (the default float dtype unless given)."""
    if end is None:
        start, end = 0, start
    result = creation.arange(start, end + step, step, dtype or get_default_dtype())
    result.stop_gradient = not requires_grad
    return result


def logspace(start, stop, num, base=10.0, dtype=None, name=None):
    """base ** linspace(start, stop, num), computed in float64 and cast to dtype (the
    default float dtype unless given); num must be positive (3.3.1's check)."""
    if isinstance(num, int) and num <= 0:
        raise ValueError("logspace: num must be > 0, got %d" % num)
    exponents = creation.linspace(start, stop, num, "float64")
    powers = creation.full([1], base, "float64") ** exponents
    return cast(powers, convert_dtype(dtype or get_default_dtype()))


EXPORTS = {"paddle": {"range": range, "logspace": logspace}}
