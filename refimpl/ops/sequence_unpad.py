"""sequence_unpad: [batch, padded_length, ...] plus lengths -> the packed rows. A 2-D X
gives a column [rows, 1], as Paddle 1.8.5 (3.3.1 no longer has the op)."""
import numpy as np

from ._common import rand
from ._sequence import check_lengths_var, lengths_of
from .registry import OpDef, Sample, lengths_lod, register
from .sequence_pad import _batch_time


def _row_shape(x_shape):
    """The shape of one Out row for X of `x_shape`."""
    if len(x_shape) == 2:
        return (1,)
    return tuple(x_shape[2:])


@register
class SequenceUnpad(OpDef):
    type = "sequence_unpad"
    inputs = ("X", "Length")
    outputs = ("Out",)
    no_grad = ("Length",)
    grad_inputs = ("X", "Length", "Out@GRAD")
    lod_outputs = {"Out": lengths_lod("Length")}

    def infer_shape(self, ctx):
        check_lengths_var(ctx, "Length")
        x = ctx.input_var("X")
        ctx.expect(len(x.shape) >= 2, "input X %r: expected [batch, padded_length, ...], got "
                   "shape %s" % (x.name, list(x.shape)))
        ctx.set_output("Out", (-1,) + _row_shape(x.shape), x.dtype)

    @staticmethod
    def forward(x, length):
        lens = lengths_of(length, None, "sequence_unpad", "Length")
        if len(lens) != x.shape[0] or (lens.size and lens.max() > x.shape[1]):
            raise ValueError("sequence_unpad: Length %s does not fit X of shape %s"
                             % (lens.tolist(), list(x.shape)))
        rows = x[_batch_time(lens)]
        return rows.reshape((len(rows),) + _row_shape(x.shape))

    @staticmethod
    def backward(x, length, dout):
        dx = np.zeros_like(x)
        lens = lengths_of(length, None, "sequence_unpad_grad", "Length")
        dx[_batch_time(lens)] = dout.reshape((len(dout),) + tuple(x.shape[2:]))
        return dx

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 4, 2), "Length": np.array([3, 1, 2], np.int64)})
        yield Sample({"X": rand(rng, 2, 3), "Length": np.array([0, 3], np.int64)})
