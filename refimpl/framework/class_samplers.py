"""Paddle's class samplers (its math::Sampler family: nce's negative classes,
sample_logits' sampled classes) as its CPU kernels draw them: a fresh engine each op run,
seeded with the seed attr as an unsigned int, read one value at a time (measured on Paddle
1.8.5 and 3.3.1; specs/ops/random.md).

- uniform (nce's sampler 0): std::uniform_int_distribution<int>(0, range) over the engine
  (libstdc++'s downscaling, mt19937.uniform_int_below).
- log-uniform (nce's sampler 1, sample_logits): u of std::uniform_real_distribution<double>
  (0, 1); the class is int64(exp(u L)) - 1, taken modulo range, where L = log(range + 1)
  is held as a float (rounded to 32 bits, then widened again for the double product).
- custom (nce's sampler 2, Walker's alias method): a slot i of uniform_int_distribution<int>
  (0, range), then p of uniform_real_distribution<double>(0, 1); p > alias_probs[i] gives
  alias[i] (i itself where alias[i] is -1), else i.

The engine is a std::mt19937_64 (seed(value), no seed_seq), except the custom sampler of
Paddle 1.8.5, a 32-bit std::mt19937; a canonical double takes one 64-bit draw d (d / 2^64)
or two 32-bit draws d1, d2 ((d1 + d2 2^32) / 2^64), each kept below 1.

Each sampler also gives a class's probability (probability below), as a float: nce's b and
sample_logits' Probabilities start from it.
"""
import math

import numpy as np

from . import mt19937

UNIFORM, LOG_UNIFORM, CUSTOM = 0, 1, 2
_BELOW_ONE = float(np.nextafter(1.0, 0.0))     # (math.nextafter: Python 3.9 on; 1.8.5 checks run on 3.8)


def log_range(range_):
    """log(range + 1) as the log-uniform sampler holds it: computed in double, kept as a
    float (so a double value of the float's)."""
    return float(np.float32(math.log(int(range_) + 1)))


def probability(kind, classes, range_, custom_probs=None):
    """The chance the sampler of `kind` over the classes 0 .. range_ draws each of `classes`
    (an int array), a float32 array as Paddle's samplers return it: uniform
    float(1 / (range + 1)); log-uniform log((c + 2) / (c + 1)) / L in double (L the float
    log_range), rounded to a float; custom custom_probs[c] (float32 CustomDistProbs)."""
    classes = np.asarray(classes)
    if kind == UNIFORM:
        return np.full(classes.shape, 1.0 / (int(range_) + 1), np.float32)
    if kind == LOG_UNIFORM:
        return (np.log((classes + 2.0) / (classes + 1.0)) / log_range(range_)) \
            .astype(np.float32)
    if kind == CUSTOM:
        if custom_probs is None:
            raise ValueError("class sampler: the custom sampler's probability needs its "
                             "probabilities (CustomDistProbs)")
        return np.asarray(custom_probs, np.float32).reshape(-1)[classes]
    raise _unknown_kind(kind)


def _unknown_kind(kind):
    return ValueError("class sampler: kind 0 (uniform), 1 (log_uniform) or 2 (custom), got %r"
                      % (kind,))


class Draws:
    """The outputs of a freshly seeded engine, one at a time (a Python int each): a
    std::mt19937_64 for bits 64, a std::mt19937 for bits 32 (whose seeding numpy's legacy
    RandomState shares: x0 = seed, x_i = 1812433253 (x ^ (x >> 30)) + i)."""

    def __init__(self, seed, bits):
        self.bits = bits
        if bits == 64:
            engine = mt19937.Engine.from_seed(seed)
            self._more = engine.draws
        elif bits == 32:
            state = np.random.RandomState(int(seed) & 0xFFFFFFFF)
            self._more = lambda n: state.randint(0, 2**32, size=n, dtype=np.uint32)
        else:
            raise ValueError("class sampler: an engine of %r bits (32 or 64)" % (bits,))
        self._buffer, self._used = [], 0

    def __call__(self):
        if self._used == len(self._buffer):
            self._buffer, self._used = [int(d) for d in self._more(256)], 0
        self._used += 1
        return self._buffer[self._used - 1]

    def canonical(self):
        """libstdc++'s generate_canonical<double, 53>: the sum of draw_j 2^(bits j) over
        ceil(53 / bits) draws, in double, divided by 2^(bits * draws), kept below 1."""
        total, scale = 0.0, 1.0
        for _ in range(-(-53 // self.bits)):
            total += float(self()) * scale
            scale *= float(2**self.bits)
        return min(total / scale, _BELOW_ONE)


class Sampler:
    """One of Paddle's samplers over the classes 0 .. range: kind UNIFORM, LOG_UNIFORM or
    CUSTOM (with the alias table alias, alias_probs), drawing from `draws` (a Draws) by
    libstdc++'s integer downscaling `method` ("lemire" or "scaling")."""

    def __init__(self, kind, range_, draws, method, alias=None, alias_probs=None):
        if kind not in (UNIFORM, LOG_UNIFORM, CUSTOM):
            raise _unknown_kind(kind)
        if kind == CUSTOM and (alias is None or alias_probs is None):
            raise ValueError("class sampler: the custom sampler needs the alias table")
        self.kind, self.range, self.draws, self.method = kind, int(range_), draws, method
        self.log_range = log_range(self.range)
        if kind == CUSTOM:
            self.alias = [int(a) for a in np.asarray(alias).reshape(-1)]
            self.alias_probs = [float(p) for p in
                                np.asarray(alias_probs, np.float32).reshape(-1)]

    def _slot(self):
        return mt19937.uniform_int_below(self.draws, self.range + 1, self.method,
                                         self.draws.bits)

    def sample(self):
        if self.kind == UNIFORM:
            return self._slot()
        if self.kind == LOG_UNIFORM:
            return (int(math.exp(self.draws.canonical() * self.log_range)) - 1) % self.range
        slot = self._slot()
        if self.draws.canonical() > self.alias_probs[slot] and self.alias[slot] != -1:
            return self.alias[slot]
        return slot

    def samples(self, n):
        return np.array([self.sample() for _ in range(int(n))], np.int64)
