"""device_guard: which device the ops built inside it ask for (attr op_device)."""
import contextlib
import re

from ..framework.program import default_main_program

__all__ = ["device_guard"]


@contextlib.contextmanager
def device_guard(device=None):
    """Ops appended to the main program inside the guard get attr op_device = `device`
    ('cpu', 'gpu' or 'gpu:N'; None marks nothing). refimpl records it and runs every op
    where the executor's place says: the attr is for passes and readers of the program.
    The attr is set when the guard exits (an inner guard's device wins)."""
    if device is not None and not (isinstance(device, str)
                                   and re.fullmatch(r"cpu|gpu(:\d+)?", device)):
        raise ValueError("device_guard: device must be 'cpu', 'gpu', 'gpu:N' or None, got %r"
                         % (device,))
    program = default_main_program()
    before = {id(op) for block in program.blocks for op in block.ops}
    try:
        yield
    finally:
        if device is not None:
            for block in program.blocks:
                for op in block.ops:
                    if id(op) not in before:
                        op.attrs.setdefault("op_device", device)
