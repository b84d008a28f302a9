"""The random stream of Paddle 2.x's CPU random ops: C++'s std::mt19937_64 (the 64-bit
Mersenne Twister), seeded and read as libstdc++ does (specs/ops/random.md).

Engine: 312 64-bit words; every 312 draws the words are twisted (middle word 156, the
upper 33 bits of a word joined with the lower 31 of the next, matrix 0xB5026F5AA96619E9),
and each draw is a word tempered (shifts 29 / 17 / 37 / 43 with masks
0x5555555555555555, 0x71D67FFFEDA60000, 0xFFF7EEE000000000).

Seeding, two ways:
- `seeded(value)` (std::mt19937_64::seed(uint64), a random op's own nonzero seed attr):
  word 0 is the value, word i = 6364136223846793005 (w ^ (w >> 62)) + i of word w = i - 1.
- `seeded_by_sequence(seed)` (std::seed_seq{seed}, what Paddle's global generator does on
  paddle.seed): seed_seq keeps the seed's low 32 bits, fills 624 32-bit words by the
  standard's generate algorithm, and word i is words 2i + 2^32 * words 2i + 1.

The draws come from the compiled kernels refimpl._kernels.mt19937 when dispatch installs
them (`use_kernel_loader`; REFIMPL_KERNELS=numpy turns them off), else from the numpy
reference here: the same stream either way (tests/test_mt19937.py).

Distributions over the draws: libstdc++'s uniform_real_distribution, normal_distribution
(Marsaglia's polar method) and uniform_int_distribution, std::shuffle, and Paddle's
truncated normal (the inverse cdf of one uniform draw, with its own erfinv).
"""
import ctypes
import ctypes.util
import functools
import math

import numpy as np

WORDS = 312
_MIDDLE = 156
_MATRIX = np.uint64(0xB5026F5AA96619E9)
_UPPER = np.uint64(0xFFFFFFFF80000000)
_LOWER = np.uint64(0x7FFFFFFF)
_M64 = 2**64 - 1
_M32 = 2**32 - 1

# how to find a compiled kernel: fn(name) -> refimpl._kernels.mt19937's function of that
# name, or None for the numpy reference here (dispatch installs it: framework does not
# import the kernels)
_loader = [lambda name: None]


def use_kernel_loader(loader):
    """Installs `loader(name)`, which gives the compiled kernel `name` (draws, uniform,
    normal, truncated_normal) or None."""
    _loader[0] = loader


def _kernel(name):
    return _loader[0](name)


def seeded(value):
    """The words after std::mt19937_64::seed(value), value taken modulo 2^64."""
    words = [int(value) & _M64]
    for i in range(1, WORDS):
        w = words[-1]
        words.append((6364136223846793005 * (w ^ (w >> 62)) + i) & _M64)
    return np.array(words, np.uint64)


def _seed_sequence_words(values, n):
    """std::seed_seq(values).generate of n 32-bit words (the C++ standard's algorithm)."""
    v = [int(x) & _M32 for x in values]
    s = len(v)
    out = [0x8B8B8B8B] * n
    t = 11 if n >= 623 else 7 if n >= 68 else 5 if n >= 39 else 3 if n >= 7 else (n - 1) // 2
    p = (n - t) // 2
    q = p + t
    m = max(s + 1, n)

    def mix(x):
        return x ^ (x >> 27)

    for k in range(m):
        r1 = (1664525 * mix(out[k % n] ^ out[(k + p) % n] ^ out[(k - 1) % n])) & _M32
        r2 = (r1 + (s if k == 0 else (k % n + v[k - 1]) if k <= s else k % n)) & _M32
        out[(k + p) % n] = (out[(k + p) % n] + r1) & _M32
        out[(k + q) % n] = (out[(k + q) % n] + r2) & _M32
        out[k % n] = r2
    for k in range(m, m + n):
        r3 = (1566083941 * mix((out[k % n] + out[(k + p) % n] + out[(k - 1) % n]) & _M32)) \
            & _M32
        r4 = (r3 - k % n) & _M32
        out[(k + p) % n] ^= r3
        out[(k + q) % n] ^= r4
        out[k % n] = r4
    return out


