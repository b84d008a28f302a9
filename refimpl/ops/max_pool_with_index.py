"""max_pool2d_with_index / max_pool3d_with_index (Paddle 1.8; ceil_mode as Paddle 3.3.1's
op has it): pool3d's max pooling (NCHW / NCDHW, its windows: padding clipped to the input,
adaptive and global windows) that also outputs Mask, each maximum's flat index in its input
plane (h * W + w, or (d * H + h) * W + w), int32; the first maximum of a window
(row-major). The gradient goes to X at Mask."""
import numpy as np

from ..geometry import pool_geometry
from ._common import FLOATS, rand
from .pool2d import EMPTY_MAX
from .pool3d import windows
from .registry import OpDef, Sample, register


def checked_input(ctx, slot, dims):
    """The input of a max pool with index over `dims` spatial dims: floats of dims + 2."""
    x = ctx.input_var(slot)
    ctx.check_dtype(slot, FLOATS)
    ctx.expect(len(x.shape) == dims + 2, "%s %r must be %d-D, got %s"
               % (slot, x.name, dims + 2, list(x.shape)))
    return x


def max_with_index(x, out_sizes, cells):
    """(Out, Mask) of max pooling x [N, C, *S] over `cells`, (output index, tuple of
    slices of S) each: the first maximum of a window (row-major) and its flat index in the
    input plane; an empty window keeps EMPTY_MAX and -1."""
    spatial = x.shape[2:]
    out = np.full(x.shape[:2] + tuple(out_sizes), EMPTY_MAX, x.dtype)
    mask = np.full(out.shape, -1, np.int32)
    for index, window in cells:
        block = x[(Ellipsis,) + window].reshape(x.shape[:2] + (-1,))
        if not block.size:
            continue
        first = block.argmax(-1)
        local = np.unravel_index(first, [sl.stop - sl.start for sl in window])
        mask[(Ellipsis,) + index] = np.ravel_multi_index(
            [a + sl.start for a, sl in zip(local, window)], spatial)
        out[(Ellipsis,) + index] = np.take_along_axis(block, first[..., None], -1)[..., 0]
    return out, mask


def scatter_at_mask(x, mask, dout):
    """The gradient of a pool with index: each Out@GRAD value added into X at its Mask."""
    n, c = x.shape[:2]
    dx = np.zeros((n * c, int(np.prod(x.shape[2:]))), dout.dtype)
    rows = np.repeat(np.arange(n * c), int(np.prod(mask.shape[2:])))
    flat = mask.reshape(-1)
    hit = flat >= 0
    np.add.at(dx, (rows[hit], flat[hit]), dout.reshape(-1)[hit])
    return dx.reshape(x.shape).astype(x.dtype)


class _MaxPoolWithIndex(OpDef):
    inputs = ("X",)
    outputs = ("Out", "Mask")
    attrs = {"ksize": [2, 2], "strides": [1, 1], "paddings": [0, 0],
             "global_pooling": False, "adaptive": False, "ceil_mode": False}
    grad_inputs = ("X", "Mask", "Out@GRAD")
    dims = 2

    def infer_shape(self, ctx):
        x = checked_input(ctx, "X", self.dims)
        for name in ("ksize", "strides", "paddings"):
            ctx.expect(len(ctx.attr(name)) == self.dims, "%s must have %d values, got %s"
                       % (name, self.dims, list(ctx.attr(name))))
        if not (ctx.attr("global_pooling") or ctx.attr("adaptive")):
            ctx.check_positive("ksize", "strides")
        spatial = [d if d >= 0 else 1 + 2 * max(ctx.attr("ksize")) for d in x.shape[2:]]
        out = self._geometry(spatial, ctx.attr("ksize"), ctx.attr("strides"),
                             ctx.attr("paddings"), ctx.attr("global_pooling"),
                             ctx.attr("adaptive"), ctx.attr("ceil_mode"))[3]
        ctx.expect(min(out) > 0, "X %r of shape %s is smaller than the window %s"
                   % (x.name, list(x.shape), ctx.attr("ksize")))
        if not ctx.attr("adaptive"):
            if not ctx.attr("global_pooling"):
                out = [-1 if d < 0 else o for d, o in zip(x.shape[2:], out)]
        elif ctx.attr("global_pooling"):
            out = list(x.shape[2:])
        shape = list(x.shape[:2]) + list(out)
        ctx.set_output("Out", shape, x.dtype)
        ctx.set_output("Mask", shape, "int32")

    @staticmethod
    def _geometry(spatial, ksize, strides, paddings, global_pooling, adaptive, ceil_mode):
        # global pooling makes ksize the input's size and drops the padding, before
        # adaptive reads ksize as the output size (adaptive + global: one cell per cell)
        if global_pooling:
            ksize, paddings = list(spatial), [0] * len(spatial)
        return pool_geometry(tuple(spatial), ksize, strides, paddings, False, ceil_mode,
                             adaptive, "EXPLICIT")

    def forward(self, x, ksize=(2, 2), strides=(1, 1), paddings=(0, 0),
                global_pooling=False, adaptive=False, ceil_mode=False):
        spatial = x.shape[2:]
        k, s, pads, out_sizes = self._geometry(spatial, ksize, strides, paddings,
                                               global_pooling, adaptive, ceil_mode)
        return max_with_index(x, out_sizes, ((index, window) for index, window, _
                                             in windows(spatial, k, s, pads, out_sizes,
                                                        adaptive)))

    @staticmethod
    def backward(x, mask, dout, **attrs):
        return scatter_at_mask(x, mask, dout)

    def samples(self, rng):
        def distinct(*shape):
            return rng.permutation(int(np.prod(shape))).reshape(shape) / 10.0
        d = self.dims
        yield Sample({"X": distinct(2, 3, *[5] * d)},
                     {"ksize": [3] * d, "strides": [2] * d, "paddings": [1] * d}, name="padded")
        yield Sample({"X": distinct(1, 2, *[4] * d)},
                     {"ksize": [2] * d, "strides": [1] * d, "paddings": [0] * d}, name="overlap")
        yield Sample({"X": rand(rng, 2, 2, *[3] * d)},
                     {"ksize": [1] * d, "strides": [1] * d, "paddings": [0] * d,
                      "global_pooling": True}, name="global")
        yield Sample({"X": distinct(1, 1, *[3] * d)},
                     {"ksize": [2] * d, "strides": [1] * d, "paddings": [0] * d,
                      "global_pooling": True, "adaptive": True}, name="global_adaptive")
        yield Sample({"X": distinct(1, 2, *[5] * d)},
                     {"ksize": [2] * d, "strides": [1] * d, "paddings": [0] * d,
                      "adaptive": True}, name="adaptive")
        # ceil_mode's last window runs past the input: only its inside part is pooled
        yield Sample({"X": distinct(1, 2, *[5] * d)},
                     {"ksize": [2] * d, "strides": [2] * d, "paddings": [0] * d,
                      "ceil_mode": True}, name="ceil_mode")


@register
class MaxPool2DWithIndex(_MaxPoolWithIndex):
    type = "max_pool2d_with_index"


@register
class MaxPool3DWithIndex(_MaxPoolWithIndex):
    type = "max_pool3d_with_index"
    attrs = {"ksize": [2, 2, 2], "strides": [1, 1, 1], "paddings": [0, 0, 0],
             "global_pooling": False, "adaptive": False, "ceil_mode": False}
    dims = 3
