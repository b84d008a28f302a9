"""paddle.utils: deprecated, require_version, run_check, try_import."""
import functools
import importlib
import warnings

from ..fluid.compat import require_version

__all__ = ["deprecated", "require_version", "run_check", "try_import"]


def deprecated(update_to="", since="", reason="", level=0):
    """Decorator: calling the function warns that it is deprecated (level 2: raises)."""
    def decorate(func):
        message = "API %s is deprecated since %s" % (func.__name__, since or "?")
        if update_to:
            message += "; use %s instead" % update_to
        if reason:
            message += ". Reason: %s" % reason

        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            if level >= 2:
                raise RuntimeError(message)
            if level == 1:
                warnings.warn(message, DeprecationWarning, stacklevel=2)
            return func(*args, **kwargs)
        return wrapped
    return decorate


def try_import(module_name):
    """The module, or an ImportError saying how to install it."""
    try:
        return importlib.import_module(module_name)
    except ImportError:
        raise ImportError("Failed importing %s. This likely means that some paddle modules "
                          "require additional dependencies that have to be manually "
                          "installed (usually with `pip install %s`)."
                          % (module_name, module_name.split(".")[0])) from None


def run_check():
    """Build and run a one-layer program (Paddle's install check) and say so."""
    import numpy as np
    from .. import static
    from ..framework.program import Program, program_guard
    main, startup = Program(), Program()
    with program_guard(main, startup):
        x = static.data("x", [None, 2], "float32")
        from ..layers.math import mean
        loss = mean(static.nn.fc(x, 1))
    from ..framework.scope import Scope
    exe = static.Executor()
    scope = Scope()
    exe.run(startup, scope=scope)
    exe.run(main, feed={"x": np.ones((2, 2), "float32")}, fetch_list=[loss], scope=scope)
    print("Running verify PaddlePaddle program ... \nPaddlePaddle works well on 1 CPU.")
