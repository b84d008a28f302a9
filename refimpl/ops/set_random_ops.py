"""Counting and sampling ops (forward only): unique, unique_with_counts, histogram,
multinomial, bernoulli, randperm, sampling_id, random_crop. Random ops take a `seed` attr as
uniform_random does: nonzero replays the same draw every run, 0 draws from the global
generator that paddle.seed resets (Paddle's multinomial/bernoulli have no seed attr; this one
is an addition)."""
import numpy as np

from ..framework.dtypes import get_dtype
from ..framework import minstd
from ..framework.random import permutation, uniform
from ._common import rand
from .registry import OpDef, Sample, register


def _first_occurrence_unique(x):
    """(values in order of first appearance, first index of each, inverse, counts)."""
    flat = x.reshape(-1)
    _, first, inverse, counts = np.unique(flat, return_index=True, return_inverse=True,
                                          return_counts=True)
    order = np.argsort(first, kind="stable")          # sorted position -> appearance rank
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return flat[first[order]], first[order], rank[inverse.reshape(-1)], counts[order]


@register
class Unique(OpDef):
    """The distinct values of X. is_sorted=False (fluid.layers.unique): flattened, in order of
    first appearance, Index maps each element of X to its value's position. is_sorted=True
    (paddle.unique): sorted, optionally along `axis` (one dim; the unique slices), with
    Indices (first occurrence), Index (inverse) and Counts as asked."""
    type = "unique"
    inputs = ("X",)
    outputs = ("Out", "Indices?", "Index?", "Counts?")
    attrs = {"dtype": "int64", "return_index": False, "return_inverse": False,
             "return_counts": False, "axis": [], "is_sorted": False}

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        axis = list(ctx.attr("axis"))
        ctx.expect(len(axis) <= 1, "axis must name at most one dim, got %s" % axis)
        dtype = ctx.attr("dtype")
        ctx.expect(dtype in ("int32", "int64"), "dtype must be int32 or int64, got %s" % dtype)
        if axis:
            a = axis[0]
            ctx.expect(-len(x.shape) <= a < len(x.shape), "axis %d is out of range for X %r "
                       "of rank %d" % (a, x.name, len(x.shape)))
            out = list(x.shape)
            out[a] = -1
            n_in = x.shape[a]
        else:
            out = [-1]
            n_in = int(np.prod(x.shape)) if all(d >= 0 for d in x.shape) else -1
        ctx.set_output("Out", out, x.dtype)
        ctx.set_output("Indices", [-1], dtype)
        ctx.set_output("Index", [n_in], dtype)
        ctx.set_output("Counts", [-1], dtype)

    @staticmethod
    def forward(x, dtype="int64", return_index=False, return_inverse=False,
                return_counts=False, axis=(), is_sorted=False):
        if not is_sorted:
            out, first, inverse, counts = _first_occurrence_unique(x)
        elif axis:
            out, first, inverse, counts = np.unique(x, True, True, True, axis=axis[0])
        else:
            out, first, inverse, counts = np.unique(x.reshape(-1), True, True, True)
        # as Paddle: the 1.8 path (not is_sorted) gives Index only, the 2.0 path what the
        # return_* flags ask for; the other outputs stay unset
        wanted = (False, True, False) if not is_sorted else \
            (return_index, return_inverse, return_counts)
        return (out,) + tuple(np.asarray(a).reshape(-1).astype(dtype) if w else None
                              for a, w in zip((first, inverse, counts), wanted))

    def samples(self, rng):
        x = rng.randint(0, 5, (3, 4)).astype("float64")
        # the 1.8 path takes 1-D input in Paddle
        yield Sample({"X": x.reshape(-1)}, {"is_sorted": False, "dtype": "int32"})
        yield Sample({"X": x}, {"is_sorted": True, "return_index": True,
                                "return_inverse": True, "return_counts": True})
        yield Sample({"X": np.array([[1, 2], [3, 4], [1, 2]], "int64")},
                     {"is_sorted": True, "axis": [0]})


@register
class UniqueWithCounts(OpDef):
    """fluid.layers.unique_with_counts: unique (first-appearance order), Index and Count."""
    type = "unique_with_counts"
    inputs = ("X",)
    outputs = ("Out", "Index", "Count")
    attrs = {"dtype": "int32"}

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        ctx.expect(len(x.shape) == 1, "X %r must be 1-D, got shape %s"
                   % (x.name, list(x.shape)))
        ctx.set_output("Out", [-1], x.dtype)
        ctx.set_output("Index", x.shape, ctx.attr("dtype"))
        ctx.set_output("Count", [-1], ctx.attr("dtype"))

    @staticmethod
    def forward(x, dtype="int32"):
        out, _, inverse, counts = _first_occurrence_unique(x)
        return out, inverse.astype(dtype), counts.astype(dtype)

    def samples(self, rng):
        # Paddle 1.8.5 gives `dtype` no default: the sample passes it
        yield Sample({"X": rng.randint(0, 4, 9).astype("int64")}, {"dtype": "int32"})


