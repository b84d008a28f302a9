"""repeat_interleave (Paddle 3): each slice of X along `dim` repeated in place, `Repeats`
times, or RepeatsTensor[i] times for slice i."""
import numpy as np

from ._common import rand, take_along_grad
from .registry import OpDef, Sample, register


def _counts(x, repeats_tensor, repeats, dim):
    n = x.shape[dim]
    if repeats_tensor is None:
        counts = np.full(n, repeats, np.int64)
    else:
        counts = np.asarray(repeats_tensor).astype(np.int64).reshape(-1)
        if counts.shape[0] != n:
            raise ValueError("repeat_interleave: RepeatsTensor has %d counts, X has %d slices "
                             "along dim %d" % (counts.shape[0], n, dim))
    if (counts < 0).any():
        raise ValueError("repeat_interleave: repeats must be >= 0, got %s" % counts.tolist())
    return counts


@register
class RepeatInterleave(OpDef):
    type = "repeat_interleave"
    inputs = ("X", "RepeatsTensor?")
    outputs = ("Out",)
    attrs = {"Repeats": 0, "dim": 0, "output_size": -1}
    no_grad = ("RepeatsTensor",)
    grad_inputs = ("X", "RepeatsTensor?", "Out@GRAD")

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        dim = ctx.check_axis("X", ctx.attr("dim"), attr="dim")
        shape = list(x.shape)
        if ctx.has_input("RepeatsTensor"):
            ctx.check_dtype("RepeatsTensor", ("int32", "int64"))
            shape[dim] = -1
        else:
            repeats = ctx.attr("Repeats")
            ctx.expect(repeats >= 0, "Repeats must be >= 0, got %d" % repeats)
            shape[dim] = -1 if shape[dim] < 0 else shape[dim] * repeats
        ctx.set_output("Out", shape, x.dtype)

    @staticmethod
    def forward(x, repeats_tensor, Repeats=0, dim=0, output_size=-1):
        dim %= max(x.ndim, 1)
        return np.repeat(x, _counts(x, repeats_tensor, Repeats, dim), axis=dim)

    @staticmethod
    def backward(x, repeats_tensor, dout, Repeats=0, dim=0, output_size=-1):
        dim %= max(x.ndim, 1)
        counts = _counts(x, repeats_tensor, Repeats, dim)
        return take_along_grad(x, np.repeat(np.arange(x.shape[dim]), counts), dout, dim)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 4)}, {"Repeats": 2, "dim": 0})
        yield Sample({"X": rand(rng, 2, 3), "RepeatsTensor": np.array([1, 0, 3], "int64")},
                     {"dim": -1})
