"""expand_as (Paddle 1.8, fluid.layers.expand_as): X tiled so that its shape becomes
target_tensor's; each of target_tensor's dims must be a multiple of X's (the same rank).
The gradient sums the copies back (expand's)."""
import numpy as np

from ._common import rand
from .registry import Sample, register
from .tensor_ops import _Repeat


@register
class ExpandAs(_Repeat):
    type = "expand_as"
    inputs = ("X", "target_tensor")
    no_grad = ("target_tensor",)

    def out_shape(self, s, ctx):
        target = list(ctx.input_var("target_tensor").shape)
        ctx.expect(len(target) == len(s), "X %s and target_tensor %s must have one rank"
                   % (s, target))
        ctx.expect(len(s) <= 6, "expand_as supports rank 1 to 6, got %d" % len(s))
        ctx.expect(all(t < 0 or d < 0 or (d and t % d == 0) for d, t in zip(s, target)),
                   "each dim of target_tensor %s must be a multiple of X's %s" % (target, s))
        return target

    @staticmethod
    def forward(x, target):
        if x.ndim != target.ndim or any(
                t % d if d else t for d, t in zip(x.shape, target.shape)):
            raise ValueError("expand_as: target_tensor's shape %s is not X's %s tiled"
                             % (list(target.shape), list(x.shape)))
        return np.tile(x, [t // d if d else 0 for d, t in zip(x.shape, target.shape)])

    def samples(self, rng):
        yield Sample({"X": rand(rng, 2, 3), "target_tensor": rand(rng, 4, 3)})
        yield Sample({"X": rand(rng, 1, 2, 3), "target_tensor": rand(rng, 2, 4, 3)},
                     name="rank3")
