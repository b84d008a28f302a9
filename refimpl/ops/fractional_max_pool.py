"""fractional_max_pool2d / fractional_max_pool3d (Paddle 3): max pooling over pseudo-random
windows that tile the input into output_size cells per dim (Graham's fractional max
pooling), with Paddle's index rule (its kernel, measured: every case of a sweep of sizes and
u matches). Per dim, in float32 as Paddle computes it: alpha = (S - k) / (O - 1) with a
kernel_size k, else S / O; u' = random_u with k, else random_u * min((S // O + 2) / alpha - 1,
(S + 1 - S // O) / alpha - (O - 1)); cell i spans [int((i + u') alpha) - int(u' alpha),
that + k) with k, else up to int((i + 1 + u') alpha) - int(u' alpha), clipped to the input.
random_u 0 draws u from the global generator (paddle.seed) each run, as Paddle's kernel
draws one. Slots x / out / mask (mask: each maximum's flat index in its input plane, int32,
the first maximum row-major); the gradient goes to x at mask."""
import itertools

import numpy as np

from ..framework.random import rng_for
from ._common import rand
from .max_pool_with_index import checked_input, max_with_index, scatter_at_mask
from .registry import OpDef, Sample, register

F32 = np.float32


def _spans(size, out, kernel, u):
    """[(start, stop)] of the `out` cells tiling a dim of `size`."""
    if kernel > 0 and out == 1:
        # alpha is 0 / 0 in Paddle's kernel; its NaN casts to one integer twice (x86), so
        # the cell starts at 0 (measured: a [1, k] kernel on a height of 1)
        return [(0, min(kernel, size))]
    alpha = F32(size - kernel) / F32(out - (1 if kernel > 0 else 0))
    if kernel <= 0:
        base = size // out
        u = u * min(F32(base + 2) / alpha - F32(1),
                    F32(size + 1 - base) / alpha - F32(out - 1))
    offset = int(u * alpha)
    spans = []
    for i in range(out):
        start = int((F32(i) + u) * alpha) - offset
        stop = start + kernel if kernel > 0 else int((F32(i + 1) + u) * alpha) - offset
        spans.append((max(start, 0), min(stop, size)))
    return spans


class _FractionalMaxPool(OpDef):
    inputs = ("x",)
    outputs = ("out", "mask")
    grad_inputs = ("x", "mask", "out@GRAD")
    dims = 2

    def infer_shape(self, ctx):
        x = checked_input(ctx, "x", self.dims)
        out_size, kernel = list(ctx.attr("output_size")), list(ctx.attr("kernel_size"))
        ctx.expect(len(out_size) == self.dims, "output_size must have %d values, got %s"
                   % (self.dims, out_size))
        ctx.expect(min(out_size) > 0, "output_size %s must be positive" % out_size)
        ctx.expect(0 <= ctx.attr("random_u") < 1, "random_u must be in [0, 1) (0: drawn), "
                   "got %r" % ctx.attr("random_u"))
        for size, o, k in zip(x.shape[2:], out_size, kernel):
            ctx.expect(size < 0 or k <= 0 or size >= o - 1 + k, "a dim of x %r %s (%d) is "
                       "smaller than output_size %s - 1 + kernel_size %s"
                       % (x.name, list(x.shape), size, out_size, kernel))
        shape = list(x.shape[:2]) + out_size
        ctx.set_output("out", shape, x.dtype)
        ctx.set_output("mask", shape, "int32")

    def forward(self, x, output_size=(1, 1), kernel_size=(0, 0), random_u=0.0,
                return_mask=False):
        u = F32(random_u) if random_u > 0 else F32(rng_for(0).uniform())
        spans = [_spans(size, o, k, u) for size, o, k in
                 zip(x.shape[2:], output_size, list(kernel_size) or [0] * self.dims)]
        cells = ((index, tuple(slice(*spans[d][i]) for d, i in enumerate(index)))
                 for index in itertools.product(*(range(o) for o in output_size)))
        return max_with_index(x, output_size, cells)

    @staticmethod
    def backward(x, mask, dout, **attrs):
        return scatter_at_mask(x, mask, dout)

    def samples(self, rng):
        d = self.dims

        def distinct(*shape):
            return rng.permutation(int(np.prod(shape))).reshape(shape) / 10.0
        yield Sample({"x": distinct(2, 3, *[7, 6, 5][:d])},
                     {"output_size": [3] * d, "kernel_size": [0] * d, "random_u": 0.4,
                      "return_mask": True}, name="tiled")
        yield Sample({"x": distinct(1, 2, *[7, 9, 6][:d])},
                     {"output_size": [3, 4, 2][:d], "kernel_size": [2] * d,
                      "random_u": 0.7, "return_mask": True}, name="kernel")
        yield Sample({"x": rand(rng, 1, 2, *[5] * d)},
                     {"output_size": [2] * d, "kernel_size": [0] * d, "random_u": 0.25,
                      "return_mask": False}, name="float64")


@register
class FractionalMaxPool2D(_FractionalMaxPool):
    type = "fractional_max_pool2d"
    attrs = {"output_size": [1, 1], "kernel_size": [0, 0], "random_u": 0.0,
             "return_mask": False}


@register
class FractionalMaxPool3D(_FractionalMaxPool):
    type = "fractional_max_pool3d"
    dims = 3
    attrs = {"output_size": [1, 1, 1], "kernel_size": [0, 0, 0], "random_u": 0.0,
             "return_mask": False}