def seeded_by_sequence(seed):
    """The words after std::mt19937_64::seed(std::seed_seq{seed})."""
    w = _seed_sequence_words([seed], 2 * WORDS)
    words = [w[2 * i] | (w[2 * i + 1] << 32) for i in range(WORDS)]
    if not (words[0] >> 31) and not any(words[1:]):
        words[0] = 1 << 63   # the standard's guard against an all-zero state
    return np.array(words, np.uint64)


def _twist(x):
    """The 312 words' twist, in place (numpy reference): word i from words i, i + 1 and
    i + 156, each taken after its own update when it precedes i."""
    def step(lo, hi):
        nxt = x[lo + 1:hi + 1] if hi < WORDS else np.concatenate([x[lo + 1:], x[:1]])
        y = (x[lo:hi] & _UPPER) | (nxt & _LOWER)
        mid = x[(np.arange(lo, hi) + _MIDDLE) % WORDS]
        x[lo:hi] = mid ^ (y >> np.uint64(1)) ^ np.where(y & np.uint64(1), _MATRIX, np.uint64(0))

    step(0, _MIDDLE)            # reads words 156.. as they were
    step(_MIDDLE, WORDS - 1)    # reads words 0..154, already twisted
    step(WORDS - 1, WORDS)      # reads word 0 twisted


def _temper(y):
    y = y ^ ((y >> np.uint64(29)) & np.uint64(0x5555555555555555))
    y = y ^ ((y << np.uint64(17)) & np.uint64(0x71D67FFFEDA60000))
    y = y ^ ((y << np.uint64(37)) & np.uint64(0xFFF7EEE000000000))
    return y ^ (y >> np.uint64(43))


def libm_log(x):
    """The C library's log (float64) or logf (float32) of each element, as libstdc++'s
    std::log calls them: numpy's own SIMD logarithms differ from them in the last bit
    (float32: about 1 value in 5), and glibc's logf is not correctly rounded either (a
    float64 log rounded to float32 differs in about 1 in 140)."""
    if x.dtype == np.float64:
        fn = math.log
    else:
        libm = _libm()
        fn = libm.logf
    return np.frompyfunc(fn, 1, 1)(x).astype(x.dtype) if x.size else x.copy()


@functools.lru_cache(maxsize=None)
def _libm():
    libm = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
    libm.logf.restype, libm.logf.argtypes = ctypes.c_float, [ctypes.c_float]
    libm.erf.restype, libm.erf.argtypes = ctypes.c_double, [ctypes.c_double]
    return libm


def normal_cdf(z, dtype):
    """Paddle's truncated normal's cdf of a bound z (in T = dtype): (1 + erf(z / sqrt 2)) /
    2 in double with the C library's erf, then T."""
    return np.dtype(dtype).type((1.0 + _libm().erf(float(z) / math.sqrt(2.0))) / 2.0)


# the rational approximations of erfinv that Paddle's truncated_gaussian_random
# evaluates (its Erfinv<T>), numerator and denominator coefficients of r^0 .. r^7: for
# |x| <= 0.85 in r = 0.180625 - x^2 / 4; else, with r = sqrt(ln 2 - log(1 - |x|)), in r -
# 1.6 up to r = 5 and in r - 5 above
_ERFINV_CENTRAL = (
    (1.1975323115670912564578e0, 4.7072688112383978012285e1, 6.9706266534389598238465e2,
     4.8548868893843886794648e3, 1.6235862515167575384252e4, 2.3782041382114385731252e4,
     1.1819493347062294404278e4, 8.8709406962545514830200e2),
    (1.0000000000000000000e0, 4.2313330701600911252e1, 6.8718700749205790830e2,
     5.3941960214247511077e3, 2.1213794301586595867e4, 3.9307895800092710610e4,
     2.8729085735721942674e4, 5.2264952788528545610e3))
