"""Activations that draw (Paddle 3's F.rrelu and F.gumbel_softmax): each takes its
draws from the global generator (paddle.seed), as 3.3.1's kernels do; which numbers a seed
draws is refimpl's (framework/random.py `uniform`), not 3.3.1's."""
import numpy as np

from ..framework.random import uniform
from ._common import FLOATS, rand
from .activation import Softmax
from .registry import OpDef, Sample, register, share_lod


@register
class Rrelu(OpDef):
    """Randomized leaky relu: Out = X where X >= 0, else Noise * X; in training Noise is a
    U(lower, upper) draw for each negative element, at test time (lower + upper) / 2; Noise
    is 1 where X >= 0, so dX = Noise * dOut."""
    type = "rrelu"
    inputs = ("X",)
    outputs = ("Out", "Noise")
    lod_outputs = {"Out": share_lod("X")}
    attrs = {"lower": 1.0 / 8, "upper": 1.0 / 3, "is_test": False}
    grad_inputs = ("X", "Noise", "Out@GRAD")

    def infer_shape(self, ctx):
        lower, upper = ctx.attr("lower"), ctx.attr("upper")
        ctx.expect(0 <= lower <= upper <= 1, "lower and upper must satisfy 0 <= lower <= "
                   "upper <= 1, got lower %s, upper %s" % (lower, upper))
        ctx.check_dtype("X", FLOATS)
        ctx.same_as("X", "Out")
        ctx.same_as("X", "Noise")

    @staticmethod
    def forward(x, lower=1.0 / 8, upper=1.0 / 3, is_test=False):
        if is_test:     # the mean slope worked out in float32, as 3.3.1's kernel does
            slope = np.full(x.shape, (np.float32(lower) + np.float32(upper)) / np.float32(2),
                            x.dtype)
        else:
            slope = uniform(0, lower, upper, x.shape, x.dtype)
        noise = np.where(x >= 0, x.dtype.type(1), slope).astype(x.dtype)
        return x * noise, noise

    @staticmethod
    def backward(x, noise, dout, lower=1.0 / 8, upper=1.0 / 3, is_test=False):
        return dout * noise

    def samples(self, rng):
        x = rand(rng, 3, 5)
        x[np.abs(x) < 0.05] = 0.1
        yield Sample({"X": x}, {"lower": 0.1, "upper": 0.3, "is_test": True})


@register
class GumbelSoftmax(OpDef):
    """softmax((X + G) / temperature) along `axis`, G standard Gumbel draws
    (-log(-log U)); `hard`: the one-hot of each row's largest. The gradient is the
    softmax's through Out, not divided by the temperature (3.3.1 measured), so a hard
    Out (one-hot) passes none."""
    type = "gumbel_softmax"
    inputs = ("X",)
    outputs = ("Out",)
    attrs = {"temperature": 1.0, "hard": False, "axis": -1}
    grad_inputs = ("Out", "Out@GRAD")

    def infer_shape(self, ctx):
        ctx.expect(ctx.attr("temperature") > 0, "the temperature must be greater than 0, "
                   "got %s" % ctx.attr("temperature"))
        ctx.check_dtype("X", FLOATS)
        ctx.check_axis("X", ctx.attr("axis"))
        ctx.same_as("X", "Out")

    @staticmethod
    def forward(x, temperature=1.0, hard=False, axis=-1):
        if x.ndim == 0:     # one class: probability 1 (3.3.1's 0-D case)
            return np.ones_like(x)
        u = uniform(0, 0.0, 1.0, x.shape, np.float64)
        gumbel = -np.log(-np.log(np.clip(u, np.finfo(np.float64).tiny, 1.0)))
        soft = Softmax.forward(((x + gumbel) / temperature).astype(x.dtype), axis)
        if not hard:
            return soft
        top = np.expand_dims(soft.argmax(axis=axis), axis)
        out = np.zeros_like(soft)
        np.put_along_axis(out, top, 1, axis=axis)
        return out

    @staticmethod
    def backward(out, dout, temperature=1.0, hard=False, axis=-1):
        return np.zeros_like(dout) if out.ndim == 0 else Softmax.backward(out, dout, axis)

    def samples(self, rng):
        return []   # random: checked statistically in tests/test_activation_losses.py
