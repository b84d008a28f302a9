"""accuracy: the fraction of rows whose Label is among that row's top-k Indices (Out, the
top-k values, is read by Paddle's op but not needed). Accuracy float32, Correct and
Total int32, each one number (scalar_shape()). No gradient."""
import numpy as np

from ._common import rand
from .registry import OpDef, Sample, register


@register
class Accuracy(OpDef):
    type = "accuracy"
    inputs = ("Out", "Indices", "Label")
    outputs = ("Accuracy", "Correct", "Total")
    scalar_outputs = ("Accuracy", "Correct", "Total")

    def infer_shape(self, ctx):
        indices, label = ctx.input_var("Indices"), ctx.input_var("Label")
        ctx.expect(len(indices.shape) == 2, "Indices %r must be 2-D [N, k], got shape %s"
                   % (indices.name, list(indices.shape)))
        ctx.expect(len(label.shape) == 2 and label.shape[1] == 1,
                   "Label %r must be [N, 1], got shape %s" % (label.name, list(label.shape)))
        ctx.set_output("Accuracy", (), "float32")
        ctx.set_output("Correct", (), "int32")
        ctx.set_output("Total", (), "int32")

    @staticmethod
    def forward(out, indices, label):
        hit = (indices == label.reshape(-1, 1)).any(axis=1)
        n = indices.shape[0]
        correct = int(hit.sum())
        return (np.array(correct / n if n else 0.0, np.float32),
                np.array(correct, np.int32), np.array(n, np.int32))

    def samples(self, rng):
        yield Sample({"Out": rand(rng, 4, 2), "Indices": np.array([[1, 0], [2, 1], [0, 3],
                                                                   [3, 2]], "int64"),
                      "Label": np.array([[0], [0], [3], [1]], "int64")})
