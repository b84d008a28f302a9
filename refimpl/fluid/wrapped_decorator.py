"""paddle.fluid.wrapped_decorator (Paddle 1.8): decorators that keep the decorated
function's name, docstring and signature."""
import contextlib
import functools
import inspect

__all__ = ["wrap_decorator", "signature_safe_contextmanager"]


def wrap_decorator(decorator_func):
    """A decorator like `decorator_func` (func -> replacement) whose results look like
    the function they replace: name, docstring and arguments (inspect.signature and
    getfullargspec), as 1.8's (made with the `decorator` package)."""
    def decorate(func):
        replacement = functools.wraps(func)(decorator_func(func))
        replacement.__signature__ = inspect.signature(func)
        return replacement
    return decorate


signature_safe_contextmanager = wrap_decorator(contextlib.contextmanager)
