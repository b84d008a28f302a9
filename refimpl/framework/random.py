"""Random state for random ops: a fixed `seed` attr replays the same stream every run
(as Paddle's CPU kernels do); seed 0 draws from the global generator, which
`paddle.seed(s)` resets. The streams are Paddle's own where switch seeded_uniform_stream
says so: under 1.8 uniform and gaussian draws are Paddle 1.8.5's minstd streams, under 2.0
and 3 Paddle 2.x's std::mt19937_64 streams (`uniform`, `normal`), so their values are
Paddle's (truncated_gaussian_random's too); the class samplers of nce, sample_logits and
tdm_sampler are Paddle's (`class_sampler`). Other random ops draw from numpy streams."""
import numpy as np

from .. import versions
from . import class_samplers, libc_rand, minstd, mt19937
from .program import Program, default_main_program, default_startup_program

_SEED_LIMIT = 2 ** 64


def _state_for(s):
    """The numpy generator of seed `s`: np.random.RandomState(s) below 2**32 (the streams
    refimpl's tests record), the seed's two 32-bit words above (Paddle's seeds are uint64)."""
    if isinstance(s, bool) or not isinstance(s, (int, np.integer)):
        raise TypeError("paddle.seed: the seed must be an int, got %s %r" % (type(s).__name__, s))
    s = int(s)
    if not 0 <= s < _SEED_LIMIT:
        raise ValueError("paddle.seed: the seed must be in [0, 2**64), got %d" % s)
    return np.random.RandomState(s if s < 2 ** 32 else [s & 0xFFFFFFFF, s >> 32])


class GeneratorState:
    """What Generator.get_state returns (Paddle's core.GeneratorState): the seed, the
    std::mt19937_64 engine and the numpy stream, copied."""

    def __init__(self, seed, engine, numpy_state):
        self._seed, self._engine, self._numpy_state = seed, engine, numpy_state

    def current_seed(self):
        return self._seed


class Generator:
    """Paddle 2.x's CPU random generator (fluid.generator.Generator, core.Generator,
    what paddle.seed returns): a seed, Paddle's std::mt19937_64 engine seeded through
    std::seed_seq{seed} (so `random()` and the uniform and gaussian draws are Paddle's),
    and a numpy stream of the same seed for the random ops whose Paddle stream is not
    reproduced. Its state can be taken and put back, so draws after
    set_state(get_state()) or manual_seed(s) repeat."""

    def __init__(self, place=None):
        from .place import CPUPlace
        if not (place is None or place == "cpu" or isinstance(place, CPUPlace)):
            raise ValueError("Generator: only a CPU generator is supported, got place %r"
                             % (place,))
        self.seed()

    def manual_seed(self, s):
        self._rng = _state_for(s)
        self._initial_seed = int(s)
        self.engine = mt19937.Engine.from_seed_sequence(self._initial_seed)
        return self

    def seed(self):
        """Seeds it from the operating system's entropy; returns the seed."""
        self.manual_seed(int(np.random.SeedSequence().generate_state(2, np.uint64)[0]))
        return self._initial_seed

    def initial_seed(self):
        return self._initial_seed

    def get_state(self):
        return GeneratorState(self._initial_seed, self.engine.copy(), self._rng.get_state())

    def set_state(self, state):
        if not isinstance(state, GeneratorState):
            raise TypeError("Generator.set_state: expected the GeneratorState of get_state, "
                            "got %s" % type(state).__name__)
        self._initial_seed = state.current_seed()
        self.engine = state._engine.copy()
        self._rng.set_state(state._numpy_state)

    def random(self):
        """One uint64 draw of the engine (Paddle's Generator.random)."""
        return self.engine()

    @property
    def stream(self):
        return self._rng


_default = Generator()


def default_cpu_generator():
    return _default


def seed(s):
    """Reseeds the default generator (random ops whose seed attr is 0 draw from it)."""
    return _default.manual_seed(s)


def _seed_default_programs(s):
    default_main_program().random_seed = s
    default_startup_program().random_seed = s


