"""Devices. refimpl computes on the CPU with numpy; CUDAPlace selects CuPy when present."""
import os

__all__ = ["CPUPlace", "CUDAPlace", "CUDAPinnedPlace", "cpu_places", "cuda_places",
           "is_compiled_with_cuda", "device_count"]


class Place:
    def __eq__(self, other):
        return type(self) is type(other) and self._key() == other._key()

    def __hash__(self):
        return hash((type(self).__name__, self._key()))

    def _key(self):
        return ()


class CPUPlace(Place):
    def __repr__(self):
        return "CPUPlace"


class CUDAPinnedPlace(Place):
    def __repr__(self):
        return "CUDAPinnedPlace"


class CUDAPlace(Place):
    def __init__(self, device_id=0):
        self.device_id = int(device_id)

    def _key(self):
        return (self.device_id,)

    def get_device_id(self):
        return self.device_id

    def __repr__(self):
        return "CUDAPlace(%d)" % self.device_id


def is_compiled_with_cuda():
    """True when CuPy and a GPU are usable."""
    return device_count() > 0


def device_count():
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount()
    except Exception:  # no cupy, no driver, no device: all mean "no GPU"
        return 0


def cpu_places(device_count=None):
    """`device_count` CPUPlaces; by default CPU_NUM from the environment (set to 1 if unset)."""
    if device_count is None:
        device_count = int(os.environ.setdefault("CPU_NUM", "1"))
    return [CPUPlace() for _ in range(device_count)]


def cuda_places(device_ids=None):
    if device_ids is None:
        visible = os.environ.get("FLAGS_selected_gpus") or os.environ.get("CUDA_VISIBLE_DEVICES")
        device_ids = ([int(s) for s in visible.split(",") if s.strip()] if visible
                      else list(range(device_count())))
    elif not isinstance(device_ids, (list, tuple)):
        device_ids = [device_ids]
    return [CUDAPlace(i) for i in device_ids]
