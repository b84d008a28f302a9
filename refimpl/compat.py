"""paddle.compat (1.8): Python 2/3 text helpers that Paddle code calls."""
import math

__all__ = ["long_type", "int_type", "to_text", "to_bytes", "round", "floor_division",
           "get_exception_message"]

long_type = int
int_type = int


def _convert(obj, convert, inplace):
    if isinstance(obj, list):
        converted = [_convert(item, convert, False) for item in obj]
        if inplace:
            obj[:] = converted
            return obj
        return converted
    if isinstance(obj, set):
        converted = {_convert(item, convert, False) for item in obj}
        if inplace:
            obj.clear()
            obj.update(converted)
            return obj
        return converted
    return convert(obj)


def to_text(obj, encoding="utf-8", inplace=False):
    """bytes -> str (decoded), also in lists and sets; anything else unchanged."""
    if obj is None:
        return obj
    return _convert(obj, lambda o: o.decode(encoding) if isinstance(o, bytes) else o, inplace)


def to_bytes(obj, encoding="utf-8", inplace=False):
    """str -> bytes (encoded), also in lists and sets; anything else unchanged."""
    if obj is None:
        return obj
    return _convert(obj, lambda o: o.encode(encoding) if isinstance(o, str) else o, inplace)


def round(x, d=0):
    """Python 2's round: halves away from zero."""
    p = 10 ** d
    return float(math.floor(x * p + math.copysign(0.5, x))) / p


def floor_division(x, y):
    return x // y


def get_exception_message(exc):
    """The text of an exception."""
    if exc is None:
        raise ValueError("get_exception_message: exc must not be None")
    return str(exc)
