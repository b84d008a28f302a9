"""convert_call (Paddle 2.0's convert_call_func.py name, refimpl's code): what a call
inside a converted function calls. User functions and methods are converted too (their
control flow on tensors becomes ops); a user Layer runs its forward converted; refimpl's
own functions, builtins and library code run as they are."""
import os
import sysconfig
import types
import weakref

from ...nn import Layer

__all__ = ["convert_call", "convert_to_static", "CONVERSION_OPTIONS"]

CONVERSION_OPTIONS = "An attribute for a function that indicates conversion flags of the " \
    "function in dynamic-to-static."


class ConversionOptions:
    """What paddle.jit.not_to_static sets on a function (2.0's attribute of the name
    CONVERSION_OPTIONS): not_convert, so convert_call leaves it as Python."""

    def __init__(self, not_convert=False):
        self.not_convert = not_convert

_LIBRARY_DIRS = tuple(os.path.realpath(p) for p in {
    sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["purelib"],
    sysconfig.get_paths()["platlib"], os.path.dirname(os.__file__)})
_REFIMPL_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_converted = weakref.WeakKeyDictionary()      # function -> its converted twin, or itself


def _user_function(function):
    """A plain Python function of the user's (not refimpl's, Paddle's, the standard
    library's or an installed package's), not marked not_to_static."""
    if not isinstance(function, types.FunctionType) or \
            getattr(getattr(function, CONVERSION_OPTIONS, None), "not_convert", False) or \
            function.__name__ == "<lambda>":
        return False
    module = getattr(function, "__module__", None) or ""
    if module.split(".")[0] in ("refimpl", "paddle", "numpy", "gast", "unittest"):
        return False
    path = os.path.realpath(function.__code__.co_filename)
    return not path.startswith(_LIBRARY_DIRS + (_REFIMPL_DIR,)) and os.path.exists(path)


def converted(function):
    """The converted twin of a user function (itself when it cannot be converted: no
    source, a lambda, syntax the conversion does not take)."""
    from .ast_transformer import convert_function
    if function not in _converted:
        try:
            _converted[function] = convert_function(function)
        except (OSError, TypeError, SyntaxError, IndexError):
            _converted[function] = function
    return _converted[function]


def convert_to_static(function):
    """2.0's convert_to_static: the converted twin of a function, the same object each
    time (cached)."""
    return converted(function)


def _layer_with_converted_forward(layer):
    forward = type(layer).forward
    target = getattr(forward, "_dygraph_function", forward)
    if not _user_function(target):
        return layer
    twin = converted(target)

    def call(*args, **kwargs):
        had = "forward" in layer.__dict__
        saved = layer.__dict__.get("forward")
        layer.__dict__["forward"] = types.MethodType(twin, layer)
        try:
            return layer(*args, **kwargs)
        finally:
            if had:
                layer.__dict__["forward"] = saved
            else:
                del layer.__dict__["forward"]
    return call


def convert_call(func):
    """`func` as a converted function calls it (see the module docstring)."""
    from ..static_function import StaticFunction
    from .convert_operators import convert_len, convert_print
    if func is len:
        return convert_len
    if func is print:
        return convert_print
    if isinstance(func, StaticFunction):
        target = converted(func._dygraph_function)
        instance = func._class_instance
        return types.MethodType(target, instance) if instance is not None else target
    if isinstance(func, Layer):
        return _layer_with_converted_forward(func)
    if isinstance(func, types.MethodType) and _user_function(func.__func__):
        return types.MethodType(converted(func.__func__), func.__self__)
    if _user_function(func):
        return converted(func)
    return func
