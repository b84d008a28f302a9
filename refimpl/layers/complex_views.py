"""Complex tensors from real pairs and back (Paddle 3): as_complex / view_as_complex,
as_real / view_as_real (their ops), polar (composed: abs cos(angle) + i abs sin(angle),
as 3.3.1), angle (its op)."""
from ..framework.dtypes import COMPLEX_OF, REAL_OF
from .common import append_op_out, check_variable
from . import math
from .tensor import stack

_math = math.EXPORTS["paddle"]


def as_complex(x, name=None):
    """x [..., 2] (float32 / float64) as the complex tensor x[..., 0] + i x[..., 1]."""
    check_variable(x, "x", "as_complex")
    return append_op_out("as_complex", {"X": [x]}, {}, name,
                         out_dtype=COMPLEX_OF.get(x.dtype.name))


def as_real(x, name=None):
    """A complex x as the real tensor [..., 2] of its real and imaginary parts."""
    check_variable(x, "x", "as_real")
    return append_op_out("as_real", {"X": [x]}, {}, name, out_dtype=REAL_OF.get(x.dtype.name))


def view_as_complex(input):
    return as_complex(input)


def view_as_real(input):
    return as_real(input)


def polar(abs, angle, name=None):
    """The complex tensor abs * (cos(angle) + i sin(angle)). A missing operand is an
    AttributeError, as 3.3.1's (its dtype is read first)."""
    for arg, v in (("abs", abs), ("angle", angle)):
        if v is None:
            raise AttributeError("polar: %s must be a Tensor, got None (it has no dtype)" % arg)
        check_variable(v, arg, "polar")
    return as_complex(stack([_math["multiply"](abs, _math["cos"](angle)),
                             _math["multiply"](abs, _math["sin"](angle))], axis=-1),
                      name)


def angle(x, name=None):
    """The argument of each element, in x's real dtype (a real x: 0, or pi where negative)."""
    check_variable(x, "x", "angle")
    return append_op_out("angle", {"X": [x]}, {}, name, out_dtype=REAL_OF.get(x.dtype.name))


EXPORTS = {
    "paddle": {"as_complex": as_complex, "as_real": as_real, "view_as_complex": view_as_complex,
               "view_as_real": view_as_real, "polar": polar, "angle": angle},
}
