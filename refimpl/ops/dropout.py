"""dropout: Mask ~ Bernoulli(1 - p), uint8 like Paddle's.

downgrade_in_infer (the fluid default): train Out = X * Mask, infer Out = X * (1 - p).
upscale_in_train: train Out = X * Mask / (1 - p), infer Out = X.
1 - p is taken in float32 (the attr's type) and then in X's dtype, and kept elements are
divided by it, not multiplied by its inverse: bit for bit as Paddle 1.8.5 and 3.3.1 compute.
The random stream: the optional Seed input (an int32 [1] tensor, e.g. from the `seed` op)
if given, else `seed` when fix_seed, else a random seed. Two dropouts fed the same Seed
draw the same mask, which is how RecomputeOptimizer replays a forward segment. What a seed
draws is the `dropout_stream` version switch: under 1.8 Paddle 1.8.5's own stream
(framework/minstd.py; an element is dropped when its draw is < float32(p)), so a fixed
seed drops the same elements as Paddle 1.8.5 in static and dynamic mode; otherwise numpy's
RandomState(seed), and no seed draws from the global generator (paddle.seed).
In training at dropout_prob = 0 nothing is dropped: Out = X and Mask is all ones, with no
draw from any random stream (a model built with dropout 0, e.g. a Transformer, pays for
no random numbers).
`masking` (forward and backward): an optional function(values, mask, divisor) computing
the training masking in one pass, `mask ? values / divisor : 0` (divisor 1 outside
upscale_in_train: dividing by 1 is exact, so the result is _apply_mask's to the bit): the
GPU's fused kernel (refimpl/_kernels/gpu/dropout.py), one launch where _apply_mask's
divide, cast and where are three.
"""
import numpy as np

from .. import versions
from ..framework.minstd import uniform_float32
from ..framework.random import dropout_draws, rng_for
from ..xp import array_module, to_host
from ._common import FLOATS, rand
from .registry import OpDef, Sample, register, share_lod


def _kept_fraction(dropout_prob, dtype):
    """1 - p as Paddle's kernels compute it: in float32, then in the data's dtype."""
    return dtype.type(np.float32(1) - np.float32(dropout_prob))


def _keep_mask(shape, dropout_prob, seed_tensor, fix_seed, seed):
    """The uint8 mask of kept elements, drawn on the host (on a GPU too: the same stream
    gives the same mask as on the CPU)."""
    if seed_tensor is not None:
        seed, fix_seed = int(np.asarray(to_host(seed_tensor)).reshape(-1)[0]), True
    stream = versions.switch("dropout_stream")
    if stream == "mt19937_64":
        if dropout_prob == 1:         # Paddle 2.x's kernels drop all without drawing
            return np.zeros(shape, np.uint8)
        draws = dropout_draws(seed if fix_seed else 0, int(np.prod(shape, dtype=np.int64)))
        return (draws.reshape(shape) >= np.float32(dropout_prob)).astype(np.uint8)
    if stream == "minstd":
        if not fix_seed:
            seed = int(rng_for(0).randint(0, 2**31 - 1))
        draws = uniform_float32(seed, int(np.prod(shape, dtype=np.int64))).reshape(shape)
        return (draws >= np.float32(dropout_prob)).astype(np.uint8)
    rng = np.random.RandomState(seed) if seed_tensor is not None else \
        rng_for(seed if fix_seed else 0)
    return (rng.uniform(size=shape) >= dropout_prob).astype(np.uint8)


def _apply_mask(values, mask, dropout_prob, dropout_implementation, masking=None):
    """Training: the masked values, kept ones divided by 1 - p under upscale_in_train."""
    divides = dropout_implementation == "upscale_in_train" and dropout_prob < 1
    if masking is not None:
        return masking(values, mask, _kept_fraction(dropout_prob, values.dtype) if divides
                       else values.dtype.type(1))
    if divides:
        values = values / _kept_fraction(dropout_prob, values.dtype)
    return array_module(values).where(mask.astype(bool), values, values.dtype.type(0))


def _infer(values, dropout_prob, dropout_implementation):
    if dropout_implementation == "upscale_in_train":
        return values.copy()
    return values * _kept_fraction(dropout_prob, values.dtype)


@register
class Dropout(OpDef):
    type = "dropout"
    lod_outputs = {"Out": share_lod("X"), "Mask": share_lod("X")}
    inputs = ("X", "Seed?")
    outputs = ("Out", "Mask")
    attrs = {"dropout_prob": 0.5, "is_test": False, "fix_seed": False, "seed": 0,
             "dropout_implementation": "downgrade_in_infer"}
    no_grad = ("Seed",)
    grad_inputs = ("Mask", "Out@GRAD")

    def infer_shape(self, ctx):
        p = ctx.attr("dropout_prob")
        ctx.expect(0.0 <= p <= 1.0, "dropout_prob must be in [0, 1], got %s" % p)
        impl = ctx.attr("dropout_implementation")
        ctx.expect(impl in ("downgrade_in_infer", "upscale_in_train"),
                   "dropout_implementation must be 'downgrade_in_infer' or 'upscale_in_train', "
                   "got %r" % (impl,))
        ctx.check_dtype("X", FLOATS)
        ctx.same_as("X", "Out")
        ctx.set_output("Mask", ctx.input_var("X").shape, "uint8")

    @staticmethod
    def forward(x, seed_tensor, dropout_prob=0.5, is_test=False, fix_seed=False, seed=0,
                dropout_implementation="downgrade_in_infer", masking=None):
        xp = array_module(x)
        if is_test:
            return _infer(x, dropout_prob, dropout_implementation), xp.ones(x.shape, np.uint8)
        if dropout_prob == 0 and versions.switch("dropout_stream") != "mt19937_64":
            return x.copy(), xp.ones(x.shape, np.uint8)
        # Paddle 2.x's kernels draw for p = 0 too (one draw an element, all kept)
        mask = xp.asarray(_keep_mask(x.shape, dropout_prob, seed_tensor, fix_seed, seed))
        return _apply_mask(x, mask, dropout_prob, dropout_implementation, masking), mask

    @staticmethod
    def backward(mask, dout, dropout_prob=0.5, is_test=False, fix_seed=False, seed=0,
                 dropout_implementation="downgrade_in_infer", masking=None):
        if is_test:
            return _infer(dout, dropout_prob, dropout_implementation)
        if dropout_prob == 0:
            return dout.copy()
        return _apply_mask(dout, mask, dropout_prob, dropout_implementation, masking)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 4, 5)}, {"dropout_prob": 0.3, "fix_seed": True, "seed": 7})
        yield Sample({"X": rand(rng, 4, 5)}, {"dropout_prob": 0.5, "fix_seed": True, "seed": 3,
                                              "dropout_implementation": "upscale_in_train"})
        yield Sample({"X": rand(rng, 3, 2)}, {"dropout_prob": 0.5, "is_test": True})
        yield Sample({"X": rand(rng, 3, 2)}, {"dropout_prob": 0.0})
        yield Sample({"X": rand(rng, 3, 4), "Seed": np.array([11], "int32")},
                     {"dropout_prob": 0.4})
