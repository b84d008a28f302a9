"""dropout: Mask ~ Bernoulli(1 - p), uint8 like Paddle's.

downgrade_in_infer (the fluid default): train Out = X * Mask, infer Out = X * (1 - p).
upscale_in_train: train Out = X * Mask / (1 - p), infer Out = X.
The random stream: the optional Seed input (an int32 [1] tensor, e.g. from the `seed` op)
if given, else `seed` when fix_seed, else the global generator. Two dropouts fed the same
Seed draw the same mask, which is how RecomputeOptimizer replays a forward segment.
In training at dropout_prob = 0 nothing is dropped: Out = X and Mask is all ones, with no
draw from any random stream (a model built with dropout 0, e.g. a Transformer, pays for
no random numbers).
"""
import numpy as np

from ..framework.random import rng_for
from ..xp import array_module, to_host
from ._common import FLOATS, rand
from .registry import OpDef, Sample, register, share_lod


def _train_scale(dropout_prob, dropout_implementation):
    """What a kept element is multiplied by in training."""
    if dropout_implementation != "upscale_in_train":
        return 1.0
    return 1.0 / (1.0 - dropout_prob) if dropout_prob < 1 else 0.0


def _infer_scale(dropout_prob, dropout_implementation):
    """What every element is multiplied by at inference (is_test)."""
    return 1.0 if dropout_implementation == "upscale_in_train" else 1.0 - dropout_prob


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
                dropout_implementation="downgrade_in_infer"):
        xp = array_module(x)
        if is_test:
            keep = x.dtype.type(_infer_scale(dropout_prob, dropout_implementation))
            return (x * keep).astype(x.dtype), xp.ones(x.shape, np.uint8)
        if dropout_prob == 0:
            return x.copy(), xp.ones(x.shape, np.uint8)
        if seed_tensor is not None:
            rng = np.random.RandomState(int(np.asarray(to_host(seed_tensor)).reshape(-1)[0]))
        else:
            rng = rng_for(seed if fix_seed else 0)
        # drawn on the host on a GPU too: the same stream, so the same mask, as on the CPU
        mask = xp.asarray((rng.uniform(size=x.shape) >= dropout_prob).astype(np.uint8))
        scale = x.dtype.type(_train_scale(dropout_prob, dropout_implementation))
        return (x * mask * scale).astype(x.dtype), mask

    @staticmethod
    def backward(mask, dout, dropout_prob=0.5, is_test=False, fix_seed=False, seed=0,
                 dropout_implementation="downgrade_in_infer"):
        if is_test:
            return (dout * dout.dtype.type(_infer_scale(dropout_prob, dropout_implementation))
                    ).astype(dout.dtype)
        if dropout_prob == 0:
            return dout.copy()
        scale = dout.dtype.type(_train_scale(dropout_prob, dropout_implementation))
        return (dout * mask * scale).astype(dout.dtype)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 4, 5)}, {"dropout_prob": 0.3, "fix_seed": True, "seed": 7})
        yield Sample({"X": rand(rng, 4, 5)}, {"dropout_prob": 0.5, "fix_seed": True, "seed": 3,
                                              "dropout_implementation": "upscale_in_train"})
        yield Sample({"X": rand(rng, 3, 2)}, {"dropout_prob": 0.5, "is_test": True})
        yield Sample({"X": rand(rng, 3, 2)}, {"dropout_prob": 0.0})
        yield Sample({"X": rand(rng, 3, 4), "Seed": np.array([11], "int32")},
                     {"dropout_prob": 0.4})
