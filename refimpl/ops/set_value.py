"""set_value: Out = Input with a strided region replaced (what `x[index] = value` builds in a
static graph, Paddle 2.0: the op writes back into x's own variable)."""
import numpy as np

from ..broadcasting import sum_to_shape
from ._common import rand, region_index
from .registry import OpDef, Sample, register


def _value_shape(region_shape, decrease_axes):
    """The region's shape as the value sees it: the int-indexed (decreased) axes dropped."""
    return tuple(d for i, d in enumerate(region_shape) if i not in decrease_axes)


@register
class SetValue(OpDef):
    """Input[starts:ends:steps on axes] = ValueTensor (broadcast), or the constant `values`
    (one number, or `shape` numbers) when there is no ValueTensor. `decrease_axes` are the
    axes indexed by an int: the value's shape lines up with the region without them."""
    type = "set_value"
    inputs = ("Input", "ValueTensor?")
    outputs = ("Out",)
    attrs = {"axes": [], "starts": [], "ends": [], "steps": [], "decrease_axes": [],
             "values": [], "shape": []}
    grad_inputs = ("ValueTensor?", "Out@GRAD")

    def infer_shape(self, ctx):
        x = ctx.input_var("Input")
        axes, starts, ends, steps = (ctx.attr(k) for k in ("axes", "starts", "ends", "steps"))
        ctx.expect(len(axes) == len(starts) == len(ends) == len(steps),
                   "axes %s, starts %s, ends %s and steps %s must have the same length"
                   % (list(axes), list(starts), list(ends), list(steps)))
        ctx.expect(0 not in steps, "steps %s must not contain 0" % list(steps))
        for a in axes:
            ctx.expect(0 <= a < len(x.shape), "axis %d is out of range for Input %r of "
                       "rank %d" % (a, x.name, len(x.shape)))
        if not ctx.has_input("ValueTensor"):
            ctx.expect(len(ctx.attr("values")) >= 1, "needs a ValueTensor or `values`")
        else:
            v = ctx.input_var("ValueTensor")
            ctx.expect(v.dtype == x.dtype, "ValueTensor %r has dtype %s, Input %r has %s"
                       % (v.name, v.dtype.name, x.name, x.dtype.name))
        ctx.same_as("Input", "Out")

    @staticmethod
    def forward(x, value, axes=(), starts=(), ends=(), steps=(), decrease_axes=(), values=(),
                shape=()):
        out = x.copy()
        region = region_index(x.ndim, axes, starts, ends, steps)
        region_shape = out[region].shape
        if value is None:
            value = np.asarray(values, dtype=x.dtype).reshape(shape or [len(values)])
            if value.size == 1:
                value = value.reshape(())
        target = _value_shape(region_shape, decrease_axes)
        try:
            value = np.broadcast_to(value, target)
        except ValueError:
            # Paddle's message begins so (2.0's test_set_value_op matches it)
            raise ValueError("Broadcast dimension mismatch. set_value: a value of shape %s "
                             "does not broadcast to the indexed region's shape %s" % (list(value.shape), list(target)))
        out[region] = value.reshape(region_shape)
        return out

    @staticmethod
    def backward(value, dout, axes=(), starts=(), ends=(), steps=(), decrease_axes=(),
                 values=(), shape=()):
        region = region_index(dout.ndim, axes, starts, ends, steps)
        dx = dout.copy()
        dx[region] = 0
        if value is None:
            return dx, None
        dregion = dout[region]
        dvalue = sum_to_shape(dregion.reshape(_value_shape(dregion.shape, decrease_axes)),
                              value.shape)
        return dx, np.ascontiguousarray(dvalue)

    def samples(self, rng):
        yield Sample({"Input": rand(rng, 4, 5), "ValueTensor": rand(rng, 3)},
                     {"axes": [0, 1], "starts": [0, 1], "ends": [1, 4], "steps": [1, 1],
                      "decrease_axes": [0]})
        yield Sample({"Input": rand(rng, 5, 6), "ValueTensor": rand(rng, 3, 1)},
                     {"axes": [0, 1], "starts": [-1, 0], "ends": [-2147483648, 2147483647],
                      "steps": [-2, 2]})
        yield Sample({"Input": rand(rng, 3, 4)},
                     {"axes": [1], "starts": [1], "ends": [3], "steps": [1],
                      "values": [1.5], "shape": [1]})
