"""The array module an op computes with, and moving arrays between host and GPU.

`array_module(*arrays)`: numpy, or the GPU module (CuPy) when an argument lives on a GPU
(Chainer's `xp` idiom). A reference written as `xp = array_module(x)` then `xp.zeros(...)`,
`xp.einsum(...)` runs on either. `to_device` / `to_host` cross the boundary; `device(i)`
makes GPU i current for the arrays made inside it.

The GPU module is CuPy, imported on first use; `use_gpu_module(m)` installs another module
with CuPy's interface (the tests' numpy-backed stand-in, which runs the GPU code paths on a
machine without a GPU). A leaf: it imports nothing from refimpl."""
import contextlib
import threading

import numpy as np

__all__ = ["array_module", "gpu_module", "use_gpu_module", "is_device_array", "to_device",
           "to_host", "device", "device_id_of", "gpu_count", "defer_check", "run_deferred_checks",
           "drop_deferred_checks"]

_installed = []    # [module] once chosen: CuPy, or what use_gpu_module installed


def gpu_module():
    """CuPy (or the installed stand-in); None when CuPy does not import."""
    if not _installed:
        try:
            import cupy
        except Exception:    # not installed, or a broken CUDA install: no GPU module
            cupy = None
        _installed.append(cupy)
    return _installed[0]


def use_gpu_module(module):
    """Install `module` as the GPU module (None: back to CuPy, looked up again). Returns the
    one it replaces. Callers that cache a GPU count (framework.place) must be reset too."""
    previous = _installed[0] if _installed else None
    _installed[:] = [module] if module is not None else []
    return previous


_deferred = threading.local()   # each place's thread queues its own GPU kernels' checks


def _checks():
    if not hasattr(_deferred, "checks"):
        _deferred.checks = []
    return _deferred.checks


def defer_check(check):
    """Queue `check()` (it raises on bad input) until the run ends (run_deferred_checks): a
    GPU kernel's check of its input that, run at once, would stop the host until the device
    caught up, and with it the overlap of Python with the GPU's work."""
    _checks().append(check)


def run_deferred_checks():
    """Run and forget the checks this thread queued (the first that fails raises)."""
    checks = _checks()
    queued, checks[:] = list(checks), []
    for check in queued:
        check()


def drop_deferred_checks():
    """Forget the queued checks (those of a run that failed before its end)."""
    _checks().clear()


def gpu_count():
    """How many GPUs the GPU module sees: 0 without CuPy, a driver or a device."""
    xp = gpu_module()
    if xp is None:
        return 0
    try:
        return int(xp.cuda.runtime.getDeviceCount())
    except Exception:    # CUDARuntimeError (no driver, insufficient driver, no device)
        return 0


def is_device_array(a):
    if not _installed:
        if not type(a).__module__.startswith("cupy"):
            return False    # the common case: a numpy array, before any GPU use
        gpu_module()
    xp = _installed[0]
    return xp is not None and isinstance(a, xp.ndarray)


def array_module(*arrays):
    for a in arrays:
        if type(a) is not np.ndarray and is_device_array(a):
            return _installed[0]
    return np


def to_device(a):
    """`a` (an array or a number) as an array on the current GPU; one already there as is."""
    if is_device_array(a):
        return a
    return _installed[0].asarray(a)


def to_host(a):
    """`a` as a numpy array (a copy from the GPU); a host value as is."""
    return a.get() if is_device_array(a) else a


def device_id_of(a):
    """The GPU a device array lives on; None for a host value."""
    return a.device.id if is_device_array(a) else None


def device(device_id):
    """A context in which GPU `device_id` is current (a no-op context for None: the CPU)."""
    if device_id is None:
        return contextlib.nullcontext()
    return gpu_module().cuda.Device(device_id)
