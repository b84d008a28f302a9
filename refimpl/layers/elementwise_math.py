"""Paddle 3's element-wise math beyond 2.0's: atan2, copysign, heaviside, fmax / fmin,
nextafter, isclose, lerp, the bitwise shifts (one op each, refimpl/ops/binary_math.py),
trunc, and what Paddle 3.3.1 composes of other layers: frac, sgn, signbit, deg2rad /
rad2deg, nan_to_num, isneginf / isposinf / isreal, neg / negative / positive, hypot,
logaddexp, ldexp, frexp, gcd / lcm, isin, bitwise_invert. specs/ops/special_functions.md."""
import math

import numpy as np

from ..framework import mode
from ..framework.dtypes import FLOAT_DTYPES, convert_dtype
from ..framework.program import Variable
from . import control_flow, creation, introspection, math as math_layers, tensor
from .creation import written
from .common import (append_op_out, check_dtype, check_variable, check_variables, in_place,
                     in_place_broadcast)

_P = math_layers.EXPORTS["paddle"]
_INTEGERS = ("uint8", "int8", "int16", "int32", "int64")


def check_operand(v, arg, api):
    """A tensor argument of an API 3.3.1 runs as one kernel: in dynamic mode anything else
    is a ValueError (3.3.1's eager argument parsing), in a static program a TypeError."""
    if mode.dynamic and not isinstance(v, Variable):
        raise ValueError("%s(): argument '%s' must be a Tensor, got %s"
                         % (api, arg, type(v).__name__))
    check_variable(v, arg, api)


def as_floating(x):
    """x, or x cast to float32 when it holds integers or bools (3.3.1's autocast of the
    math kernels' integer inputs)."""
    return math_layers.cast(x, "float32") if x.dtype.name in _INTEGERS + ("bool",) else x


def _promoted(x, y):
    """(x, y) of one float dtype: 3.3.1 promotes float32 with float64 to float64."""
    if x.dtype != y.dtype and {x.dtype.name, y.dtype.name} <= set(FLOAT_DTYPES):
        wider = max(x.dtype.name, y.dtype.name, key=lambda n: np.dtype(n).itemsize)
        x, y = (v if v.dtype.name == wider else math_layers.cast(v, wider) for v in (x, y))
    return x, y


def _op(op_type, slots, api=None, promote=False):
    """paddle.<api>(x, y): op_type on x and y (slot names `slots`: x's, y's, out's)."""
    def layer(x, y, name=None):
        check_operand(x, "x", api or op_type)
        check_operand(y, "y", api or op_type)
        if promote:
            x, y = _promoted(x, y)
        return append_op_out(op_type, {slots[0]: [x], slots[1]: [y]}, None, name,
                             out_slot=slots[2])
    layer.__name__ = api or op_type
    layer.__doc__ = "paddle.%s: one %s op, broadcast like numpy (Paddle 3)." % (
        api or op_type, op_type)
    return layer


_atan2 = _op("atan2", ("X1", "X2", "Out"), promote=True)


def atan2(x, y, name=None):
    """The angle whose tangent is x / y, in (-pi, pi] (numpy's arctan2(x, y)). Eager
    operands of two shapes are broadcast first (3.3.1's API); a static program's go to
    the op as they are."""
    if mode.dynamic and isinstance(x, Variable) and isinstance(y, Variable) and \
            list(x.shape) != list(y.shape):
        x, y = _broadcast(x, y, "atan2")
    return _atan2(x, y, name)


def _broadcast(x, y, api):
    """x and y expanded to the shape they broadcast to."""
    shape = tensor._broadcast_dims({"x": x, "y": y}, api)
    return tuple(v if list(v.shape) == shape else tensor.expand_to(v, shape) for v in (x, y))