@register
class Histogram(OpDef):
    """Counts of X in `bins` equal-width bins over [min, max] (min == max == 0: over
    [X.min(), X.max()]); values outside are ignored, the last bin includes max."""
    type = "histogram"
    inputs = ("X",)
    outputs = ("Out",)
    attrs = {"bins": 100, "min": 0, "max": 0}

    def infer_shape(self, ctx):
        ctx.expect(ctx.attr("bins") >= 1, "bins must be >= 1, got %d" % ctx.attr("bins"))
        ctx.expect(ctx.attr("max") >= ctx.attr("min"), "max %s must be >= min %s"
                   % (ctx.attr("max"), ctx.attr("min")))
        ctx.expect(np.isfinite([ctx.attr("min"), ctx.attr("max")]).all(),
                   "min %s and max %s must be finite" % (ctx.attr("min"), ctx.attr("max")))
        ctx.set_output("Out", [ctx.attr("bins")], "int64")

    @staticmethod
    def forward(x, bins=100, min=0, max=0):
        lo, hi = float(min), float(max)
        if lo == hi == 0 and x.size:
            lo, hi = float(x.min()), float(x.max())
        if lo == hi:
            lo, hi = lo - 1, hi + 1     # one value: a range around it, as Paddle does
        return np.histogram(x, bins=bins, range=(lo, hi))[0].astype(np.int64)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 20)}, {"bins": 4, "min": -1, "max": 1})
        yield Sample({"X": rand(rng, 4, 5)}, {"bins": 3})


class _RandomOp(OpDef):
    outputs = ("Out",)

    def samples(self, rng):
        return []   # random: checked statistically in tests/test_tensor_api_random.py


def _check_probabilities(p, what):
    p = np.asarray(p, np.float64)
    if (p < 0).any() or not np.isfinite(p).all():
        raise ValueError("%s: probabilities must be finite and >= 0" % what)
    if (p.sum(axis=-1) == 0).any():
        raise ValueError("%s: every row of probabilities needs a positive sum" % what)


@register
class Multinomial(_RandomOp):
    """Out[i] = `num_samples` category ids drawn from the (unnormalized) weights X[i]."""
    type = "multinomial"
    inputs = ("X",)
    attrs = {"num_samples": 1, "replacement": False, "seed": 0}

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        ctx.expect(len(x.shape) in (1, 2), "X %r must be 1-D or 2-D, got shape %s"
                   % (x.name, list(x.shape)))
        n, k = ctx.attr("num_samples"), x.shape[-1]
        ctx.expect(n >= 1, "num_samples must be >= 1, got %d" % n)
        ctx.expect(ctx.attr("replacement") or k < 0 or n <= k, "num_samples %d > %d categories "
                   "of X %r needs replacement=True" % (n, k, x.name))
        ctx.set_output("Out", list(x.shape[:-1]) + [n], "int64")

    @staticmethod
    def forward(x, num_samples=1, replacement=False, seed=0):
        """Paddle 2.x's CPU sampling, in X's dtype T (float64 for other dtypes): a row's
        running sums c divided by its sum, c's last set to 1; each sample is the first j
        with c[j] >= u of one U(0, 1) draw u (framework/random.py's uniform: the global
        stream for seed 0), all of a row's draws before the next row's. Without
        replacement a pick of width w = c[j] - c[j - 1] is taken out: c[i] -= w for i >=
        j, then c /= 1 - w (between samples)."""
        _check_probabilities(x, "multinomial")
        t = x.dtype if x.dtype in (np.float32, np.float64) else np.dtype(np.float64)
        rows = np.asarray(x, t).reshape(-1, x.shape[-1])
        if not replacement and (np.count_nonzero(rows, axis=1) < num_samples).any():
            raise ValueError("multinomial: fewer nonzero weights than num_samples %d without "
                             "replacement" % num_samples)
        draws = uniform(seed, 0.0, 1.0, (rows.shape[0], num_samples), t)
        out = np.empty(draws.shape, np.int64)
        for i, row in enumerate(rows):
            running = np.cumsum(row)
            running /= running[-1]
            for s, u in enumerate(draws[i]):
                running[-1] = 1
                j = out[i, s] = np.searchsorted(running, u, side="left")
                if not replacement and s < num_samples - 1:
                    width = running[j] - (running[j - 1] if j else t.type(0))
                    running[j:] -= width
                    running /= t.type(1) - width
        return out.reshape(x.shape[:-1] + (num_samples,)).astype(np.int64)


