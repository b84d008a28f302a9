"""fluid.multiprocess_utils: cleanup of the loader processes' queues at exit, and the
registrar of exit (and signal) cleanup functions (Paddle 1.8 / 2.0's names).

`multiprocess_queue_set` holds the queues of the running multi-process from_generator
readers (fluid/reader.py adds and removes them); `_cleanup`, registered at import, drains
them when the interpreter exits, so no reader blocks on a full queue then.
specs/io_dataloader.md#loader-processes."""
import atexit
import signal
import sys

from ..io.processes import set_sigchld_handler as _set_SIGCHLD_handler  # noqa: F401
from ..io.worker import clear_queue as _clear_queue

__all__ = ["multiprocess_queue_set", "CleanupFuncRegistrar"]

multiprocess_queue_set = set()


def _clear_multiprocess_queue_set():
    for data_queue in list(multiprocess_queue_set):
        _clear_queue(data_queue)


def _cleanup():
    """What runs at exit in the main process: drain the readers' queues."""
    _clear_multiprocess_queue_set()


class CleanupFuncRegistrar:
    """register(function, signals=()) runs `function` once at interpreter exit, or at the
    first of `signals` received: that signal's handler then runs it and raises
    KeyboardInterrupt (SIGINT) or SystemExit(signum), replacing the signal's handler.
    Registering a function again changes nothing."""

    _executed = set()
    _registered = set()

    @classmethod
    def register(cls, function, signals=()):
        if not callable(function):
            raise TypeError("CleanupFuncRegistrar.register: %r is not callable (a "
                            "function to run at exit)" % (function,))

        def run_once():
            if function not in cls._executed:
                try:
                    function()
                finally:
                    cls._executed.add(function)

        def on_signal(signum, frame):
            run_once()
            if signum == signal.SIGINT:
                raise KeyboardInterrupt
            sys.exit(signum)

        for signum in set(signals):
            signal.signal(signum, on_signal)
        if function not in cls._registered:
            atexit.register(run_once)
            cls._registered.add(function)


CleanupFuncRegistrar.register(_cleanup)