heaviside = _op("elementwise_heaviside", ("X", "Y", "Out"), "heaviside")
fmax = _op("elementwise_fmax", ("X", "Y", "Out"), "fmax")
fmin = _op("elementwise_fmin", ("X", "Y", "Out"), "fmin")
nextafter = _op("nextafter", ("x", "y", "out"), promote=True)
_copysign = _op("copysign", ("x", "y", "out"))


def copysign(x, y, name=None):
    """|x| with the sign of y (a tensor, or a number for every element)."""
    if isinstance(y, (int, float)) and not isinstance(y, bool):
        check_operand(x, "x", "copysign")
        y = _filled(x, y)
    return _copysign(x, y, name)


def isclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    """|x - y| <= atol + rtol |y| element-wise (bool); NaNs equal with equal_nan. rtol and
    atol: floats, or 1-element float64 tensors (the op's Rtol / Atol inputs); anything else
    is a ValueError, a non-bool equal_nan a TypeError (3.3.1)."""
    inputs = {}
    for arg, v in (("x", x), ("y", y)):
        check_operand(v, arg, "isclose")
        check_dtype(v, arg, "isclose", ("float32", "float64", "complex64", "complex128"))
    if x.dtype != y.dtype:
        raise TypeError("isclose: x and y must have one dtype, got %s and %s"
                        % (x.dtype.name, y.dtype.name))
    attrs = {"equal_nan": equal_nan}
    for arg, v in (("rtol", rtol), ("atol", atol)):
        if isinstance(v, Variable) and v.dtype.name == "float64" and \
                int(np.prod(v.shape)) in (1, -1):
            inputs[arg.capitalize()] = [v]     # the attr stays the op's default
        elif isinstance(v, float):
            attrs[arg] = str(v)
        else:
            raise ValueError("isclose: %s must be a float or a 1-element float64 Tensor, "
                             "got %s" % (arg, type(v).__name__))
    if not isinstance(equal_nan, bool):
        raise TypeError("isclose: equal_nan must be a bool, got %s" % type(equal_nan).__name__)
    return append_op_out("isclose", dict({"Input": [x], "Other": [y]}, **inputs), attrs,
                         name, out_dtype="bool", stop_gradient=True)


def lerp(x, y, weight, name=None):
    """x + weight (y - x); weight a tensor or a number (its gradient: none, as 3.3.1)."""
    check_operand(x, "x", "lerp")
    check_operand(y, "y", "lerp")
    if isinstance(weight, (int, float)):
        weight = _filled(x, weight)
    check_operand(weight, "weight", "lerp")
    return append_op_out("lerp", {"X": [x], "Y": [y], "Weight": [weight]}, None, name)


def _shift(op_type):
    def layer(x, y, is_arithmetic=True, out=None, name=None):
        check_operand(x, "x", op_type)
        check_operand(y, "y", op_type)
        result = append_op_out(op_type, {"x": [x], "y": [y]},
                               {"is_arithmetic": bool(is_arithmetic)}, name, out_slot="out")
        return written(result, out)
    layer.__name__ = op_type
    layer.__doc__ = "paddle.%s: integers shifted by y bits (a right shift arithmetic or " \
                    "logical by is_arithmetic); shifts of the dtype's width or more give " \
                    "0 (-1 for a negative x shifted right arithmetically)." % op_type
    return layer


def bitwise_invert(x, out=None, name=None):
    """~x: bitwise_not."""
    return math_layers.bitwise_not(x, out, name)


def trunc(input, name=None):
    """The integer part of each element (integers as they are)."""
    check_operand(input, "input", "trunc")
    return append_op_out("trunc", {"X": [input]}, None, name)


def frac(x, name=None, *, out=None):
    """x - trunc(x)."""
    check_dtype(x, "x", "frac", ("int32", "int64", "float32", "float64"))
    return written(_P["subtract"](x, trunc(x), name=name), out)


