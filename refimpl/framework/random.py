"""Random state for random ops: a fixed `seed` attr replays the same stream every run
(as Paddle's CPU kernels do); seed 0 draws from the global generator, which
`paddle.seed(s)` resets."""
import numpy as np

_global = np.random.RandomState()


def seed(s):
    global _global
    _global = np.random.RandomState(s)
    return _global


def rng_for(seed_attr):
    return np.random.RandomState(seed_attr) if seed_attr else _global
