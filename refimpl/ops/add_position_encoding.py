"""add_position_encoding: Out = alpha * X + beta * PE for X [batch, seq_len, size], size even.
PE[j, k] = sin(j / 10000^(k / (half - 1))) for k < half, cos(...) of k - half for the second
half (half = size / 2; a plain j / 10000 when half == 1)."""
import numpy as np

from ._common import rand
from .registry import OpDef, Sample, register


def position_table(seq_len, size):
    half = size // 2
    position = np.arange(seq_len, dtype=np.float64)[:, None]
    rates = np.arange(half, dtype=np.float64) / (half - 1) if half > 1 else np.ones(half)
    angle = position / np.power(10000.0, rates)[None, :]
    return np.concatenate([np.sin(angle), np.cos(angle)], axis=1)


@register
class AddPositionEncoding(OpDef):
    type = "add_position_encoding"
    inputs = ("X",)
    outputs = ("Out",)
    attrs = {"alpha": 1.0, "beta": 1.0}
    grad_inputs = ("Out@GRAD",)

    def infer_shape(self, ctx):
        shape = ctx.input_shape("X")
        ctx.expect(len(shape) == 3, "input X must be 3-D [batch, seq_len, size], got shape %s"
                   % list(shape))
        ctx.expect(shape[2] < 0 or shape[2] % 2 == 0,
                   "input X: the encoding size (last dim) must be even, got %d" % shape[2])
        ctx.same_as("X", "Out")

    @staticmethod
    def forward(x, alpha=1.0, beta=1.0):
        table = position_table(x.shape[1], x.shape[2])
        return (alpha * x + beta * table[None]).astype(x.dtype)

    @staticmethod
    def backward(dout, alpha=1.0, beta=1.0):
        return (alpha * dout).astype(dout.dtype)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 2, 5, 6)}, {"alpha": 0.5, "beta": 2.0})
        yield Sample({"X": rand(rng, 1, 3, 2)})
