"""dropout and seed.

dropout: Mask ~ Bernoulli(1 - p) (uint8, like Paddle). downgrade_in_infer (fluid default):
train Out = X * Mask, infer Out = X * (1 - p). upscale_in_train: train Out = X * Mask / (1 - p),
infer Out = X. The optional Seed input (an int32 [1] tensor, e.g. from the `seed` op)
overrides the attrs, so two dropouts fed the same Seed draw the same mask — which is how
RecomputeOptimizer replays a forward segment exactly.
"""
import numpy as np

from ..framework.random import rng_for
from ._common import FLOATS, rand
from .registry import OpDef, Sample, register


@register
class Dropout(OpDef):
    type = "dropout"
    inputs = ("X", "Seed?")
    outputs = ("Out", "Mask")
    attrs = {"dropout_prob": 0.5, "is_test": False, "fix_seed": False, "seed": 0,
             "dropout_implementation": "downgrade_in_infer"}
    no_grad = ("Seed",)
    grad_inputs = ("Mask", "Out@GRAD")

    def infer_shape(self, ctx):
        p = ctx.attr("dropout_prob")
        ctx.expect(0.0 <= p <= 1.0, "dropout_prob must be in [0, 1], got %s" % p)
        ctx.check_dtype("X", FLOATS)
        ctx.same_as("X", "Out")
        ctx.set_output("Mask", ctx.input_var("X").shape, "uint8")

    @staticmethod
    def forward(x, seed_tensor, dropout_prob=0.5, is_test=False, fix_seed=False, seed=0,
                dropout_implementation="downgrade_in_infer"):
        upscale = dropout_implementation == "upscale_in_train"
        if is_test:
            out = x if upscale else x * x.dtype.type(1 - dropout_prob)
            return out.astype(x.dtype, copy=True), np.ones(x.shape, np.uint8)
        if seed_tensor is not None:
            rng = np.random.RandomState(int(np.asarray(seed_tensor).reshape(-1)[0]))
        else:
            rng = rng_for(seed if fix_seed else 0)
        mask = (rng.uniform(size=x.shape) >= dropout_prob).astype(np.uint8)
        out = x * mask
        if upscale:
            out = out / (1 - dropout_prob) if dropout_prob < 1 else np.zeros_like(x)
        return out.astype(x.dtype), mask

    @staticmethod
    def backward(mask, dout, dropout_prob=0.5, is_test=False, fix_seed=False, seed=0,
                 dropout_implementation="downgrade_in_infer"):
        g = dout * mask
        upscale = dropout_implementation == "upscale_in_train"
        if upscale and not is_test:
            g = g / (1 - dropout_prob) if dropout_prob < 1 else np.zeros_like(dout)
        elif is_test and not upscale:
            g = g * (1 - dropout_prob)
        return g.astype(dout.dtype)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 4, 5)}, {"dropout_prob": 0.3, "fix_seed": True, "seed": 7})
        yield Sample({"X": rand(rng, 4, 5)}, {"dropout_prob": 0.5, "fix_seed": True, "seed": 3,
                                              "dropout_implementation": "upscale_in_train"})
        yield Sample({"X": rand(rng, 3, 2)}, {"dropout_prob": 0.5, "is_test": True})
        yield Sample({"X": rand(rng, 3, 4), "Seed": np.array([11], "int32")},
                     {"dropout_prob": 0.4})


@register
class Seed(OpDef):
    """A seed tensor: `seed` attr if nonzero, else a fresh draw from the global generator."""
    type = "seed"
    inputs = ()
    outputs = ("Out",)
    attrs = {"seed": 0}

    def infer_shape(self, ctx):
        ctx.set_output("Out", [1], "int32")

    @staticmethod
    def forward(seed=0):
        value = seed or rng_for(0).randint(1, 2 ** 31 - 1)
        return np.array([value], dtype=np.int32)
