"""The loader processes of this process: a registry of their pids checked for failures,
the fault handler they install, and the SIGCHLD handler that raises when one has failed.

Every process a loader starts (a DataLoader worker, a multi-process from_generator
reader) is registered under its owner's key while it runs (`set_process_pids`) and erased
when the owner has stopped it (`erase_process_pids`), so a process that exits on request
or is terminated by its owner is never reported. `throw_error_if_process_failed` looks at
each registered process without reaping it (waitid with WNOWAIT: multiprocessing's join
still gets the status) and raises WorkerProcessError for the first one that exited with a
non-zero code or was killed by a signal. Paddle's fluid.core spells these
_set_process_pids, _erase_process_pids, _throw_error_if_process_failed and
_set_process_signal_handler (fluid/core.py).

`loader_context` is how every loader starts its processes, and `set_up_loader_process`
what each of them does first (only in a process multiprocessing started: Paddle's tests
run the loops in their own process, which must stay as it was)."""
import faulthandler
import multiprocessing
import os
import signal
import sys
from multiprocessing import resource_tracker

from ..framework.errors import WorkerProcessError

__all__ = ["set_process_pids", "erase_process_pids", "registered_pids", "exit_description",
           "stop_process", "throw_error_if_process_failed", "set_process_signal_handler",
           "set_sigchld_handler", "loader_context", "set_up_loader_process"]

_pids = {}   # owner key -> tuple of pids


def set_process_pids(key, pids):
    """Register the loader processes `pids` of owner `key` (replacing its earlier ones).
    One that has already failed is reported at once (WorkerProcessError): its SIGCHLD
    came before anyone could listen for it."""
    _pids[key] = tuple(int(pid) for pid in pids)
    _raise_if_failed(key)


def erase_process_pids(key):
    """Forget owner `key`'s processes (no error when it has none)."""
    _pids.pop(key, None)


def registered_pids(key=None):
    """The pids registered for `key`, or every registered pid when key is None."""
    if key is not None:
        return _pids.get(key, ())
    return tuple(pid for pids in _pids.values() for pid in pids)


def exit_description(code):
    """How a process ended, from multiprocessing's exitcode (negative: the signal number):
    'exit code 1', 'exit code -9 (killed by signal SIGKILL: Killed)'."""
    how = "exit code %s" % code
    if code is not None and code < 0:
        how += " (killed by signal %s)" % _signal_words(-code)
    return how


def loader_context(shares_memory):
    """The multiprocessing context a loader starts its processes in: fork where the
    platform has it (the dataset and functions need not pickle), else spawn (they must).
    With `shares_memory` (its processes will write shared-memory segments) multiprocessing's
    resource tracker is started first, so the processes share this process's one tracker:
    one a process started for itself would unlink its segments when the process exits,
    before this process has read them."""
    methods = multiprocessing.get_all_start_methods()
    if shares_memory:
        resource_tracker.ensure_running()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def set_up_loader_process():
    """What a loader process does first: ignore SIGINT (Ctrl-C is the main process's to
    handle: it stops its loaders) and install the fault handler. Only in a process
    multiprocessing started (returns True then); run anywhere else -- Paddle's tests call
    the worker and reader loops in their own main process -- it changes nothing and
    returns False, so the caller's signal handling is left as it was."""
    if multiprocessing.parent_process() is None:
        return False
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    set_process_signal_handler()
    return True


def stop_process(process, grace_s):
    """Stop a loader process (a multiprocessing.Process): terminated (SIGTERM) if it still
    runs, killed if it outlives `grace_s` seconds after that, then reaped."""
    if process.is_alive():
        process.terminate()
        process.join(grace_s)
    if process.is_alive():
        process.kill()
    process.join()


def _signal_words(number):
    try:
        name = signal.Signals(number).name
    except ValueError:
        return str(number)
    return "%s: %s" % (name, signal.strsignal(number))


def _status(pid):
    """The exitcode (multiprocessing's convention) of child `pid` if it has ended, else
    None; the child stays waitable."""
    try:
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:   # not our child, or already reaped: nothing to report
        return None
    if info is None:
        return None
    if info.si_code == os.CLD_EXITED:
        return info.si_status
    return -info.si_status      # CLD_KILLED / CLD_DUMPED


def throw_error_if_process_failed():
    """Raise WorkerProcessError naming the first registered process that exited with a
    non-zero code or was killed; its owner's registration is dropped, so it is reported
    once."""
    for key in list(_pids):
        _raise_if_failed(key)


def _raise_if_failed(key):
    for pid in _pids.get(key, ()):
        code = _status(pid)
        if code:
            erase_process_pids(key)
            raise WorkerProcessError(
                "FatalError: DataLoader process (pid %d) exited unexpectedly with %s. Its "
                "error details are lost with it: read in the main process "
                "(DataLoader(..., num_workers=0), or DataLoader.from_generator(..., "
                "use_multiprocess=False)) to see the failure" % (pid, exit_description(code)))


def set_process_signal_handler():
    """In a loader process: on SIGSEGV, SIGBUS, SIGFPE, SIGABRT or SIGILL, print the
    Python traceback of every thread to stderr, then die of the signal (faulthandler, a
    C-level handler: a Python-level one would retry a real fault forever)."""
    faulthandler.enable(file=sys.__stderr__ or sys.stderr, all_threads=True)


_sigchld_installed = [False]


def set_sigchld_handler():
    """Once per process, in the main thread: on SIGCHLD, raise (in the main thread) the
    WorkerProcessError of a registered process that failed, then call the handler that
    was there before. refimpl's own loaders do not need it (they wait on the processes'
    sentinels together with their results); Paddle's fluid.multiprocess_utils installs
    it (_set_SIGCHLD_handler)."""
    if _sigchld_installed[0]:
        return
    previous = signal.getsignal(signal.SIGCHLD)
    if not callable(previous):
        previous = None

    def on_sigchld(signum, frame):
        throw_error_if_process_failed()
        if previous is not None:
            previous(signum, frame)

    signal.signal(signal.SIGCHLD, on_sigchld)
    _sigchld_installed[0] = True
