"""sequence_reshape: each sequence's values re-cut into rows of new_dim (a sequence of n
rows of width D becomes n * D / new_dim rows); OutLength holds the new lengths."""
import numpy as np

from ._common import rand
from ._sequence import lengths_of
from .registry import OpDef, Sample, lengths_lod, register


@register
class SequenceReshape(OpDef):
    type = "sequence_reshape"
    inputs = ("X", "XLength")
    outputs = ("Out", "OutLength")
    attrs = {"new_dim": 1}
    no_grad = ("XLength",)
    grad_inputs = ("X", "XLength", "Out@GRAD")
    lod_lengths = {"XLength": "X"}
    lod_outputs = {"Out": lengths_lod("OutLength")}

    def infer_shape(self, ctx):
        x, new_dim = ctx.input_var("X"), ctx.attr("new_dim")
        ctx.expect(len(x.shape) == 2, "input X %r: expected [total, D], got %s"
                   % (x.name, list(x.shape)))
        ctx.expect(new_dim >= 1, "attr new_dim must be >= 1, got %r" % new_dim)
        ctx.set_output("Out", (-1, new_dim), x.dtype)
        ctx.set_output("OutLength", (-1,), "int64")

    @staticmethod
    def forward(x, length, new_dim=1):
        lens = lengths_of(length, len(x), "sequence_reshape")
        values = lens * x.shape[1]
        bad = np.nonzero(values % new_dim)[0]
        if len(bad):
            raise ValueError("sequence_reshape: sequence %d holds %d values (%d rows of %d), "
                             "not a multiple of new_dim %d" % (bad[0], values[bad[0]],
                                                               lens[bad[0]], x.shape[1], new_dim))
        return x.reshape(-1, new_dim), values // new_dim

    @staticmethod
    def backward(x, length, dout, new_dim=1):
        return dout.reshape(x.shape)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 6, 4), "XLength": np.array([3, 1, 0, 2], np.int64)},
                     {"new_dim": 2})
        yield Sample({"X": rand(rng, 5, 2), "XLength": np.array([2, 3], np.int64)},
                     {"new_dim": 1})
