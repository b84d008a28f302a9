"""paddle.utils (Paddle 2.0): deprecated, try_import, run_check, require_version,
unique_name, the nested-structure helpers (flatten, map_structure, ...: Paddle 3), download (cached files only: refimpl fetches nothing), the profiler
(ProfilerOptions, Profiler, get_profiler: profiler.py)."""
import functools
import importlib
import warnings

from ..fluid.compat import require_version
from ..fluid.deprecation import deprecation_message, with_note
from ..framework import unique_name
from ..fluid.layers.utils import (assert_same_structure, convert_to_list, flatten, map_structure,
                                  pack_sequence_as)
from ..layers.creation import try_set_static_shape_tensor
from . import download
from .profiler import Profiler, ProfilerOptions, get_profiler

__all__ = ["deprecated", "try_import", "run_check", "require_version", "unique_name",
           "download", "Profiler", "ProfilerOptions", "get_profiler",
           # Paddle 3's nested-structure helpers (3.3.1's paddle.utils has them)
           "assert_same_structure", "convert_to_list", "flatten", "map_structure",
           "pack_sequence_as", "try_set_static_shape_tensor"]


def deprecated(update_to="", since="", reason="", level=0):
    """Decorator: calling the function warns that it is deprecated (since `since`, use
    `update_to`, because `reason`); level 2 raises instead, as Paddle's. Its docstring
    starts with the same message (fluid/deprecation.py)."""
    if level not in (0, 1, 2):
        raise ValueError("deprecated: level must be 0, 1 or 2, got %r" % (level,))

    def decorate(func):
        message = deprecation_message(func, since, update_to, reason)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if level == 2:
                raise RuntimeError(message)
            warnings.warn(message, DeprecationWarning, stacklevel=2)
            return func(*args, **kwargs)
        wrapper.__doc__ = with_note(func.__doc__, message)
        return wrapper
    return decorate


def try_import(module_name):
    """The module, or an ImportError saying which package to install."""
    try:
        return importlib.import_module(module_name)
    except ImportError as e:
        raise ImportError("Failed importing %s. This likely means that some paddle modules "
                          "require additional dependencies that have to be manually "
                          "installed (usually with `pip install %s`)."
                          % (module_name, module_name.split(".")[0])) from e


def run_check():
    """Build and train a small network on one CPU place and on two, as Paddle's install
    check does, and say that it works."""
    import numpy as np
    from .. import static, optimizer
    from ..framework.place import CPUPlace
    from ..framework.scope import Scope
    print("Running verify PaddlePaddle program ... ")
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), unique_name.guard():
        x = static.data("x", [None, 2], "float32")
        loss = static.nn.fc(x, 1).mean()
        optimizer.SGD(0.01).minimize(loss)
    exe, scope = static.Executor(CPUPlace()), Scope()
    exe.run(startup, scope=scope)
    feed = {"x": np.ones((2, 2), "float32")}
    exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
    print("PaddlePaddle works well on 1 CPU.")
    parallel = static.CompiledProgram(main).with_data_parallel(
        loss_name=loss.name, places=[CPUPlace()] * 2)
    exe.run(parallel, feed=feed, fetch_list=[loss], scope=scope)
    print("PaddlePaddle works well on 2 CPUs.")
    print("PaddlePaddle is installed successfully! Let's start deep learning with "
          "PaddlePaddle now.")