_ERFINV_NEAR = (
    (1.42343711074968357734e0, 4.63033784615654529590e0, 5.76949722146069140550e0,
     3.64784832476320460504e0, 1.27045825245236838258e0, 2.41780725177450611770e-1,
     2.27238449892691845833e-2, 7.74545014278341407640e-4),
    (1.4142135623730950488016887e0, 2.9036514445419946173133295e0,
     2.3707661626024532365971225e0, 9.7547832001787427186894837e-1,
     2.0945065210512749128288442e-1, 2.1494160384252876777097297e-2,
     7.7441459065157709165577218e-4, 1.4859850019840355905497876e-9))
_ERFINV_FAR = (
    (6.65790464350110377720e0, 5.46378491116411436990e0, 1.78482653991729133580e0,
     2.96560571828504891230e-1, 2.65321895265761230930e-2, 1.24266094738807843860e-3,
     2.71155556874348757815e-5, 2.01033439929228813265e-7),
    (1.414213562373095048801689e0, 8.482908416595164588112026e-1,
     1.936480946950659106176712e-1, 2.103693768272068968719679e-2,
     1.112800997078859844711555e-3, 2.611088405080593625138020e-5,
     2.010321207683943062279931e-7, 2.891024605872965461538222e-15))
_LN2 = 6.931471805599453094172321214581e-1
# the coefficients as the compiled kernels take them: the three ranges' numerators and
# denominators, in that order
ERFINV_COEFFICIENTS = np.array(_ERFINV_CENTRAL + _ERFINV_NEAR + _ERFINV_FAR,
                               np.float64).reshape(-1)


def _horner(coefficients, r):
    """sum c_k r^k by Horner's rule in r's dtype, each coefficient rounded to it."""
    t = r.dtype.type
    acc = np.full_like(r, t(coefficients[-1]))
    for c in coefficients[-2::-1]:
        acc = acc * r + t(c)
    return acc


def erfinv(x, central_only=False):
    """Paddle's Erfinv<T> of each element of x (T its dtype): the ratio of _ERFINV_*'s
    polynomials in T, r computed in double and rounded to T (|x| compared with 0.85 and r
    with 5 in double); NaN outside [-1, 1], +-inf at +-1. central_only: Paddle 1.8.5's,
    whose |x| was C's int abs (0 inside (-1, 1)), so that every x takes the central
    approximation (measured). The compiled truncated normal evaluates the same inline."""
    out = np.empty_like(x)
    t = x.dtype.type
    ax = np.abs(x)
    central = (ax < 1) if central_only else ax.astype(np.float64) <= 0.85
    xc = x[central]
    r = (0.180625 - 0.25 * xc.astype(np.float64) * xc.astype(np.float64)).astype(t)
    out[central] = xc * _horner(_ERFINV_CENTRAL[0], r) / _horner(_ERFINV_CENTRAL[1], r)
    tail = np.flatnonzero(~central & (ax < 1))
    r = np.sqrt(np.float64(t(_LN2)) - libm_log(1.0 - ax[tail].astype(np.float64))).astype(t)
    near = r.astype(np.float64) <= 5.0
    for pick, (numerator, denominator), shift in ((near, _ERFINV_NEAR, 1.6),
                                                  (~near, _ERFINV_FAR, 5.0)):
        rs = (r[pick].astype(np.float64) - shift).astype(t)
        ratio = _horner(numerator, rs) / _horner(denominator, rs)
        out[tail[pick]] = np.where(x[tail[pick]] < 0, -ratio, ratio)
    out[ax == 1] = np.copysign(np.inf, x[ax == 1])
    out[~(ax <= 1)] = np.nan
    return out