def sgn(x, name=None):
    """sign(x) for real x; x / |x| (0 at 0) for complex x."""
    check_dtype(x, "x", "sgn", FLOAT_DTYPES + ("complex64", "complex128"))
    if x.dtype.name not in ("complex64", "complex128"):
        return _P["sign"](x, name=name)
    modulus = _P["abs"](x)
    nonzero = tensor.where(_P["equal"](modulus, creation.zeros_like(modulus)),
                           creation.ones_like(modulus), modulus)
    return _P["divide"](x, math_layers.cast(nonzero, x.dtype), name=name)


def signbit(x, name=None):
    """True where x's sign bit is set: x < 0, and -0.0."""
    check_dtype(x, "x", "signbit", FLOAT_DTYPES + _INTEGERS)
    negative = _P["less_than"](x, creation.zeros_like(x))
    if x.dtype.name in _INTEGERS:
        return negative
    # -0.0 == 0, and 1 / -0.0 = -inf
    at_zero = _P["equal"](x, creation.zeros_like(x))
    flipped = _P["less_than"](_P["reciprocal"](x), creation.zeros_like(x))
    return _P["logical_or"](negative, _P["logical_and"](at_zero, flipped), name=name)


def _scaled_by(factor, api):
    def layer(x, name=None):
        check_variable(x, "x", api)
        return math_layers.scale(as_floating(x), factor, name=name)
    layer.__name__ = api
    layer.__doc__ = "paddle.%s: x times %r (integers cast to float32 first)." % (api, factor)
    return layer


deg2rad = _scaled_by(math.pi / 180.0, "deg2rad")
rad2deg = _scaled_by(180.0 / math.pi, "rad2deg")


def _infinities(x, api):
    """(x = +inf, x = -inf) of a float x; two all-False tensors for an integer x."""
    check_dtype(x, "x", api, FLOAT_DTYPES + _INTEGERS)
    if x.dtype.name in _INTEGERS:
        never = creation.full_like(x, 0, "bool")
        return never, never
    inf = _P["isinf"](x)
    zeros = creation.zeros_like(x)
    return (_P["logical_and"](inf, _P["greater_than"](x, zeros)),
            _P["logical_and"](inf, _P["less_than"](x, zeros)))


def isposinf(x, name=None):
    return _infinities(x, "isposinf")[0]


def isneginf(x, name=None):
    return _infinities(x, "isneginf")[1]


def isreal(x, name=None):
    """True where x's imaginary part is 0: everywhere for a real x."""
    check_variable(x, "x", "isreal")
    if x.dtype.name not in ("complex64", "complex128"):
        return creation.full_like(x, 1, "bool")
    imag = introspection.imag(x)
    return _P["equal"](imag, creation.zeros_like(imag), name=name)


def nan_to_num(x, nan=0.0, posinf=None, neginf=None, name=None):
    """x with NaN, +inf and -inf replaced: by nan, and by posinf / neginf (default: the
    dtype's largest and lowest finite values)."""
    check_dtype(x, "x", "nan_to_num", ("float32", "float64"))
    info = np.finfo(convert_dtype(x.dtype))
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    positive, negative = _infinities(x, "nan_to_num")
    out = tensor.where(_P["isnan"](x), _filled(x, nan), x)
    out = tensor.where(positive, _filled(x, posinf), out)
    return tensor.where(negative, _filled(x, neginf), out, name=name)


def exact_scalar_like(x, value):
    """`value` in x's dtype, held exactly (fill_constant's text value: a FLOAT attribute,
    full_like's or scale's, would round it where the profile rounds, a float64's extremes
    to inf): a [1] tensor, 0-D for a 0-D x, so that it broadcasts to x's shape."""
    constant = creation.fill_constant([1], x.dtype, value)
    return tensor.reshape(constant, []) if len(x.shape) == 0 else constant


def _filled(x, value):
    """A tensor of x's shape and dtype holding `value` exactly (0 + exact_scalar_like: x's
    shape as the program knows it)."""
    return _P["add"](creation.zeros_like(x), exact_scalar_like(x, value))


