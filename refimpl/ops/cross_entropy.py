"""cross_entropy: Y = -sum(label * log X) over the last dim, X being probabilities
(hard labels: -log X[label]); ignore_index rows give 0."""
import numpy as np

from ._common import FLOATS
from .registry import OpDef, Sample, register


def _picked(x, label, ignore_index):
    lab = label.reshape(-1).astype(np.int64)
    rows = x.reshape(-1, x.shape[-1])
    keep = lab != ignore_index
    safe = np.where(keep, lab, 0)
    return rows, lab, keep, safe


@register
class CrossEntropy(OpDef):
    type = "cross_entropy"
    inputs = ("X", "Label")
    outputs = ("Y",)
    attrs = {"soft_label": False, "ignore_index": -100}
    no_grad = ("Label",)
    grad_inputs = ("X", "Label", "Y@GRAD")

    def infer_shape(self, ctx):
        x, label = ctx.input_var("X"), ctx.input_var("Label")
        ctx.check_dtype("X", FLOATS)
        if not ctx.attr("soft_label"):
            ctx.expect(label.dtype.name in ("int32", "int64"),
                       "Label %r must be int64 class indices, got %s"
                       % (label.name, label.dtype.name))
            ctx.expect(label.shape[-1] == 1, "Label %r must have last dim 1, got shape %s"
                       % (label.name, list(label.shape)))
        ctx.set_output("Y", list(x.shape[:-1]) + [1], x.dtype)

    @staticmethod
    def forward(x, label, soft_label=False, ignore_index=-100):
        if soft_label:
            return -(label * np.log(x)).sum(axis=-1, keepdims=True).astype(x.dtype)
        rows, lab, keep, safe = _picked(x, label, ignore_index)
        y = np.where(keep, -np.log(rows[np.arange(len(rows)), safe]), 0)
        return y.reshape(x.shape[:-1] + (1,)).astype(x.dtype)

    @staticmethod
    def backward(x, label, dy, soft_label=False, ignore_index=-100):
        if soft_label:
            return (-dy * label / x).astype(x.dtype)
        rows, lab, keep, safe = _picked(x, label, ignore_index)
        dx = np.zeros_like(rows)
        r = np.arange(len(rows))
        dx[r, safe] = np.where(keep, -dy.reshape(-1) / rows[r, safe], 0)
        return dx.reshape(x.shape)

    def samples(self, rng):
        p = rng.uniform(0.1, 1, (4, 3))
        yield Sample({"X": p / p.sum(1, keepdims=True),
                      "Label": np.array([[2], [0], [1], [-100]], "int64")})
        yield Sample({"X": p / p.sum(1, keepdims=True), "Label": p[::-1] / p.sum()},
                     {"soft_label": True})