def polar_pairs(u, pairs):
    """Marsaglia's polar method as libstdc++'s normal_distribution<T> runs it over the
    canonical draws u (T = u's dtype, one pair of draws a try): a = 2 u1 - 1, b = 2 u2 - 1
    (computed in double, then T), tried again while r2 = a a + b b is above 1 or 0; mult =
    sqrt(-2 log(r2) / r2) in T (the C library's log). Returns the values of the first
    `pairs` accepted pairs (fewer if u runs out), b mult then a mult each, and the number
    of draws they took."""
    dtype = u.dtype
    ab = (np.float64(2) * u.astype(np.float64) if dtype == np.float64 else
          (np.float32(2) * u).astype(np.float64)) - 1.0
    a, b = ab[0::2].astype(dtype), ab[1::2].astype(dtype)
    r2 = a * a + b * b
    kept = np.flatnonzero(~((r2 > 1.0) | (r2 == 0.0)))[:pairs]
    mult = np.sqrt(dtype.type(-2) * libm_log(r2[kept]) / r2[kept])
    values = np.stack([b[kept] * mult, a[kept] * mult], axis=1).reshape(-1)
    return values, 2 * (int(kept[-1]) + 1) if kept.size == pairs and pairs else u.size


def truncated_normal_of(u, mean, std, cdf_low, cdf_high, clip=None, central_only=False):
    """Paddle's truncated normal of canonical draws u in T = u's dtype (Engine.
    truncated_normal; mean, std, cdf_* and clip given as T): v = u (1 - FLT_MIN) + FLT_MIN,
    x = 2 (cdf_low + (cdf_high - cdf_low) v) - 1 in T, then sqrt(2) erfinv(x) std + mean
    in double, rounded to T, clamped to clip = (a, b) if given. central_only: 1.8.5's
    erfinv."""
    t = u.dtype.type
    tiny = t(np.finfo(np.float32).tiny)
    v = u * (t(1) - tiny) + tiny
    x = t(2) * (cdf_low + (cdf_high - cdf_low) * v) - t(1)
    out = (math.sqrt(2.0) * erfinv(x, central_only).astype(np.float64) * np.float64(std)
           + np.float64(mean)).astype(u.dtype)
    return out if clip is None else np.clip(out, *clip)


def reference_draws(words, pos, out):
    """Fills `out` (uint64) with the next draws of the engine (words, pos): numpy; returns
    the new pos. `words` is updated in place."""
    filled = 0
    while filled < out.size:
        if pos >= WORDS:
            _twist(words)
            pos = 0
        take = min(WORDS - pos, out.size - filled)
        out[filled:filled + take] = _temper(words[pos:pos + take])
        filled += take
        pos += take
    return pos


def uniform_int_below(draw, k, method, bits=64):
    """One draw of libstdc++'s std::uniform_int_distribution over [0, k) from an engine of
    `bits`-bit outputs (draw() gives the next one as a Python int), k below 2^bits:
    - "lemire" (GCC 11 on, its _S_nd): the 2 bits-bit product x k of a draw x, redrawn
      while its low bits are below 2^bits mod k (checked only once they are below k); the
      value is its high bits;
    - "scaling" (GCC before 11): s = (2^bits - 1) // k, x redrawn while x >= k s; x // s."""
    size = 1 << bits
    if method == "lemire":
        product = draw() * k
        if product % size < k:
            threshold = (size - k) % k
            while product % size < threshold:
                product = draw() * k
        return product >> bits
    if method == "scaling":
        scaling = (size - 1) // k
        x = draw()
        while x >= k * scaling:
            x = draw()
        return x // scaling
    raise ValueError("uniform_int_distribution: unknown downscaling method %r" % (method,))


