"""A numpy-backed stand-in for CuPy: "device" arrays that behave at the host/device
boundary as CuPy's do, so the GPU code paths (placement, fetches, host staging, array-
generic references, collectives) run on a machine without a GPU.

What it copies from CuPy: a device array is not a numpy array; implicit conversion to numpy
raises TypeError (`np.asarray(d)`), and so does mixing a device array with a host array in
one operation; numpy functions and array methods on device arrays dispatch to the module
(NEP 13/18) but only those CuPy has (checked against the installed CuPy's names when it
imports); `.get()` and `asnumpy` copy to the host; `cuda.Device(i)` selects the current
device, arrays remember the device they were made on, and computing with an array of
another device than the current one raises (CuPy without peer access).
What it cannot show: that CuPy's kernels compute the same numbers (the GPU tests do that).

`installed(n_devices)` installs it as refimpl's GPU module for a `with` block."""
import contextlib
import threading
import types

import numpy as np
from numpy.lib.mixins import NDArrayOperatorsMixin

try:
    import cupy as _real
except Exception:    # no CuPy: allow what numpy has
    _real = None

class _State(threading.local):
    device = 0     # the current device is per thread, as CUDA's (and CuPy's)


_state = _State()
_count = [1]


def _has(name, owner="module"):
    if _real is None:
        return True
    return hasattr(_real if owner == "module" else _real.ndarray, name)


class ndarray(NDArrayOperatorsMixin):
    __slots__ = ("_a", "device_id")

    def __init__(self, a, device_id=None):
        self._a = a
        self.device_id = _state.device if device_id is None else device_id

    # -- the boundary ------------------------------------------------------------------
    def __array__(self, dtype=None, copy=None):
        raise TypeError("Implicit conversion to a NumPy array is not allowed. Please use "
                        "`.get()` to construct a NumPy array explicitly.")

    def get(self):
        return self._a.copy()

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method not in ("__call__", "reduce", "accumulate", "outer", "at") or \
                not _has(ufunc.__name__):
            return NotImplemented
        args = [_unwrap(x) for x in inputs]
        if "out" in kwargs:
            kwargs["out"] = tuple(_unwrap(o) for o in kwargs["out"])
        return _wrap(getattr(ufunc, method)(*args, **kwargs))

    def __array_function__(self, func, types_, args, kwargs):
        if not _has(func.__name__):
            return NotImplemented
        return _wrap(func(*_unwrap(args), **_unwrap(kwargs)))

    # -- the array API, forwarded to the numpy array held ----------------------------------
    def __getattr__(self, name):
        if name.startswith("__") or not _has(name, "ndarray"):
            raise AttributeError("%s has no attribute %r (nor has cupy.ndarray)"
                                 % (type(self).__name__, name))
        value = getattr(self._a, name)
        if callable(value):
            return lambda *a, **k: _wrap(value(*_unwrap(a), **_unwrap(k)))
        return _wrap(value)

    @property
    def device(self):
        return types.SimpleNamespace(id=self.device_id)   # CuPy: a cuda.Device

    @property
    def T(self):
        return ndarray(self._a.T, self.device_id)

    def __getitem__(self, index):
        return _wrap(self._a[_unwrap(index)])

    def __setitem__(self, index, value):
        self._a[_unwrap(index)] = _unwrap(value)

    def __len__(self):
        return len(self._a)

    def __iter__(self):
        return (_wrap(x) for x in self._a)

    def __bool__(self):
        return bool(self._a)

    def __float__(self):
        return float(self._a)

    def __int__(self):
        return int(self._a)

    def __index__(self):
        return self._a.__index__()

    def __repr__(self):
        return "array(%r, device=%d)" % (self._a, self.device_id)


def _unwrap(x):
    if isinstance(x, ndarray):
        if x.device_id != _state.device:    # CuPy without peer access between the GPUs
            raise ValueError("The device where the array resides (%d) is different from "
                             "the current device (%d)." % (x.device_id, _state.device))
        return x._a
    if isinstance(x, np.ndarray) and x.ndim > 0:
        raise TypeError("Unsupported type <class 'numpy.ndarray'>")   # as CuPy says
    if isinstance(x, (list, tuple)):
        return type(x)(_unwrap(v) for v in x)
    if isinstance(x, dict):
        return {k: _unwrap(v) for k, v in x.items()}
    return x


def _wrap(x):
    if isinstance(x, np.ndarray):
        return ndarray(x)
    if isinstance(x, np.generic):
        return ndarray(np.asarray(x))    # CuPy reductions return 0-d arrays, not scalars
    if isinstance(x, (list, tuple)):
        return type(x)(_wrap(v) for v in x)
    return x


def asarray(a, dtype=None):
    if isinstance(a, ndarray):
        return a if dtype is None or a.dtype == dtype else a.astype(dtype)
    return ndarray(np.array(a, dtype=dtype))


array = asarray


def asnumpy(a):
    return a.get() if isinstance(a, ndarray) else np.asarray(a)


def __getattr__(name):
    """Array-making functions (zeros, arange, ...) and the rest of numpy's namespace, where
    CuPy has the same name; results on the current device."""
    if not _has(name):
        raise AttributeError("the GPU module has no %r (CuPy has none)" % name)
    value = getattr(np, name)
    if isinstance(value, np.ufunc):
        return _UFunc(value)
    if callable(value) and not isinstance(value, type):
        return lambda *a, **k: _wrap(value(*_unwrap(a), **_unwrap(k)))
    return value


class _UFunc:
    """A numpy ufunc on device arrays, with `at` (in place) as cupy's ufuncs have it."""

    def __init__(self, ufunc):
        self._ufunc = ufunc

    def __call__(self, *args, **kwargs):
        return _wrap(self._ufunc(*_unwrap(args), **_unwrap(kwargs)))

    def at(self, a, indices, b=None):
        self._ufunc.at(_unwrap(a), _unwrap(indices), _unwrap(b))


class _Device:
    def __init__(self, device_id=None):
        self.id = _state.device if device_id is None else device_id
        if not 0 <= self.id < _count[0]:
            raise RuntimeError("cudaErrorInvalidDevice: invalid device ordinal %d" % self.id)
        self._previous = []

    def __enter__(self):
        self._previous.append(_state.device)
        _state.device = self.id
        return self

    def __exit__(self, *exc):
        _state.device = self._previous.pop()

    def use(self):
        _state.device = self.id


cuda = types.SimpleNamespace(
    Device=_Device,
    runtime=types.SimpleNamespace(getDeviceCount=lambda: _count[0]),
    nccl=None)


@contextlib.contextmanager
def installed(n_devices=1):
    """This module as refimpl's GPU module, seeing `n_devices` GPUs, for a `with` block."""
    import sys

    from refimpl import xp
    from refimpl.framework import place
    module = sys.modules[__name__]
    _state.device, _count[0] = 0, n_devices
    previous = xp.use_gpu_module(module)
    place.forget_device_count()
    try:
        yield module
    finally:
        xp.use_gpu_module(previous)
        place.forget_device_count()
