"""Devices. A CPUPlace computes with numpy; a CUDAPlace(i) with CuPy on GPU i (specs/gpu.md).

A CUDAPlace names a GPU that exists: without one (no CuPy, no device) constructing it
raises, as Paddle's CPU build does (1.8 exits the process, 3.x raises)."""
import contextlib
import enum
import numbers
import os

from .. import versions
from ..xp import gpu_count

__all__ = ["CPUPlace", "CUDAPlace", "CUDAPinnedPlace", "cpu_places", "cuda_places", "xpu_places",
           "is_compiled_with_cuda", "device_count", "forget_device_count", "device_of", "as_place",
           "current_place", "set_current_place", "place_guard", "DeviceType"]


class DeviceType(enum.IntEnum):
    """Paddle 2.0's core.DeviceType (the device a ParallelExecutor's test runs on; its
    tests pick the place from it, and set ExecutionStrategy._use_device to it)."""
    CPU = 0
    CUDA = 1
    XPU = 2


class Place:
    # Paddle 1.8's place kinds, as Place._type() numbers them (its C++ Place variant)
    _TYPE_INDEX = {"CUDAPlace": 0, "CPUPlace": 1, "CUDAPinnedPlace": 2}

    def __eq__(self, other):
        return type(self) is type(other) and self._key() == other._key()

    def __hash__(self):
        return hash((type(self).__name__, self._key()))

    def _key(self):
        return ()

    def _type(self):
        return self._TYPE_INDEX[type(self).__name__]

    def __repr__(self):
        """'CPUPlace', 'CUDAPlace(0)' (1.8, 2.0), or Paddle 3's 'Place(cpu)', 'Place(gpu:0)'
        (switch place_repr), which the Tensor's repr shows too."""
        if versions.switch("place_repr") == "place":
            return "Place(%s)" % self._device_text()
        return self._legacy_repr()

    def _legacy_repr(self):
        return type(self).__name__

    def _equals(self, other):
        """The same place (fluid.core.Place wrappers compare by the place they hold)."""
        return self == getattr(other, "_place", other)

    # what Paddle's core.Place answers, which LoDTensor._place() returns there
    def is_cpu_place(self):
        return isinstance(self, CPUPlace)

    def is_gpu_place(self):
        return isinstance(self, CUDAPlace)

    def is_cuda_pinned_place(self):
        return isinstance(self, CUDAPinnedPlace)


class CPUPlace(Place):
    def _device_text(self):
        return "cpu"


class CUDAPinnedPlace(Place):
    def _device_text(self):
        return "gpu_pinned"


class CUDAPlace(Place):
    def __init__(self, device_id=0):
        if not isinstance(device_id, numbers.Integral) or isinstance(device_id, bool) \
                or device_id < 0:
            raise ValueError("CUDAPlace(%r): device_id must be an integer >= 0" % (device_id,))
        count = device_count()
        if device_id >= count:
            if count == 0:
                raise ValueError(
                    "CUDAPlace(%d): no GPU is usable here (refimpl runs CUDAPlace on CuPy with a "
                    "CUDA device; is_compiled_with_cuda() is False). On a machine without a GPU "
                    "use CPUPlace(), as Paddle's CPU build says: \"If you only have CPU, please "
                    "change CUDAPlace(%d) to be CPUPlace()\"" % (device_id, device_id))
            raise ValueError("CUDAPlace(%d): this machine has %d GPU%s: device_id must be in "
                             "[0, %d)" % (device_id, count, "s" if count > 1 else "", count))
        self.device_id = int(device_id)

    def _key(self):
        return (self.device_id,)

    def get_device_id(self):
        return self.device_id

    def _device_text(self):
        return "gpu:%d" % self.device_id

    def _legacy_repr(self):
        return "CUDAPlace(%d)" % self.device_id


def is_compiled_with_cuda():
    """True when CuPy and a GPU are usable."""
    return device_count() > 0


_devices = []   # the GPU count, once known (asking CuPy costs an import attempt)


def device_count():
    """GPUs usable here: 0 without CuPy, a CUDA driver or a device (refimpl.xp.gpu_count)."""
    if not _devices:
        _devices.append(gpu_count())
    return _devices[0]


def forget_device_count():
    """Ask again next time (after refimpl.xp.use_gpu_module installs another GPU module)."""
    _devices.clear()


def device_of(place):
    """The GPU id a place computes on, None for the CPU (CPUPlace, CUDAPinnedPlace)."""
    return place.device_id if isinstance(place, CUDAPlace) else None


def cpu_places(device_count=None):
    """`device_count` CPUPlaces; by default CPU_NUM from the environment (set to 1 if unset)."""
    if device_count is None:
        raw = os.environ.setdefault("CPU_NUM", "1")
        try:
            device_count = int(raw)
        except ValueError:
            device_count = 0
        if device_count < 1:
            raise ValueError("CPU_NUM=%r: the number of CPU places must be an integer >= 1"
                             % raw)
    return [CPUPlace() for _ in range(device_count)]


def cuda_places(device_ids=None):
    """CUDAPlaces for `device_ids`, by default FLAGS_selected_gpus or every visible GPU (as
    Paddle). Without a GPU: ValueError (Paddle asserts "Not compiled with CUDA")."""
    if not is_compiled_with_cuda():
        raise ValueError("cuda_places(): no GPU is usable here (refimpl runs CUDAPlace on CuPy "
                         "with a CUDA device); use cpu_places()")
    if device_ids is None:
        visible = os.environ.get("FLAGS_selected_gpus")
        device_ids = ([int(s) for s in visible.split(",") if s.strip()] if visible
                      else list(range(device_count())))
    elif not isinstance(device_ids, (list, tuple)):
        device_ids = [device_ids]
    return [CUDAPlace(i) for i in device_ids]


def xpu_places(device_ids=None):
    """Paddle 2.0's XPU (Baidu Kunlun) places: refimpl has no XPU build, so this refuses as
    Paddle built without XPU does (it asserts "Not compiled with XPU")."""
    raise AssertionError("xpu_places(): refimpl is not compiled with XPU (Baidu Kunlun); "
                         "use cpu_places()")


_current = []   # the place set_device chose; empty: CPUPlace()


def current_place():
    """The place paddle.set_device chose (an Executor made without a place runs there)."""
    return _current[0] if _current else CPUPlace()


def set_current_place(place):
    _current[:] = [as_place(place)]
    return _current[0]


@contextlib.contextmanager
def place_guard(place):
    """`place` is the current place inside (1.8's fluid.framework._dygraph_place_guard),
    the previous one after."""
    saved = list(_current)
    set_current_place(place)
    try:
        yield
    finally:
        _current[:] = saved


def as_place(place):
    """A Place from a Place or a string 'cpu' / 'gpu' / 'gpu:x' (any case, as Paddle
    2.0's set_device lowers it: 'CPU')."""
    if isinstance(place, Place):
        return place
    if isinstance(place, str):
        kind, _, index = place.lower().partition(":")
        if kind == "cpu" and not index:
            return CPUPlace()
        if kind == "gpu" and (index.isdigit() or not index):
            return CUDAPlace(int(index or 0))
    raise ValueError("place %r: expected CPUPlace(), CUDAPlace(i) or a string 'cpu' or "
                     "'gpu:i'" % (place,))
