"""device_guard: which device the ops built inside it ask for (attr op_device)."""
import contextlib
import re

from ..framework.program import current_device

__all__ = ["device_guard"]


@contextlib.contextmanager
def device_guard(device=None):
    """Ops built inside the guard, in any program, get attr op_device = `device` ('cpu',
    'gpu' or 'gpu:N'; None: no device, an outer guard's neither; an inner guard wins); ops without a kernel
    (while, conditional_block, feed, ...) keep '' and warn, as in Paddle. refimpl records
    the attr and runs every op where the executor's place says: the attr is for passes
    and readers of the program."""
    if device is not None and not (isinstance(device, str)
                                   and re.fullmatch(r"cpu|gpu(:\d+)?", device)):
        raise ValueError("device_guard: device must be 'cpu', 'gpu', 'gpu:N' or None, got %r"
                         % (device,))
    with current_device(device):
        yield
