"""seed: Out = int32 [1] holding the `seed` attr, or, when it is 0, a fresh draw in
[1, 2^31 - 1) from the global generator each run (framework.random.drawn_seed: Paddle takes
std::random_device there; refimpl keeps it replayable by paddle.seed, specs/ops/random.md).
Dropouts that read the same Seed tensor draw the same mask (RecomputeOptimizer replays
segments that way)."""
import numpy as np

from ..framework.random import drawn_seed
from .registry import OpDef, register


@register
class Seed(OpDef):
    type = "seed"
    inputs = ()
    outputs = ("Out",)
    attrs = {"seed": 0}

    def infer_shape(self, ctx):
        ctx.set_output("Out", [1], "int32")

    @staticmethod
    def forward(seed=0):
        value = seed or drawn_seed()
        return np.array([value], dtype=np.int32)