class Engine:
    """A std::mt19937_64: its 312 words and the position of the next draw."""

    def __init__(self, words, pos=WORDS):
        self.words = np.array(words, np.uint64)
        self.pos = int(pos)

    @classmethod
    def from_seed(cls, value):
        return cls(seeded(value))

    @classmethod
    def from_seed_sequence(cls, seed):
        return cls(seeded_by_sequence(seed))

    def copy(self):
        return Engine(self.words.copy(), self.pos)

    def draws(self, n):
        """The next n draws as uint64."""
        out = np.empty(int(n), np.uint64)
        fn = _kernel("draws") or reference_draws
        self.pos = int(fn(self.words, self.pos, out))
        return out

    def canonical(self, n, dtype):
        """n draws of libstdc++'s generate_canonical<T> (T float32 or float64): one 64-bit
        draw each, T(draw) / 2^64 in T, kept below 1."""
        dtype = np.dtype(dtype)
        u = self.draws(n).astype(dtype)
        u *= dtype.type(2.0 ** -64)
        return np.minimum(u, np.nextafter(dtype.type(1), dtype.type(0)), out=u)

    def uniform(self, low, high, n, dtype):
        """n draws of std::uniform_real_distribution<T>(low, high): u (high - low) + low
        in T, low and high given as T."""
        dtype = np.dtype(dtype)
        low, high = dtype.type(low), dtype.type(high)
        fn = _kernel("uniform")
        if fn is not None:
            out = np.empty(int(n), dtype)
            self.pos = int(fn(self.words, self.pos, out, low, high))
            return out
        u = self.canonical(n, dtype)
        u *= high - low
        u += low
        return u

    def normal(self, mean, std, n, dtype):
        """n draws of one std::normal_distribution<T>(mean, std), T float32 or float64:
        Marsaglia's polar method as libstdc++ runs it. A pair (a, b) = 2 u - 1 of two
        canonical draws (computed in double, then T) is redrawn while r2 = a a + b b is
        above 1 or 0; then mult = sqrt(-2 log(r2) / r2) in T, and the values are b mult,
        then a mult (the distribution's cached second value: a fresh distribution per
        op, so an odd count leaves it unused), each times std plus mean in T."""
        dtype = np.dtype(dtype)
        out = np.empty(int(n), dtype)
        fn = _kernel("normal")
        if fn is not None:
            self.pos = int(fn(self.words, self.pos, out, dtype.type(mean), dtype.type(std)))
            return out
        pairs = []
        left = (out.size + 1) // 2
        while left:
            start = self.copy()
            values, used = polar_pairs(self.canonical(2 * (left + left // 4 + 8), dtype),
                                       left)
            if values.size == 2 * left:   # stop at the pair that completes the draw
                self.words, self.pos = start.words, start.pos
                self.draws(used)
            pairs.append(values)
            left -= values.size // 2
        values = np.concatenate(pairs)[:out.size] if pairs else out
        return (values * dtype.type(std) + dtype.type(mean)).astype(dtype)

    def truncated_normal(self, mean, std, cdf_low, cdf_high, n, dtype, clip=None):
        """n draws of Paddle's truncated normal in T = dtype (its TruncatedNormal<T> over
        std::uniform_real_distribution<T>(FLT_MIN, 1)): v = u (1 - FLT_MIN) + FLT_MIN of
        one canonical draw u, p = cdf_low + (cdf_high - cdf_low) v and x = 2 p - 1 in T
        (cdf_* the standard normal cdf of the bounds, T), then sqrt(2) erfinv(x) std +
        mean in double, rounded to T; clip = (a, b): clamped to [a, b] in T."""
        dtype = np.dtype(dtype)
        t = dtype.type
        mean, std, cdf_low, cdf_high = t(mean), t(std), t(cdf_low), t(cdf_high)
        clip = None if clip is None else (t(clip[0]), t(clip[1]))
        fn = _kernel("truncated_normal")
        if fn is not None:
            out = np.empty(int(n), dtype)
            low, high = clip or (t(0), t(0))
            self.pos = int(fn(self.words, self.pos, out, mean, std, cdf_low, cdf_high,
                              low, high, clip is not None, ERFINV_COEFFICIENTS))
            return out
        return truncated_normal_of(self.canonical(n, dtype), mean, std, cdf_low, cdf_high,
                                   clip)

    def integers(self, low, high, n, method):
        """n draws of std::uniform_int_distribution<int64>(low, high - 1), high - low
        below 2^32, by libstdc++'s downscaling of one 64-bit draw d for k = high - low:
        - "lemire" (GCC 11 on: its _S_nd): the 128-bit product d k; redrawn while its low
          64 bits are below 2^64 mod k; the value is its high 64 bits;
        - "scaling" (GCC before 11): s = (2^64 - 1) // k; redrawn while d >= k s; the
          value is d // s.
        Then plus low."""
        k = int(high) - int(low)
        if not 0 < k < 2**32:
            raise ValueError("randint: high - low must be in [1, 2^32), got %d" % k)
        if method == "lemire":
            threshold = np.uint64((2**64 - k) % k)
            kk = np.uint64(k)

            def accept(d):
                return d * kk >= threshold

            def value(d):
                hi, lo = d >> np.uint64(32), d & np.uint64(0xFFFFFFFF)
                return (hi * kk + ((lo * kk) >> np.uint64(32))) >> np.uint64(32)
        elif method == "scaling":
            scaling = np.uint64((2**64 - 1) // k)
            past = np.uint64(k * ((2**64 - 1) // k))

            def accept(d):
                return d < past

            def value(d):
                return d // scaling
        else:
            raise ValueError("randint: unknown downscaling method %r" % (method,))
        out = self._accepted(int(n), accept)
        return value(out).astype(np.int64) + np.int64(low)

    def permutation(self, n, method):
        """0 .. n-1 shuffled by libstdc++'s std::shuffle (its two-positions-a-draw form:
        Lemire's uniform_int_distribution from GCC 11, measured on Paddle 3.3.1's
        randperm; the older downscaling `method` of integers before, read): with s the
        number of elements, if s is even, element 1 first swaps with element {0, 1}[draw
        of 2]; then elements i, i + 1 (i = 1 or 2 on, by pairs) swap with positions x //
        (i + 2) and x % (i + 2) of one draw x uniform in [0, (i + 1)(i + 2))."""
        if method not in ("lemire", "scaling"):
            raise ValueError("randperm: unknown downscaling method %r" % (method,))
        out = np.arange(n, dtype=np.int64)
        if n < 2:
            return out
        start = self.copy()
        buffer, used = [int(d) for d in self.draws(n // 2 + 8)], 0

        def draw():
            nonlocal buffer, used
            if used == len(buffer):
                buffer, used = buffer + [int(d) for d in self.draws(n // 64 + 8)], used
            used += 1
            return buffer[used - 1]

        i = 1
        if n % 2 == 0:
            j = uniform_int_below(draw, 2, method)
            out[1], out[j] = out[j], out[1]
            i = 2
        while i < n:
            x = uniform_int_below(draw, (i + 1) * (i + 2), method)
            for pos, j in ((i, x // (i + 2)), (i + 1, x % (i + 2))):
                out[pos], out[j] = out[j], out[pos]
            i += 2
        self.words, self.pos = start.words, start.pos
        self.draws(used)
        return out

    def _accepted(self, n, accept):
        """The next n draws that `accept` (a vectorised test) keeps, those it refuses
        skipped; the engine ends right after the last one kept."""
        kept = []
        left = n
        while left:
            start = self.copy()
            d = self.draws(left + left // 64 + 8)
            index = np.flatnonzero(accept(d))[:left]
            if index.size == left:
                self.words, self.pos = start.words, start.pos
                self.draws(int(index[-1]) + 1)
            kept.append(d[index])
            left -= index.size
        return np.concatenate(kept) if kept else np.empty(0, np.uint64)

    def __call__(self):
        return int(self.draws(1)[0])

    def __eq__(self, other):
        return isinstance(other, Engine) and self.pos == other.pos and \
            bool((self.words == other.words).all())

    __hash__ = None