def neg(x, name=None):
    """-x (scale by -1)."""
    check_variable(x, "x", "neg")
    return math_layers.scale(x, -1.0, name=name)


def positive(x, name=None):
    """x itself (a bool x: TypeError, as 3.3.1's `+` of a bool tensor)."""
    check_variable(x, "x", "positive")
    if x.dtype.name == "bool":
        raise TypeError("positive: the `+` operator on a bool tensor is not supported")
    return x


def hypot(x, y, name=None):
    """sqrt(x^2 + y^2) (integers cast to float32 first)."""
    check_variables("hypot", x=x, y=y)
    x, y = _promoted(as_floating(x), as_floating(y))
    return _P["sqrt"](_P["add"](_P["square"](x), _P["square"](y)), name=name)


def logaddexp(x, y, name=None):
    """log(exp(x) + exp(y)) = max(x, y) + log1p(exp(-|x - y|)) (integers cast to float32
    first; two -inf give NaN, as 3.3.1's composition)."""
    check_variables("logaddexp", x=x, y=y)
    x, y = _promoted(as_floating(x), as_floating(y))
    gap = _P["log1p"](_P["exp"](_P["scale"](_P["abs"](_P["subtract"](x, y)), -1.0)))
    return _P["add"](gap, _P["maximum"](x, y), name=name)


def ldexp(x, y, name=None):
    """x * 2^y, y of an integer dtype (integers x cast to float32 first)."""
    for arg, v in (("x", x), ("y", y)):
        if not isinstance(v, Variable):      # 3.3.1's words
            raise TypeError("ldexp: %s must be tensor type, but got %s" % (arg, type(v)))
    if y.dtype.name not in _INTEGERS:
        raise TypeError("ldexp: y must be a tensor of integers, got %s" % y.dtype.name)
    x = as_floating(x)
    exponent = math_layers.cast(y, x.dtype)
    powers = _P["pow"](creation.full_like(exponent, 2.0), exponent)
    return _P["multiply"](x, powers, name=name)


def frexp(x, name=None):
    """(mantissa, exponent) with x = mantissa * 2^exponent and 0.5 <= |mantissa| < 1 (0 and
    0 for x = 0), both of x's dtype."""
    check_dtype(x, "x", "frexp", ("float32", "float64"))
    magnitude = _P["abs"](x)
    exponent = _P["floor"](_P["log2"](magnitude))
    zeros = creation.zeros_like(x)
    exponent = tensor.where(_P["isinf"](exponent), zeros, exponent)
    mantissa = _P["divide"](magnitude, _P["pow"](creation.full_like(x, 2.0), exponent))
    at_least_one = _P["greater_equal"](mantissa, creation.ones_like(x))
    exponent = tensor.where(at_least_one, _P["scale"](exponent, 1.0, 1.0), exponent)
    mantissa = tensor.where(at_least_one, _P["scale"](mantissa, 0.5), mantissa)
    mantissa = tensor.where(_P["less_than"](x, zeros), _P["scale"](mantissa, -1.0), mantissa)
    return mantissa, exponent


def _euclid_step(a, b):
    """One step of Euclid's algorithm on (a, b), a >= b >= 0 element-wise: where b is not 0,
    (a, b) becomes (b, a mod b), reordered so the first stays the larger."""
    zeros = creation.zeros_like(b)
    moving = _P["not_equal"](b, zeros)
    safe_b = tensor.where(moving, b, creation.ones_like(b))
    a, b = tensor.where(moving, b, a), tensor.where(moving, _P["mod"](a, safe_b), zeros)
    swap = _P["less_than"](a, b)
    return tensor.where(swap, b, a), tensor.where(swap, a, b)


def _magnitude(v):
    """|v| of integers (refimpl's abs op takes floats)."""
    return tensor.where(_P["less_than"](v, creation.zeros_like(v)), neg(v), v)


def _any_nonzero(b):
    return _P["any"](_P["not_equal"](b, creation.zeros_like(b)))


