"""sequence_pad: packed sequences -> [batch, padded_length, ...], filled with PadValue."""
import numpy as np

from ._common import rand
from ._sequence import lengths_of, ragged_lengths, row_index, segments
from .registry import OpDef, Sample, register


@register
class SequencePad(OpDef):
    type = "sequence_pad"
    inputs = ("X", "PadValue", "XLength")
    outputs = ("Out", "Length")
    attrs = {"padded_length": -1}
    no_grad = ("PadValue", "XLength")
    grad_inputs = ("X", "XLength", "Out@GRAD")
    lod_lengths = {"XLength": "X"}

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        # Paddle 1.8.5 (the op's last release) rejects a 1-D X as well
        ctx.expect(len(x.shape) >= 2, "input X %r: expected packed rows [total, D, ...] "
                   "(rank >= 2), got shape %s" % (x.name, list(x.shape)))
        ctx.set_output("Out", (-1, ctx.attr("padded_length")) + tuple(x.shape[1:]), x.dtype)
        ctx.set_output("Length", (-1,), "int64")

    @staticmethod
    def forward(x, pad_value, length, padded_length=-1):
        lens = lengths_of(length, len(x), "sequence_pad")
        width = int(lens.max()) if padded_length < 0 and lens.size else padded_length
        if lens.size and lens.max() > width:
            raise ValueError("sequence_pad: padded_length %d is shorter than the longest "
                             "sequence (%d)" % (width, lens.max()))
        out = np.empty((len(lens), width) + x.shape[1:], x.dtype)
        fill = np.asarray(pad_value, x.dtype)
        out[...] = fill.reshape(()) if fill.size == 1 else fill.reshape(x.shape[1:])
        for i, (s, e) in enumerate(segments(lens)):
            out[i, :e - s] = x[s:e]
        return out, lens

    @staticmethod
    def backward(x, length, dout, padded_length=-1):
        lens = lengths_of(length, len(x), "sequence_pad_grad")
        return dout[_batch_time(lens)].reshape(x.shape)

    def samples(self, rng):
        lens = np.array([3, 1, 2], np.int64)
        yield Sample({"X": rand(rng, 6, 2), "PadValue": np.array([0.5]), "XLength": lens})
        yield Sample({"X": rand(rng, 6, 1), "PadValue": np.array([0.0]), "XLength": lens},
                     {"padded_length": 4})
        lens = ragged_lengths(rng)
        yield Sample({"X": rand(rng, int(lens.sum()), 3), "PadValue": rand(rng, 3),
                      "XLength": lens})


def _batch_time(lens):
    """(batch index, time index) of every packed row."""
    batch = np.repeat(np.arange(len(lens)), lens)
    time = row_index(lens, lambda i, s, e: np.arange(e - s))
    return batch, time