def _manual_program_seed(s):
    """The default main and startup programs' random_seed = s, and the seed of every
    Program made from now on (Program.global_seed): Paddle 2.0's
    paddle.framework.random._manual_program_seed, which its own tests call (before making
    the programs of new_program_scope)."""
    _seed_default_programs(s)
    Program().global_seed(s)


def seed_all(s):
    """paddle.seed / paddle.framework.seed: the global generator used by random ops whose
    seed attr is 0, and the default programs' random_seed unless the profile's paddle.seed
    leaves them (switch seed_sets_program_seeds). Returns the default generator."""
    generator = seed(s)
    if versions.switch("seed_sets_program_seeds"):
        _seed_default_programs(s)
    return generator


def rng_for(seed_attr):
    return np.random.RandomState(seed_attr) if seed_attr else _default.stream


def _engine_for(seed_attr, dtype=None):
    """The std::mt19937_64 a Paddle 2.x CPU random op of seed attr `seed_attr` draws
    values (of float `dtype`, if given) from, or None where refimpl draws numpy's stream:
    the global generator's engine for seed 0, else a fresh engine seeded directly with
    the attr (its low switch seed_attr_bits bits: an unsigned int in 2.0), not through
    seed_seq."""
    if versions.switch("seeded_uniform_stream") != "mt19937_64" or \
            dtype is not None and np.dtype(dtype) not in (np.float32, np.float64):
        return None
    if not seed_attr:
        return _default.engine
    return mt19937.Engine.from_seed(int(seed_attr) % 2 ** versions.switch("seed_attr_bits"))


def _minstd_kernel(dtype):
    """Whether a uniform_random / gaussian_random of `dtype` runs Paddle 1.8.5's kernel (switch
    seeded_uniform_stream = minstd, float32 / float64): a fresh std::minstd_rand each run,
    seeded with the attr as an unsigned int, or for seed 0 with std::random_device (refimpl:
    a seed from the global stream, _fresh_engine_seed)."""
    return versions.switch("seeded_uniform_stream") == "minstd" and \
        np.dtype(dtype) in (np.float32, np.float64)


def _drawn_dtype(dtype):
    """The dtype Paddle 2.x's CPU uniform and gaussian kernels draw a value of `dtype` in:
    float16 values are float32 draws rounded (measured on 3.3.1: paddle.seed(10);
    rand([3], 'float16') = 0.2727, 0.549, 0.8657, rand's float32 0.27268523, 0.54888254,
    0.86554646); the dtype itself otherwise."""
    return np.dtype(np.float32) if np.dtype(dtype) == np.float16 else np.dtype(dtype)


def _real_draws(distribution, seed_attr, a, b, shape, dtype):
    """`distribution` "uniform" (U(a, b)) or "normal" (N(a, b)) of `shape` and `dtype` for
    a random op with seed attr `seed_attr` (a and b float32 attrs in Paddle): Paddle's CPU
    stream where switch seeded_uniform_stream reproduces it for float32 / float64 (1.8.5's
    fresh std::minstd_rand, _minstd_kernel; 2.x's mt19937_64, float16 too: its float32
    draws rounded), else numpy's stream of rng_for, a chunk at a time (_in_chunks)."""
    shape = tuple(shape)
    if _minstd_kernel(dtype):
        draw = {"uniform": minstd.uniform_real, "normal": minstd.normal}[distribution]
        return draw(_fresh_engine_seed(seed_attr), a, b, shape, dtype)
    drawn_dtype = _drawn_dtype(dtype)
    engine = _engine_for(seed_attr, drawn_dtype)
    if engine is not None:
        n = int(np.prod(shape, dtype=np.int64))
        return getattr(engine, distribution)(np.float32(a), np.float32(b), n, drawn_dtype) \
            .astype(dtype, copy=False).reshape(shape)
    draw = getattr(rng_for(seed_attr), distribution)
    return _in_chunks(lambda n: draw(a, b, size=n), shape, dtype)