def gcd(x, y, name=None):
    """The greatest common divisor of |x| and |y| (integers; gcd(0, 0) = 0), broadcast:
    Euclid's steps while any pair has a remainder (a Python loop in dynamic mode, a
    while_loop in a static program)."""
    for arg, v in (("x", x), ("y", y)):
        check_dtype(v, arg, "gcd", _INTEGERS)
    a, b = (_magnitude(v) for v in _broadcast(x, y, "gcd"))
    a, b = _P["maximum"](a, b), _P["minimum"](a, b)
    if mode.dynamic:
        while bool(_any_nonzero(b)):
            a, b = _euclid_step(a, b)
        return a
    return control_flow.while_loop(lambda a, b: _any_nonzero(b),
                                   lambda a, b: list(_euclid_step(a, b)), [a, b])[0]


def lcm(x, y, name=None):
    """|x y| / gcd(x, y), 0 where gcd is 0."""
    divisor = gcd(x, y)
    zeros = creation.zeros_like(divisor)
    at_zero = _P["equal"](divisor, zeros)
    safe = tensor.where(at_zero, creation.ones_like(divisor), divisor)
    product = _magnitude(_P["multiply"](x, y))
    return tensor.where(at_zero, zeros, _P["floor_divide"](product, safe), name=name)


def isin(x, test_x, assume_unique=False, invert=False, name=None):
    """Whether each element of x is among test_x's (bool, x's shape); `invert`: is not.
    `assume_unique` changes nothing here."""
    check_variables("isin", x=x, test_x=test_x)
    allowed = ("float32", "float64") + _INTEGERS[3:] + ("bool",)
    check_dtype(x, "x", "isin", allowed)
    check_dtype(test_x, "test_x", "isin", allowed)
    if x.dtype != test_x.dtype:
        raise TypeError("isin: x and test_x must have one dtype, got %s and %s"
                        % (x.dtype.name, test_x.dtype.name))
    matches = _P["equal"](tensor.unsqueeze(x, -1), tensor.reshape(test_x, [-1]))
    found = _P["any"](matches, axis=-1)
    return _P["logical_not"](found) if invert else found


_FUNCTIONS = {
    "atan2": atan2, "copysign": copysign, "heaviside": heaviside, "fmax": fmax, "fmin": fmin,
    "nextafter": nextafter, "isclose": isclose, "lerp": lerp,
    "bitwise_left_shift": _shift("bitwise_left_shift"),
    "bitwise_right_shift": _shift("bitwise_right_shift"), "bitwise_invert": bitwise_invert,
    "trunc": trunc, "frac": frac, "sgn": sgn, "signbit": signbit, "deg2rad": deg2rad,
    "rad2deg": rad2deg, "nan_to_num": nan_to_num, "isneginf": isneginf,
    "isposinf": isposinf, "isreal": isreal, "neg": neg, "negative": neg,
    "positive": positive, "hypot": hypot, "logaddexp": logaddexp, "ldexp": ldexp,
    "frexp": frexp, "gcd": gcd, "lcm": lcm, "isin": isin,
}
# the in-place twins 3.3.1 has (Tensor.lerp_ only as a method); the binary ones refuse a
# y that broadcasts x to another shape
_IN_PLACE = dict(
    {name + "_": in_place(_FUNCTIONS[name], name + "_")
     for name in ("frac", "trunc", "nan_to_num", "neg", "bitwise_invert")},
    **{name + "_": in_place_broadcast(_FUNCTIONS[name], name + "_")
       for name in ("hypot", "copysign", "lerp", "gcd", "lcm", "ldexp", "bitwise_left_shift",
                    "bitwise_right_shift")})

EXPORTS = {
    "paddle": dict(_FUNCTIONS, **{n: f for n, f in _IN_PLACE.items() if n != "lerp_"}),
    "Tensor": dict({n: f for n, f in _FUNCTIONS.items() if n != "positive"}, **_IN_PLACE),
}
