"""Writes into a copy of a tensor at indexed places (Paddle 3): index_add, index_put,
masked_fill. Each Out is X with the places changed; X's gradient is dOut with the
overwritten places zeroed (index_put without accumulate, masked_fill), the written
value's the gradient read back from those places (summed over what it was broadcast
to)."""
import numpy as np

from ..broadcasting import sum_to_shape
from ._common import broadcast_shape, rand, shapes_agree
from .index_ops import INTS
from .registry import OpDef, Sample, register



def _along(index, n, axis, op):
    """`index` along a dim of size n as non-negative ints (negative ones count from the
    end, as 3.3.1's kernels take them)."""
    index = index.astype(np.int64).reshape(-1)
    if index.size and (index.min() < -n or index.max() >= n):
        raise IndexError("%s: Index holds a value out of range for dim %d of size %d "
                         "(expected in [%d, %d)), got %s" % (op, axis, n, -n, n,
                                                              index.tolist()))
    return np.where(index < 0, index + n, index)


@register
class IndexAdd(OpDef):
    """Out = X with AddValue's slices added to X's slices Index along `axis` (repeats add
    up); AddValue is X's shape with Index's length at `axis`."""
    type = "index_add"
    inputs = ("X", "Index", "AddValue")
    outputs = ("Out",)
    attrs = {"axis": 0}
    no_grad = ("Index",)
    grad_inputs = ("Index", "AddValue", "Out@GRAD")

    def infer_shape(self, ctx):
        x, idx, v = (ctx.input_var(s) for s in ("X", "Index", "AddValue"))
        ctx.check_dtype("Index", INTS)
        ctx.check_same_dtype("X", "AddValue")
        axis = ctx.check_axis("X", ctx.attr("axis"))
        ctx.expect(len(idx.shape) == 1, "Index %r must be 1-D, got shape %s"
                   % (idx.name, list(idx.shape)))
        want = list(x.shape)
        want[axis] = idx.shape[0]
        ctx.expect(shapes_agree(v.shape, want), "AddValue %r has shape %s; expected X's "
                   "shape with Index's length at axis %d: %s"
                   % (v.name, list(v.shape), axis, want))
        ctx.same_as("X", "Out")

    @staticmethod
    def forward(x, index, value, axis=0):
        axis %= x.ndim
        out = x.copy()
        np.add.at(np.moveaxis(out, axis, 0), _along(index, x.shape[axis], axis, "index_add"),
                  np.moveaxis(value, axis, 0))
        return out

    @staticmethod
    def backward(index, value, dout, axis=0):
        axis %= dout.ndim
        rows = _along(index, dout.shape[axis], axis, "index_add")
        return dout.copy(), np.ascontiguousarray(np.take(dout, rows, axis=axis))

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 4), "Index": np.array([0, 0, 2], "int64"),
                      "AddValue": rand(rng, 3, 4)}, {"axis": 0})
        yield Sample({"X": rand(rng, 2, 3, 2), "Index": np.array([-1], "int32"),
                      "AddValue": rand(rng, 2, 1, 2)}, {"axis": -2})


def _places(x, indices):
    """The numpy index of x that `indices` (one tensor per leading dim, int or bool)
    addresses."""
    out = []
    for dim, index in enumerate(indices):
        if index.dtype == np.bool_:
            out.extend(np.nonzero(index))
        else:
            out.append(_along(index, x.shape[len(out)], dim, "index_put").reshape(index.shape))
    return tuple(out)


@register
class IndexPut(OpDef):
    """out = x with x[indices] = value (broadcast to what indices address), or
    x[indices] += value when `accumulate` (repeats add up)."""
    type = "index_put"
    inputs = ("x", "indices*", "value")
    outputs = ("out",)
    attrs = {"accumulate": False}
    no_grad = ("indices",)
    grad_inputs = ("x", "indices*", "value", "out@GRAD")

    def infer_shape(self, ctx):
        x = ctx.input_var("x")
        ctx.check_dtype("indices", INTS + ("bool",))
        ctx.check_same_dtype("x", "value")
        ctx.expect(ctx.input_count("indices") <= len(x.shape),
                   "%d indices for x %r of rank %d" % (ctx.input_count("indices"), x.name,
                                                       len(x.shape)))
        ctx.same_as("x", "out")

    @staticmethod
    def forward(x, indices, value, accumulate=False):
        out = x.copy()
        places = _places(x, indices)
        if out[places].size == 0:      # nothing addressed: any value writes nothing
            return out
        try:
            value = np.broadcast_to(value, out[places].shape)
        except ValueError:
            raise ValueError("index_put: value of shape %s does not broadcast to the %s "
                             "places indices address" % (list(value.shape),
                                                         list(out[places].shape)))
        if accumulate:
            np.add.at(out, places, value)
        else:
            out[places] = value
        return out

    @staticmethod
    def backward(x, indices, value, dout, accumulate=False):
        places = _places(x, indices)
        dx = dout.copy()
        if not accumulate:
            dx[places] = 0
        if dout[places].size == 0:
            return dx, np.zeros_like(value)
        return dx, np.array(sum_to_shape(dout[places], value.shape))

    def samples(self, rng):
        yield Sample({"x": rand(rng, 3, 4), "indices": [np.array([0, 2], "int64"),
                                                         np.array([1, -1], "int64")],
                      "value": rand(rng, 2)})
        yield Sample({"x": rand(rng, 3, 4), "indices": [np.array([0, 0], "int32")],
                      "value": rand(rng, 4)}, {"accumulate": True})
        yield Sample({"x": rand(rng, 3, 2), "indices": [np.array([True, False, True])],
                      "value": rand(rng, 1)})


@register
class MaskedFill(OpDef):
    """out = value where mask, else x (x, mask and value broadcast together; value cast to
    x's dtype)."""
    type = "masked_fill"
    inputs = ("x", "mask", "value")
    outputs = ("out",)
    no_grad = ("mask",)
    grad_inputs = ("x", "mask", "value", "out@GRAD")

    def infer_shape(self, ctx):
        x, mask, v = (ctx.input_var(s) for s in ("x", "mask", "value"))
        ctx.check_dtype("mask", ("bool",))
        out = broadcast_shape(broadcast_shape(x.shape, mask.shape, ctx), v.shape, ctx)
        ctx.set_output("out", out, x.dtype)

    @staticmethod
    def forward(x, mask, value):
        return np.where(mask, value.astype(x.dtype), x)

    @staticmethod
    def backward(x, mask, value, dout):
        dx = sum_to_shape(np.where(mask, 0, dout), x.shape)
        dvalue = sum_to_shape(np.where(mask, dout, 0), value.shape)
        return np.array(dx), np.array(dvalue, dtype=value.dtype)

    def samples(self, rng):
        yield Sample({"x": rand(rng, 3, 4), "mask": rng.rand(3, 4) > 0.5,
                      "value": rand(rng)})
        yield Sample({"x": rand(rng, 4), "mask": rng.rand(3, 1) > 0.5,
                      "value": rand(rng, 1)})
