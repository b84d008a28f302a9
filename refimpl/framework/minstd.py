"""The random stream of Paddle 1.8's CPU dropout and seeded uniform_random, and of
gaussian_random_batch_size_like (1.8.5 and 2.0): C++'s std::minstd_rand engine read through
std::uniform_real_distribution or std::normal_distribution, as libstdc++ computes them.

Engine: x <- 48271 x mod (2^31 - 1). Seeding takes the seed as an unsigned 64-bit number
modulo 2^31 - 1 (so -5 seeds like 2^64 - 5), and a state of 0 becomes 1. Each number is
one draw: u = float32(x - 1) / 2^31 (float32's round-to-nearest, so u can round up onto a
threshold), clamped below 1. A float64 takes two draws: u = ((x1 - 1) + (x2 - 1) r) / r^2
with r = 2^31 - 2 (libstdc++'s generate_canonical for 53 bits), clamped the same way.
Measured bit for bit against Paddle 1.8.5 (tests/test_minstd.py, tests/test_versions.py).

Drawn vectorised by jump-ahead: x_{k+L} = 48271^L x_k mod (2^31 - 1), so a stream of n
numbers takes log2(n) numpy products of at most 62 bits each.
"""
import numpy as np

from .mt19937 import polar_pairs

MODULUS = 2**31 - 1
MULTIPLIER = 48271
_BELOW_ONE = np.nextafter(np.float32(1), np.float32(0))


def seeded_state(seed):
    """The engine's state after std::minstd_rand::seed(seed) for a C++ int seed."""
    return (int(seed) % 2**64) % MODULUS or 1


def states(seed, n):
    """The engine's next n outputs after seeding with `seed`, as int64."""
    out = np.empty(n, np.int64)
    if n == 0:
        return out
    out[0] = seeded_state(seed) * MULTIPLIER % MODULUS
    filled, jump = 1, MULTIPLIER
    while filled < n:
        take = min(filled, n - filled)
        np.multiply(out[:take], jump, out=out[filled:filled + take])
        np.remainder(out[filled:filled + take], MODULUS, out=out[filled:filled + take])
        filled += take
        jump = jump * jump % MODULUS
    return out


def uniform_float32(seed, n):
    """n draws of std::uniform_real_distribution<float>(0, 1) from a fresh engine."""
    u = (states(seed, n) - 1).astype(np.float32) / np.float32(2**31)
    return np.minimum(u, _BELOW_ONE, out=u)


def crop_offsets(seed, instances, spans):
    """Paddle's random_crop offsets (1.8.5 and 2.0): instance i's engine is seeded with
    `seed` and skips i * len(spans) outputs; its offsets are uniform_int_distribution<size_t>
    (0, span) draws in turn (_below_or_equal). Returns the [instances, len(spans)] offsets
    and SeedOut, the output after all instances' skips."""
    k = len(spans)
    stream = _Stream(seed, instances * k + 65)
    offsets = np.empty((instances, k), np.int64)
    for i in range(instances):
        draw = stream.reader(i * k)
        for d, span in enumerate(spans):
            offsets[i, d] = _below_or_equal(draw, int(span))
    return offsets, stream[instances * k]


def canonical(seed, n, dtype):
    """n draws of libstdc++'s generate_canonical<T> from a fresh engine, T the float32 or
    float64 `dtype`."""
    if np.dtype(dtype) == np.float32:
        return uniform_float32(seed, n)
    r = np.float64(MODULUS - 1)
    draws = states(seed, 2 * n) - 1
    u = (draws[0::2].astype(np.float64) + draws[1::2].astype(np.float64) * r) / (r * r)
    return np.minimum(u, np.nextafter(1.0, 0.0), out=u)


def uniform_real(seed, low, high, shape, dtype):
    """std::uniform_real_distribution<T>(low, high) of `shape` from a fresh engine, T the
    float32 or float64 `dtype` (low and high as Paddle passes them: float32 attrs): the
    canonical u in T, then u (high - low) + low in T."""
    dtype = np.dtype(dtype)
    u = canonical(seed, int(np.prod(shape, dtype=np.int64)), dtype)
    low, high = dtype.type(np.float32(low)), dtype.type(np.float32(high))
    return (u * (high - low) + low).reshape(shape)


def normal(seed, mean, std, shape, dtype):
    """One std::normal_distribution<T>(mean, std) of `shape` over a fresh engine (mean and
    std float32 attrs, T the float32 or float64 `dtype`): Marsaglia's polar method over
    canonical draws (mt19937.polar_pairs), each value times std plus mean in T."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape, dtype=np.int64))
    pairs = (n + 1) // 2
    count = 2 * (pairs + pairs // 4 + 8)
    while True:
        values, _ = polar_pairs(canonical(seed, count, dtype), pairs)
        if values.size == 2 * pairs:
            break
        count *= 2
    t = dtype.type
    return (values[:n] * t(np.float32(std)) + t(np.float32(mean))).astype(dtype).reshape(shape)


# the engine's outputs (1 .. MODULUS - 1) less 1 span [0, _URNG_RANGE]: libstdc++'s
# __urngrange, max() - min()
_URNG_RANGE = MODULUS - 2


class _Stream:
    """A fresh engine's outputs, computed as far as they are read (doubling)."""

    def __init__(self, seed, count):
        self.seed, self.outputs = seed, states(seed, count)

    def __getitem__(self, pos):
        while pos >= self.outputs.size:
            self.outputs = states(self.seed, 2 * self.outputs.size)
        return int(self.outputs[pos])

    def reader(self, start):
        """draw(): the outputs from position `start` on, one a call, each less 1 (what
        _below_or_equal reads)."""
        pos = start - 1

        def draw():
            nonlocal pos
            pos += 1
            return self[pos] - 1
        return draw


def _below_or_equal(draw, urange):
    """One draw of libstdc++'s uniform_int_distribution over [0, urange] (before GCC 11)
    from draw(), an output less 1: downscaling for urange below the engine's range (x
    redrawn while >= (urange + 1) s, then x // s, s = _URNG_RANGE // (urange + 1)), the
    draw itself at the engine's range, else upscaling: hi (_URNG_RANGE + 1) + x of hi a
    draw over [0, urange // (_URNG_RANGE + 1)], redrawn while above urange."""
    if urange < _URNG_RANGE:
        k = urange + 1
        scaling = _URNG_RANGE // k
        x = draw()
        while x >= k * scaling:
            x = draw()
        return x // scaling
    if urange == _URNG_RANGE:
        return draw()
    while True:
        value = (_URNG_RANGE + 1) * _below_or_equal(draw, urange // (_URNG_RANGE + 1)) + draw()
        if value <= urange:
            return value


def uniform_ints(seed, low, high, n):
    """n draws of std::uniform_int_distribution(low, high - 1) from a fresh engine, as
    libstdc++ before GCC 11 computes it (Paddle 1.8.5's randint, measured): below the
    engine's range the draws kept are taken at once, above it one at a time."""
    n, urange = int(n), int(high) - int(low) - 1
    count = n + n // 16 + 16
    if urange < _URNG_RANGE:
        k = urange + 1
        scaling = _URNG_RANGE // k
        while True:
            x = states(seed, count) - 1
            kept = x[x < k * scaling]
            if kept.size >= n:
                return kept[:n] // scaling + int(low)
            count *= 2
    draw = _Stream(seed, count).reader(0)
    return np.array([_below_or_equal(draw, urange) for _ in range(n)], np.int64) + int(low)
