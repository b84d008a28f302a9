# cython: language_level=3
"""std::mt19937_64 draws and libstdc++'s uniform_real_distribution and
normal_distribution over them, and Paddle's truncated normal, compiled: the
stream of refimpl.framework.mt19937 (its numpy reference is the specification; the two
are tested equal in tests/test_mt19937.py). The engine is its 312 words (uint64, updated
in place) and the position of the next draw; each function returns the new position.
The numpy reference converts uint64 to float slowly (0.5 s for 10 M float32 on a loaded
2-core machine); these draw and convert in one pass, and uniform (dropout's masks) a
block of the engine's words at a time: 13.9 -> 7.8 ms for 1 M float32 (one thread)."""
cimport cython
from libc.float cimport FLT_MIN
from libc.math cimport logf, sqrtf, log, sqrt, nextafterf, nextafter, NAN, INFINITY, M_LN2
from libc.stdint cimport int64_t, uint64_t

cdef enum:
    WORDS = 312
    MIDDLE = 156

cdef uint64_t MATRIX = 0xB5026F5AA96619E9ULL
cdef uint64_t UPPER = 0xFFFFFFFF80000000ULL
cdef uint64_t LOWER = 0x7FFFFFFFULL


cdef inline uint64_t _mix(uint64_t high, uint64_t low, uint64_t far) noexcept nogil:
    """far ^ (y >> 1) ^ (MATRIX if y is odd) for y = high's top bit + low's 31 low bits,
    without a branch (odd y are half of them, unpredictable)."""
    cdef uint64_t y = (high & UPPER) | (low & LOWER)
    return far ^ (y >> 1) ^ ((0 - (y & 1)) & MATRIX)


cdef void _twist(uint64_t* x) noexcept nogil:
    # the recurrence x[i] from x[i], x[i + 1] and x[i + MIDDLE], indices mod WORDS, in the
    # three runs where no index wraps (no modulo inside the loops)
    cdef int i
    for i in range(WORDS - MIDDLE):
        x[i] = _mix(x[i], x[i + 1], x[i + MIDDLE])
    for i in range(WORDS - MIDDLE, WORDS - 1):
        x[i] = _mix(x[i], x[i + 1], x[i + MIDDLE - WORDS])
    x[WORDS - 1] = _mix(x[WORDS - 1], x[0], x[MIDDLE - 1])


cdef inline uint64_t _temper(uint64_t y) noexcept nogil:
    y ^= (y >> 29) & 0x5555555555555555ULL
    y ^= (y << 17) & 0x71D67FFFEDA60000ULL
    y ^= (y << 37) & 0xFFF7EEE000000000ULL
    return y ^ (y >> 43)


cdef inline uint64_t _draw(uint64_t* x, Py_ssize_t* pos) noexcept nogil:
    if pos[0] >= WORDS:
        _twist(x)
        pos[0] = 0
    pos[0] += 1
    return _temper(x[pos[0] - 1])


def draws(uint64_t[::1] words, Py_ssize_t pos, uint64_t[::1] out):
    """Fills `out` with the next draws."""
    cdef Py_ssize_t i
    with nogil:
        for i in range(out.shape[0]):
            out[i] = _draw(&words[0], &pos)
    return pos


ctypedef fused real:
    float
    double


cdef inline real _as_real(uint64_t y, real* kind) noexcept nogil:
    """<real>y, rounded to nearest as C converts a uint64, without the compiler's branch on
    the top bit (set in half the draws): such a y is halved with its lowest bit kept
    (sticky, so the rounding is the same), converted as a signed integer and doubled."""
    cdef uint64_t top = <uint64_t>(<int64_t>y >> 63)      # all ones when the top bit is set
    cdef real r = <real><int64_t>((((y >> 1) | (y & 1)) & top) | (y & ~top))
    return r + (r if top else <real>0)


cdef inline real _below_one(real u) noexcept nogil:
    # generate_canonical's result is kept below 1
    if u >= 1:
        if real is float:
            return nextafterf(1.0, 0.0)
        else:
            return nextafter(1.0, 0.0)
    return u


cdef inline real _canonical_of(uint64_t y, real* kind) noexcept nogil:
    # generate_canonical<real> of the draw y: real(y) / 2^64 in real, kept below 1 (`kind`
    # only picks the specialization)
    return _below_one(_as_real(y, kind) * <real>5.421010862427522e-20)