def uniform(seed_attr, low, high, shape, dtype):
    """U(low, high) (uniform_random): std::uniform_real_distribution<T> over 1.8.5's or
    2.x's engine, or numpy's stream (_real_draws)."""
    return _real_draws("uniform", seed_attr, low, high, shape, dtype)


def dropout_draws(seed, n):
    """n std::uniform_real_distribution<float>(0, 1) draws for a Paddle 2.x CPU dropout
    of seed `seed` (the Seed input's, or the fix_seed attr's; 0: the global generator):
    its kernels take the int seed as a 64-bit integer (-5 seeds 2^64 - 5) in 2.0 and
    3.3.1 alike."""
    engine = mt19937.Engine.from_seed(int(seed) % 2**64) if seed else _default.engine
    return engine.uniform(0.0, 1.0, int(n), np.float32)


def integers(seed_attr, low, high, shape, dtype):
    """Integers uniform in [low, high) of `shape` and `dtype` (randint):
    std::uniform_int_distribution over Paddle 1.8.5's fresh std::minstd_rand
    (_fresh_engine_seed; GCC before 11) or Paddle 2.x's mt19937_64 (libstdc++'s
    downscaling of switch randint_downscaling), as switch seeded_uniform_stream says."""
    shape = tuple(shape)
    n = int(np.prod(shape, dtype=np.int64))
    if versions.switch("seeded_uniform_stream") == "minstd":
        drawn = minstd.uniform_ints(_fresh_engine_seed(seed_attr), low, high, n)
    else:
        drawn = _engine_for(seed_attr).integers(low, high, n,
                                                versions.switch("randint_downscaling"))
    return drawn.astype(dtype).reshape(shape)


def random_fill(low, high, shape, dtype):
    """Tensor.random_'s integers in [low, high) (3.3.1's random_ kernel, measured): one
    draw d of the global engine a value, low + (d mod 2^32) mod k for a range k = high -
    low below 2^32, else low + d mod k."""
    k = int(high) - int(low)
    drawn = _default.engine.draws(int(np.prod(shape, dtype=np.int64)))
    if k < 2 ** 32:
        drawn &= np.uint64(0xFFFFFFFF)
    values = [int(low) + int(d) for d in drawn % np.uint64(k)] if k >= 2 ** 63 else \
        (drawn % np.uint64(k)).astype(np.int64) + int(low)
    return np.asarray(values).astype(dtype).reshape(tuple(shape))


def permutation(seed_attr, n, dtype):
    """0 .. n-1 shuffled (randperm): Paddle 1.8.5's std::random_shuffle over the C
    library's rand() after srand(seed) (_fresh_engine_seed; framework/libc_rand.py) where
    switch seeded_uniform_stream is minstd, else Paddle 2.x's std::shuffle over its
    mt19937_64 (libstdc++'s downscaling of switch randint_downscaling: 3.3.1's measured,
    2.0's GCC 8 read)."""
    if versions.switch("seeded_uniform_stream") == "minstd":
        return libc_rand.random_shuffle(_fresh_engine_seed(seed_attr), n).astype(dtype)
    return _engine_for(seed_attr).permutation(int(n), versions.switch("randint_downscaling")) \
        .astype(dtype)


def normal(seed_attr, mean, std, shape, dtype):
    """N(mean, std) (gaussian_random): one std::normal_distribution<T> per op over 1.8.5's
    or 2.x's engine, or numpy's stream (_real_draws)."""
    return _real_draws("normal", seed_attr, mean, std, shape, dtype)


def _fresh_engine_seed(seed_attr):
    """The seed an op that makes a fresh engine every run seeds it with (Paddle 1.8.5's /
    2.0's std::minstd_rand ops, the class samplers): the attr as an unsigned int; for 0
    Paddle takes std::random_device, refimpl a draw of the global numpy stream (so
    paddle.seed replays it)."""
    return int(seed_attr) & 0xFFFFFFFF or drawn_seed()


