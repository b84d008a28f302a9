"""paddle.fluid.wrapped_decorator (Paddle 1.8): decorators that keep the decorated
function's name, docstring and signature."""
import contextlib
import functools

__all__ = ["wrap_decorator", "signature_safe_contextmanager"]


def wrap_decorator(decorator_func):
    """A decorator like `decorator_func` (func -> replacement) whose results look like
    the function they replace (functools.wraps: name, docstring, inspect.signature)."""
    def decorate(func):
        return functools.wraps(func)(decorator_func(func))
    return decorate


signature_safe_contextmanager = wrap_decorator(contextlib.contextmanager)
