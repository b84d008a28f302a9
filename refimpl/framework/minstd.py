"""The random stream of Paddle 1.8's CPU dropout: C++'s std::minstd_rand engine read
through std::uniform_real_distribution<float>(0, 1), as libstdc++ computes it.

Engine: x <- 48271 x mod (2^31 - 1). Seeding takes the seed as an unsigned 64-bit number
modulo 2^31 - 1 (so -5 seeds like 2^64 - 5), and a state of 0 becomes 1. Each number is
one draw: u = float32(x - 1) / 2^31 (float32's round-to-nearest, so u can round up onto a
threshold), clamped below 1. Measured bit for bit against Paddle 1.8.5 (tests/test_minstd.py).

Drawn vectorised by jump-ahead: x_{k+L} = 48271^L x_k mod (2^31 - 1), so a stream of n
numbers takes log2(n) numpy products of at most 62 bits each.
"""
import numpy as np

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
