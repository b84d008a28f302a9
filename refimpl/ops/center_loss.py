"""center_loss: Loss = 0.5 ||X_i - Centers[Label_i]||^2 per sample, SampleCenterDiff =
X - Centers[Label]. need_update: CentersOut[k] = Centers[k] + rate * sum_{i: label k}
(X_i - Centers[k]) / (1 + n_k), else Centers. The gradient goes to X only."""
import numpy as np

from ._common import rand
from .registry import OpDef, Sample, register


@register
class CenterLoss(OpDef):
    type = "center_loss"
    inputs = ("X", "Label", "Centers", "CenterUpdateRate")
    outputs = ("CentersOut", "SampleCenterDiff", "Loss")
    attrs = {"cluster_num": 1, "need_update": True}
    grad_inputs = ("SampleCenterDiff", "Loss@GRAD")
    no_grad = ("Label", "Centers", "CenterUpdateRate")

    def infer_shape(self, ctx):
        x, label = ctx.input_shape("X"), ctx.input_shape("Label")
        centers, rate = ctx.input_shape("Centers"), ctx.input_shape("CenterUpdateRate")
        ctx.expect(len(x) == 2, "input X must be 2-D [N, D], got shape %s" % list(x))
        ctx.expect(len(label) == 1 or (len(label) == 2 and label[1] in (-1, 1)),
                   "input Label must be [N, 1] or [N], got shape %s" % list(label))
        ctx.expect(ctx.input_dtype("Label").name in ("int32", "int64"),
                   "input Label must be int32/int64, got %s" % ctx.input_dtype("Label").name)
        ctx.expect(len(centers) == 2 and centers[0] in (-1, ctx.attr("cluster_num"))
                   and (centers[1] < 0 or x[1] < 0 or centers[1] == x[1]),
                   "input Centers must be [cluster_num=%d, %d], got %s"
                   % (ctx.attr("cluster_num"), x[1], list(centers)))
        ctx.expect(list(rate) in ([1], [-1]),
                   "input CenterUpdateRate must have shape [1], got %s" % list(rate))
        dtype = ctx.input_dtype("X")
        ctx.set_output("CentersOut", centers, dtype)
        ctx.set_output("SampleCenterDiff", x, dtype)
        ctx.set_output("Loss", (x[0], 1), dtype)

    @staticmethod
    def forward(x, label, centers, rate, cluster_num=1, need_update=True):
        label = label.reshape(-1)
        if label.size and (label.min() < 0 or label.max() >= centers.shape[0]):
            raise ValueError("center_loss: Label values must be in [0, %d), got %s"
                             % (centers.shape[0], label))
        diff = x - centers[label]
        loss = 0.5 * (diff * diff).sum(axis=1, keepdims=True)
        new_centers = centers.copy()
        if need_update:
            total = np.zeros_like(centers)
            np.add.at(total, label, diff)
            count = 1 + np.bincount(label, minlength=centers.shape[0])
            new_centers += rate.reshape(())[()] * total / count[:, None]
        return new_centers, diff, loss.astype(x.dtype)

    @staticmethod
    def backward(diff, dloss, **attrs):
        return (dloss * diff).astype(diff.dtype)

    def samples(self, rng):
        x, centers = rand(rng, 5, 3), rand(rng, 4, 3)
        label = np.array([[0], [2], [2], [3], [0]], dtype=np.int64)
        rate = np.array([0.1], dtype=x.dtype)
        yield Sample({"X": x, "Label": label, "Centers": centers, "CenterUpdateRate": rate},
                     {"cluster_num": 4, "need_update": True})
        yield Sample({"X": x, "Label": label.reshape(-1), "Centers": centers,
                      "CenterUpdateRate": rate}, {"cluster_num": 4, "need_update": False})
