"""The C library's rand() as glibc computes it (srand(seed), then rand()), and libstdc++'s
std::random_shuffle over it: Paddle 1.8.5's randperm (std::srand(seed) then
std::random_shuffle, measured: seed 10, n 10 gives 5, 2, 3, 7, 8, 4, 6, 9, 0, 1).

glibc's default generator (TYPE_3): r_0 = seed (0 taken as 1), r_i = 16807 r_(i-1) mod
(2^31 - 1) for i < 31, r_i = r_(i-31) for i in 31 .. 33, then r_i = r_(i-31) + r_(i-3) mod
2^32; the k-th rand() is r_(k+344) >> 1 (the first 310 sums are thrown away).
"""
import numpy as np


def outputs(seed, n):
    """The first n values rand() gives after srand(seed) (seed an unsigned int)."""
    seed = int(seed) & 0xFFFFFFFF
    r = [seed or 1]
    for i in range(1, 31):
        r.append(16807 * r[-1] % 2147483647)
    r += r[:3]
    for i in range(34, 344 + int(n)):
        r.append((r[i - 31] + r[i - 3]) & 0xFFFFFFFF)
    return np.array(r[344:], np.int64) >> 1


def random_shuffle(seed, n):
    """0 .. n-1 shuffled by libstdc++'s std::random_shuffle after srand(seed): element i
    (from 1) swaps with element rand() % (i + 1)."""
    out = np.arange(int(n), dtype=np.int64)
    draws = outputs(seed, max(int(n) - 1, 0))
    for i in range(1, int(n)):
        j = int(draws[i - 1]) % (i + 1)
        out[i], out[j] = out[j], out[i]
    return out
