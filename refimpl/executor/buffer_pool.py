"""memory_optimize's reuse pool: buffers of dead temporaries, handed to later ops that
write their output into a buffer of the same shape and dtype (an out variant of the kernel
table, refimpl/_kernels/table.py).

A buffer is pooled only when nothing else can see its memory: it owns its data (a view's
memory belongs to an array that may still be live), and no other variable, view, fetch
result or kernel holds it. The last point is a reference count, the one exact answer in
CPython: every alias, every view (through `.base`) and every holder adds one.
"""
import sys

import numpy as np

__all__ = ["BufferPool"]

# References an unshared array has inside `give` when called as `give(env.pop(name))`:
# the parameter and getrefcount's own argument.
_UNSHARED = 2


class BufferPool:
    def __init__(self):
        self._free = {}          # (shape, dtype) -> [arrays nobody else holds]
        self.handed_out = 0      # buffers reused so far (tests and benches count them)

    def give(self, value):
        """Keep `value` for reuse when it is safe to overwrite. Call as
        `give(env.pop(name))`, so the caller keeps no reference of its own."""
        if sys.getrefcount(value) != _UNSHARED or type(value) is not np.ndarray:
            return
        if value.base is not None or not value.flags.c_contiguous or \
                not value.flags.writeable:
            return
        # list.append / list.pop are atomic under the GIL: scheduler threads share the pool
        self._free.setdefault((value.shape, value.dtype), []).append(value)

    def take(self, shape, dtype):
        """An output buffer: a pooled one of this shape and dtype, else a new one. Its
        contents are garbage; the kernel overwrites every element."""
        try:
            buffer = self._free[(tuple(shape), np.dtype(dtype))].pop()
        except (KeyError, IndexError):
            return np.empty(shape, dtype)
        self.handed_out += 1
        return buffer

    def buffers(self):
        return [b for free in self._free.values() for b in free]

    def clear(self):
        """Drop every pooled buffer (at the end of a run: the pool never holds memory
        between steps)."""
        self._free.clear()