cdef inline real _canonical(uint64_t* x, Py_ssize_t* pos, real* kind) noexcept nogil:
    return _canonical_of(_draw(x, pos), kind)


def uniform(uint64_t[::1] words, Py_ssize_t pos, real[::1] out, real low, real high):
    """Fills `out` from std::uniform_real_distribution<real>(low, high): the words left
    since the last twist, then a twist and a block of words at a time."""
    cdef Py_ssize_t i = 0, j, n = out.shape[0], take
    cdef real span = high - low
    cdef uint64_t* x = &words[0]
    with nogil:
        while i < n:
            if pos >= WORDS:
                _twist(x)
                pos = 0
            take = min(n - i, WORDS - pos)
            for j in range(take):
                out[i + j] = _canonical_of(_temper(x[pos + j]), &span) * span + low
            i += take
            pos += take
    return pos


def normal(uint64_t[::1] words, Py_ssize_t pos, real[::1] out, real mean, real std):
    """Fills `out` from one std::normal_distribution<real>(mean, std) (Marsaglia's polar
    method; 2 u - 1 is taken in double, then real; the C library's logf / log)."""
    cdef Py_ssize_t i = 0
    cdef real a, b, r2, mult
    with nogil:
        while i < out.shape[0]:
            while True:
                a = <real>(<double>(<real>2.0 * _canonical(&words[0], &pos, &mean)) - 1.0)
                b = <real>(<double>(<real>2.0 * _canonical(&words[0], &pos, &mean)) - 1.0)
                r2 = a * a + b * b
                if not (r2 > 1.0 or r2 == 0.0):
                    break
            if real is float:
                mult = sqrtf(<float>-2.0 * logf(r2) / r2)
            else:
                mult = sqrt(-2.0 * log(r2) / r2)
            out[i] = b * mult * std + mean
            i += 1
            if i < out.shape[0]:
                out[i] = a * mult * std + mean
                i += 1
    return pos


cdef inline real _horner(const double* c, real r) noexcept nogil:
    cdef real acc = <real>c[7]
    cdef int k
    for k in range(6, -1, -1):
        acc = acc * r + <real>c[k]
    return acc


@cython.cdivision(True)
cdef inline real _erfinv(real x, const double* c) noexcept nogil:
    # framework/mt19937.py's erfinv: in real, r in double rounded to real; c its
    # coefficients (ERFINV_COEFFICIENTS: the three ranges' numerators and denominators, 8
    # each, r^0 first)
    cdef real ax = -x if x < 0 else x
    cdef real r, ratio
    if not ax <= 1:
        return NAN
    if ax == 1:
        return INFINITY if x > 0 else -INFINITY
    if <double>ax <= 0.85:
        r = <real>(0.180625 - 0.25 * <double>x * <double>x)
        return x * _horner(c, r) / _horner(c + 8, r)
    r = <real>sqrt(<double><real>M_LN2 - log(1.0 - <double>ax))
    if <double>r <= 5.0:
        r = <real>(<double>r - 1.6)
        ratio = _horner(c + 16, r) / _horner(c + 24, r)
    else:
        r = <real>(<double>r - 5.0)
        ratio = _horner(c + 32, r) / _horner(c + 40, r)
    return -ratio if x < 0 else ratio


def truncated_normal(uint64_t[::1] words, Py_ssize_t pos, real[::1] out, real mean, real std,
                     real cdf_low, real cdf_high, real low, real high, bint clip,
                     const double[::1] coefficients):
    """Fills `out` with Paddle's truncated normal (framework/mt19937.py's
    Engine.truncated_normal; clip: clamped to [low, high])."""
    cdef Py_ssize_t i
    cdef real tiny = <real>FLT_MIN
    cdef real span = <real>1.0 - tiny
    cdef real width = cdf_high - cdf_low
    cdef real v, value
    cdef double root2 = sqrt(2.0)
    with nogil:
        for i in range(out.shape[0]):
            v = _canonical(&words[0], &pos, &mean) * span + tiny
            value = <real>(root2 * <double>_erfinv(<real>2.0 * (cdf_low + width * v) - <real>1.0,
                                                   &coefficients[0]) * <double>std + <double>mean)
            if clip:
                value = low if value < low else (high if high < value else value)
            out[i] = value
    return pos
