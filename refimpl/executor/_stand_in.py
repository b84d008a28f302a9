"""Buffer-less stand-ins for values only whose shape and dtype are still read."""
import functools

import numpy as np

__all__ = ["stand_in"]


@functools.lru_cache(maxsize=512)
def stand_in(shape, dtype):
    """A read-only array of `shape` (a tuple) and `dtype` holding no buffer (one zero,
    broadcast). One per shape and dtype, shared: making one costs ~3.6 us, a cache hit
    ~0.3 (mlp_deep shrinks 17 values a step)."""
    return np.broadcast_to(np.zeros((), dtype), shape)