def drawn_seed():
    """What refimpl takes where Paddle takes std::random_device (the seed op and the
    fresh-engine ops of seed 0): the next draw in [1, 2^31 - 1) of the global numpy stream,
    so that paddle.seed replays it (specs/ops/random.md)."""
    return int(rng_for(0).randint(1, 2**31 - 1))


def minstd_normal(seed_attr, mean, std, shape, dtype):
    """N(mean, std) of `shape` and `dtype` the way Paddle 1.8.5's and 2.0's
    gaussian_random_batch_size_like draws it (3.3.1 has no such op): a fresh
    std::minstd_rand (_fresh_engine_seed) through one std::normal_distribution<T>
    (framework/minstd.py; measured on 1.8.5). float16 and other dtypes: numpy's normal of
    rng_for."""
    if np.dtype(dtype) not in (np.float32, np.float64):
        return rng_for(seed_attr).normal(mean, std, size=tuple(shape)).astype(dtype)
    return minstd.normal(_fresh_engine_seed(seed_attr), mean, std, tuple(shape), dtype)


def class_sampler(kind, seed_attr, range_, alias=None, alias_probs=None):
    """Paddle's class sampler of `kind` (class_samplers.UNIFORM, LOG_UNIFORM or CUSTOM with
    the alias table) over the classes 0 .. range_, for an op of seed attr `seed_attr` (nce,
    sample_logits): a fresh engine of _fresh_engine_seed, a std::mt19937_64, or for the
    custom sampler one of switch custom_sampler_engine_bits (1.8.5's 32-bit std::mt19937),
    read by libstdc++'s integer downscaling of switch randint_downscaling."""
    bits = versions.switch("custom_sampler_engine_bits") if kind == class_samplers.CUSTOM \
        else 64
    draws = class_samplers.Draws(_fresh_engine_seed(seed_attr), bits)
    return class_samplers.Sampler(kind, range_, draws, versions.switch("randint_downscaling"),
                                  alias, alias_probs)


def truncated_normal(seed_attr, mean, std, a, b, shape, dtype):
    """N(mean, std) truncated, of `shape` and `dtype` (truncated_gaussian_random; mean,
    std, a and b float32 attrs): within mean +- 2 std (1.8, 2.0) or within [a, b] and
    clamped to them (3.3.1; switch truncated_normal_bounds); the inverse cdf of one uniform
    draw a value (mt19937.truncated_normal_of). The uniform draws: Paddle 2.x's
    mt19937_64 where switch seeded_uniform_stream says so, 1.8.5's fresh std::minstd_rand
    (_fresh_engine_seed) with its erfinv under 1.8; float16: numpy's normal draws of rng_for,
    those outside the bounds redrawn."""
    shape = tuple(shape)
    n = int(np.prod(shape, dtype=np.int64))
    engine = _engine_for(seed_attr, dtype)
    floating = np.dtype(dtype) in (np.float32, np.float64)
    t = np.dtype(dtype).type if floating else np.float64
    mean, std = t(np.float32(mean)), t(np.float32(std))
    if versions.switch("truncated_normal_bounds") == "attrs":
        clip = (t(np.float32(a)), t(np.float32(b)))
        low, high = ((bound - mean) / std for bound in clip)
    else:
        clip, low, high = None, t(-2), t(2)
    cdfs = (mt19937.normal_cdf(low, t), mt19937.normal_cdf(high, t))
    if engine is not None:
        return engine.truncated_normal(mean, std, *cdfs, n, dtype, clip).reshape(shape)
    if floating and versions.switch("seeded_uniform_stream") == "minstd":
        u = minstd.canonical(_fresh_engine_seed(seed_attr), n, dtype)
        return mt19937.truncated_normal_of(u, mean, std, *cdfs, clip,
                                           central_only=True).reshape(shape)
    rng = rng_for(seed_attr)
    out = rng.normal(size=shape)
    bad = (out < low) | (out > high)
    while bad.any():
        out[bad] = rng.normal(size=int(bad.sum()))
        bad = (out < low) | (out > high)
    out = out * std + mean
    return (out if clip is None else np.clip(out, *clip)).astype(dtype)


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
