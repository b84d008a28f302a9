"""Random state for random ops: a fixed `seed` attr replays the same stream every run
(as Paddle's CPU kernels do); seed 0 draws from the global generator, which
`paddle.seed(s)` resets. Under the 1.8 profile a seeded uniform draw is Paddle 1.8.5's own
stream (`uniform`), so its values are Paddle's."""
import numpy as np

from .. import versions
from . import minstd
from .program import default_main_program, default_startup_program

_global = np.random.RandomState()


def seed(s):
    global _global
    if isinstance(s, bool) or not isinstance(s, (int, np.integer)):
        raise TypeError("paddle.seed: the seed must be an int, got %s %r" % (type(s).__name__, s))
    _global = np.random.RandomState(s)
    return _global


def _manual_program_seed(s):
    """The default main and startup programs' random_seed = s: Paddle 2.0's
    paddle.framework.random._manual_program_seed, which its own tests call."""
    default_main_program().random_seed = s
    default_startup_program().random_seed = s


class Generator:
    """What paddle.seed returns (Paddle 2.0's core.Generator): the seed it was given, and
    manual_seed to seed again. `_is_init_py`, which Paddle's tests set, changes nothing
    here (Paddle's flag picks its generator's engine)."""

    def __init__(self, s):
        self._seed = s
        self._is_init_py = True

    def initial_seed(self):
        return self._seed

    def manual_seed(self, s):
        return seed_all(s)


def seed_all(s):
    """paddle.seed / paddle.framework.seed: the global generator used by random ops whose
    seed attr is 0, and the default programs' random_seed unless the profile's paddle.seed
    leaves them (switch seed_sets_program_seeds). Returns a Generator."""
    seed(s)
    if versions.switch("seed_sets_program_seeds"):
        _manual_program_seed(s)
    return Generator(s)


def rng_for(seed_attr):
    return np.random.RandomState(seed_attr) if seed_attr else _global


def uniform(seed_attr, low, high, shape, dtype):
    """U(low, high) of `shape` and `dtype` for a random op with seed attr `seed_attr`:
    Paddle 1.8.5's seeded CPU stream under the 1.8 profile (float32 / float64), else the
    numpy stream of rng_for."""
    if seed_attr and versions.switch("seeded_uniform_stream") == "minstd" and \
            np.dtype(dtype) in (np.float32, np.float64):
        # Paddle 1.8.5's kernel takes the seed attr as an unsigned int
        return minstd.uniform_real(seed_attr & 0xFFFFFFFF, low, high, tuple(shape), dtype)
    rng = rng_for(seed_attr)
    return _in_chunks(lambda n: rng.uniform(low, high, size=n), shape, dtype)


# elements drawn per call by _in_chunks: 32 MiB of float64 at a time
_CHUNK = 1 << 22


def _in_chunks(draw, shape, dtype):
    """draw(n)'s float64 values, cast into one array of `shape` and `dtype` a chunk at a
    time: the same values as one draw of all (numpy's legacy generator draws them in
    sequence) without a float64 array of the whole size (a 2**26-wide fc weight of Paddle
    2.0's test_static_save_load is 2.7 GB in float32, 5.4 GB as one float64 draw)."""
    out = np.empty(int(np.prod(shape, dtype=np.int64)), dtype)
    for start in range(0, out.size, _CHUNK):
        out[start:start + _CHUNK] = draw(min(_CHUNK, out.size - start))
    return out.reshape(shape)
