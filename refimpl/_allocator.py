"""Keep freed activation buffers in the process heap instead of returning them to the OS.

glibc serves allocations above 128 KiB with fresh mmap()ed pages and unmaps them on free,
so every step of a training loop page-faults its activations in again: on small VMs that
costs more than the convolutions themselves (LeNet's conv2d: 6.5 ms -> 1.2 ms). Raising the
mmap and trim thresholds makes freed buffers reusable, which is what PyTorch's caching
allocator achieves for its tensors. Set REFIMPL_KEEP_MALLOC=1 to leave glibc's defaults.
"""
import ctypes
import ctypes.util
import os
import sys

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_THRESHOLD = 1 << 30


def tune():
    if os.environ.get("REFIMPL_KEEP_MALLOC") or not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return bool(libc.mallopt(_M_MMAP_THRESHOLD, _THRESHOLD)) and \
            bool(libc.mallopt(_M_TRIM_THRESHOLD, _THRESHOLD))
    except (OSError, AttributeError):   # not glibc (musl, ...): keep the defaults
        return False
