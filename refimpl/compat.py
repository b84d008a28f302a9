"""paddle.compat (1.8): Python 2/3 text helpers that Paddle code calls."""
import math

__all__ = ["long_type", "int_type", "to_text", "to_bytes", "round", "floor_division",
           "get_exception_message"]

long_type = int
int_type = int


def _convert(obj, convert, inplace):
    if isinstance(obj, dict):
        converted = {convert(k): convert(v) for k, v in obj.items()}
        if inplace:
            obj.clear()
            obj.update(converted)
            return obj
        return converted
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
    """bytes -> str (decoded), also in lists, sets and dicts (keys and values); anything
    else unchanged. inplace=True converts the container itself and returns it."""
    if obj is None:
        return obj
    return _convert(obj, lambda o: o.decode(encoding) if isinstance(o, bytes) else o, inplace)


def to_bytes(obj, encoding="utf-8", inplace=False):
    """str -> bytes (encoded), also in lists, sets and dicts; anything else unchanged."""
    if obj is None:
        return obj
    return _convert(obj, lambda o: o.encode(encoding) if isinstance(o, str) else o, inplace)


def round(x, d=0):
    """Python 2's round: halves away from zero (the sign kept, -0.1 -> -0.0)."""
    p = 10 ** d
    return math.copysign(math.floor(abs(x) * p + 0.5) / p, x)


def floor_division(x, y):
    return x // y


def get_exception_message(exc):
    """The text of an exception."""
    if exc is None:
        raise AssertionError("get_exception_message: exc must not be None")
    return str(exc)