@register
class Bernoulli(_RandomOp):
    """Out = 1 with probability X, else 0 (elementwise), in X's dtype."""
    type = "bernoulli"
    inputs = ("X",)
    attrs = {"seed": 0}

    def infer_shape(self, ctx):
        ctx.same_as("X", "Out")

    @staticmethod
    def forward(x, seed=0):
        if ((x < 0) | (x > 1)).any():
            raise ValueError("bernoulli: probabilities X must be in [0, 1]")
        # Paddle 2.x: U(0, 1) draws in X's dtype (framework/random.py's uniform)
        return (uniform(seed, 0.0, 1.0, x.shape, x.dtype) < x).astype(x.dtype)


@register
class Randperm(_RandomOp):
    type = "randperm"
    inputs = ()
    attrs = {"n": 1, "dtype": "int64", "seed": 0}

    def infer_shape(self, ctx):
        ctx.expect(ctx.attr("n") >= 1, "n must be >= 1, got %d" % ctx.attr("n"))
        ctx.set_output("Out", [ctx.attr("n")], ctx.attr("dtype"))

    @staticmethod
    def forward(n=1, dtype="int64", seed=0):
        return permutation(seed, n, dtype)


@register
class SamplingId(_RandomOp):
    """Out[i] = a column id drawn from row i of X (probabilities that sum to 1): the first
    column whose running sum exceeds a U(min, max) draw."""
    type = "sampling_id"
    inputs = ("X",)
    attrs = {"min": 0.0, "max": 1.0, "seed": 0}

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        ctx.expect(len(x.shape) == 2, "X %r must be 2-D, got shape %s"
                   % (x.name, list(x.shape)))
        ctx.set_output("Out", [x.shape[0]], "int64")

    @staticmethod
    def forward(x, min=0.0, max=1.0, seed=0):
        """Paddle 2.0's CPU kernel: one U(min, max) draw r a row in X's dtype T
        (framework/random.py's uniform), then r -= X[i, j] in T for j = 0, 1, ...; the id
        is the first j where r < 0, else the last column."""
        t = x.dtype if x.dtype in (np.float32, np.float64) else np.dtype(np.float64)
        rest = uniform(seed, min, max, (x.shape[0],), t)
        ids = np.full(x.shape[0], x.shape[1] - 1, np.int64)
        open_rows = np.ones(x.shape[0], bool)
        for j, column in enumerate(np.asarray(x, t).T):
            rest = rest - column
            hit = open_rows & (rest < 0)
            ids[hit] = j
            open_rows &= ~hit
        return ids


@register
class RandomCrop(_RandomOp):
    """Out = a random window of `shape` over the trailing dims of X; each instance (the
    leading dims) gets its own random offset. The optional Seed (int64 [1], Paddle 1.8's
    input) seeds the draw instead of startup_seed, and SeedOut is the next seed drawn, for
    the next run (Paddle's layer feeds it back)."""
    type = "random_crop"
    inputs = ("X", "Seed?")
    outputs = ("Out", "SeedOut?")
    attrs = {"shape": [], "startup_seed": 0}

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        shape = list(ctx.attr("shape"))
        lead = len(x.shape) - len(shape)
        ctx.expect(lead >= 0 and all(d < 0 or c <= d for c, d in zip(shape, x.shape[lead:])),
                   "crop shape %s must fit the trailing dims of X %r %s"
                   % (shape, x.name, list(x.shape)))
        ctx.set_output("Out", list(x.shape[:lead]) + shape, x.dtype)
        if ctx.has_output("SeedOut"):
            ctx.set_output("SeedOut", [1], get_dtype("int64"))

    @staticmethod
    def forward(x, seed=None, shape=(), startup_seed=0):
        """Paddle's CPU kernel (1.8.5 measured, 2.0 read): std::minstd_rand draws of the
        seed (minstd.crop_offsets)."""
        seed = startup_seed if seed is None else int(np.asarray(seed).reshape(-1)[0])
        lead = x.ndim - len(shape)
        instances = x.reshape((-1,) + x.shape[lead:])
        offsets, next_seed = minstd.crop_offsets(
            seed, instances.shape[0], [d - c for c, d in zip(shape, instances.shape[1:])])
        out = np.empty((instances.shape[0],) + tuple(shape), x.dtype)
        for i, inst in enumerate(instances):
            out[i] = inst[tuple(slice(s, s + c) for s, c in zip(offsets[i], shape))]
        seed_out = np.array([next_seed], np.int64)
        return out.reshape(x.shape[:lead] + tuple(shape)), seed_out
