"""add_position_encoding: Out = alpha * X + beta * PE for X [batch, seq_len, size], or for a
LoD X [total, size] with positions counted from 0 in each sequence; size even.
PE[j, k] = sin(j / 10000^(k / (half - 1))) for k < half, cos(...) of k - half for the second
half (half = size / 2; a plain j / 10000 when half == 1)."""
import numpy as np

from ._common import rand
from ._sequence import lengths_of, ragged_lengths
from .registry import OpDef, Sample, register, share_lod


def position_table(seq_len, size):
    half = size // 2
    position = np.arange(seq_len, dtype=np.float64)[:, None]
    rates = np.arange(half, dtype=np.float64) / (half - 1) if half > 1 else np.ones(half)
    angle = position / np.power(10000.0, rates)[None, :]
    return np.concatenate([np.sin(angle), np.cos(angle)], axis=1)


@register
class AddPositionEncoding(OpDef):
    type = "add_position_encoding"
    inputs = ("X", "XLength?")
    outputs = ("Out",)
    attrs = {"alpha": 1.0, "beta": 1.0}
    no_grad = ("XLength",)
    grad_inputs = ("Out@GRAD",)
    lod_lengths = {"XLength": "X"}
    lod_outputs = {"Out": share_lod("X")}

    def infer_shape(self, ctx):
        shape = ctx.input_shape("X")
        ctx.expect(len(shape) in (2, 3),
                   "input X must be 3-D [batch, seq_len, size] (or a 2-D [total, size] LoD "
                   "tensor), got shape %s" % list(shape))
        ctx.expect(shape[-1] < 0 or shape[-1] % 2 == 0,
                   "input X: the encoding size (last dim) must be even, got %d" % shape[-1])
        ctx.same_as("X", "Out")

    @staticmethod
    def forward(x, length, alpha=1.0, beta=1.0):
        if x.ndim == 3:
            table = position_table(x.shape[1], x.shape[2])[None]
        elif length is None:
            raise ValueError("add_position_encoding: a 2-D input X [total, size] must carry "
                             "a LoD (its sequences); got none")
        else:
            lens = lengths_of(length, len(x), "add_position_encoding")
            positions = np.concatenate([np.arange(n) for n in lens] + [np.zeros(0, int)])
            table = position_table(int(lens.max(initial=0)), x.shape[1])[positions]
        return (alpha * x + beta * table).astype(x.dtype)

    @staticmethod
    def backward(dout, alpha=1.0, beta=1.0):
        return (alpha * dout).astype(dout.dtype)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 2, 5, 6)}, {"alpha": 0.5, "beta": 2.0})
        yield Sample({"X": rand(rng, 1, 3, 2)})
        lens = ragged_lengths(rng)
        yield Sample({"X": rand(rng, int(lens.sum()), 4), "XLength": lens}, {"beta": 0.5})
