"""maxout: the channel axis (size C) split into C/groups runs of `groups` consecutive
channels; Out keeps each run's maximum."""
import numpy as np

from ._common import FLOATS, rand
from .registry import OpDef, Sample, register


def _runs(x, groups, axis):
    """X viewed as [..., C/groups, groups, ...] around `axis`."""
    axis %= x.ndim
    c = x.shape[axis]
    return x.reshape(x.shape[:axis] + (c // groups, groups) + x.shape[axis + 1:]), axis + 1


@register
class Maxout(OpDef):
    type = "maxout"
    inputs = ("X",)
    outputs = ("Out",)
    attrs = {"groups": 2, "axis": 1}
    grad_inputs = ("X", "Out", "Out@GRAD")

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        ctx.check_dtype("X", FLOATS)
        groups, axis = ctx.attr("groups"), ctx.attr("axis")
        ctx.expect(axis in (1, -1, 3) and -len(x.shape) <= axis < len(x.shape),
                   "axis must be 1 or -1 (3) for X %r %s, got %d"
                   % (x.name, list(x.shape), axis))
        axis %= len(x.shape)
        c = x.shape[axis]
        ctx.expect(groups > 0 and (c < 0 or c % groups == 0),
                   "the channels of X %r %s (%d) must be divisible by groups=%d"
                   % (x.name, list(x.shape), c, groups))
        shape = list(x.shape)
        shape[axis] = c // groups if c >= 0 else -1
        ctx.set_output("Out", shape, x.dtype)

    @staticmethod
    def forward(x, groups=2, axis=1):
        runs, run_axis = _runs(x, groups, axis)
        return runs.max(axis=run_axis)

    @staticmethod
    def backward(x, out, dout, groups=2, axis=1):
        runs, run_axis = _runs(x, groups, axis)
        winner = runs == np.expand_dims(out, run_axis)
        # one winner per run (the first), as a max takes one element
        first = winner & (np.cumsum(winner, axis=run_axis) == 1)
        return (first * np.expand_dims(dout, run_axis)).reshape(x.shape)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 2, 6, 3, 2)}, {"groups": 3, "axis": 1}, name="nchw")
        yield Sample({"X": rand(rng, 2, 3, 2, 4)}, {"groups": 2, "axis": -1}, name="nhwc")
        # Paddle 1.8.5's kernel indexes X's dims by the raw axis (its layer turns -1 into
        # 3 first), so -1 crashes it: the same layout by its positive axis
        yield Sample({"X": rand(rng, 2, 3, 2, 4)}, {"groups": 2, "axis": 3}, name="nhwc_axis3")
