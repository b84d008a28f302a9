"""paddle.device (2.0): where the computation runs, and what this build supports.
`paddle.set_device` / `paddle.get_device` and the XPU / cuDNN queries are these names."""
from .framework import place as _place
from .framework.place import CUDAPlace, is_compiled_with_cuda
from ._env import XPUPlace, get_cudnn_version, is_compiled_with_xpu

__all__ = ["get_cudnn_version", "set_device", "get_device", "XPUPlace",
           "is_compiled_with_xpu", "is_compiled_with_cuda"]


def get_device():
    """'cpu' or 'gpu:i': where set_device put the computation."""
    place = _place.current_place()
    return "gpu:%d" % place.device_id if isinstance(place, CUDAPlace) else "cpu"


def set_device(device):
    """'cpu', 'gpu' or 'gpu:i': the place an Executor made without one runs on. A GPU
    that is not there is refused here (CUDAPlace's error), not at the first run."""
    if not isinstance(device, str):
        raise TypeError("set_device: expected a string 'cpu', 'gpu' or 'gpu:i', got %s"
                        % type(device).__name__)
    return _place.set_current_place(device)
