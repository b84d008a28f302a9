"""Losses over class scores with integer labels (Paddle's op types): nll_loss,
bpr_loss, sigmoid_focal_loss."""
import numpy as np

from ._common import FLOATS, rand
from .pointwise_loss import sigmoid, stable_softplus
from .registry import OpDef, Sample, register


def _check_label_shape(ctx, x, label, want):
    ctx.check_dtype("X", FLOATS)
    got = tuple(label.shape)
    ok = len(got) == len(want) and all(p == q or -1 in (p, q) for p, q in zip(got, want))
    ctx.expect(ok, "Label %r %s must have shape %s for X %r %s"
               % (label.name, list(got), list(want), x.name, list(x.shape)))


def _take_class(x, label):
    """x[n, label[n, ...], ...] for X [N, C, d...] and Label [N, d...] (labels clipped to
    a valid class; callers mask the ignored ones)."""
    return np.take_along_axis(x, np.expand_dims(label, 1), axis=1)[:, 0]


def _column_labels(x_shape, label_shape):
    """A [N, 1] column of labels for X [N, C]: Paddle's nll_loss checks only the batch dim
    of a 2-D X's labels and reads them flat, so the column a Dataset of [1] labels batches
    to is taken as [N] (Paddle 2.0 and 3.3.1; the PointNet tutorial's labels)."""
    return len(x_shape) == 2 and len(label_shape) == 2 and label_shape[1] == 1


@register
class NLLLoss(OpDef):
    """-Weight[y] X[n, y, ...] per element (y = Label[n, ...]), 0 where y == ignore_index.
    X is [N, C] or [N, C, d1, ...]. reduction 'mean' divides the sum by Total_weight, the
    summed weights of the labels kept; 'sum' sums; 'none' keeps Label's shape and leaves
    Total_weight 0, as Paddle's kernel does."""
    type = "nll_loss"
    inputs = ("X", "Label", "Weight?")
    outputs = ("Out", "Total_weight")
    scalar_outputs = ("Out", "Total_weight")
    attrs = {"ignore_index": -100, "reduction": "mean"}
    no_grad = ("Label", "Weight")
    grad_inputs = ("X", "Label", "Weight?", "Total_weight", "Out@GRAD")

    def infer_shape(self, ctx):
        x, label = ctx.input_var("X"), ctx.input_var("Label")
        ctx.expect(len(x.shape) >= 2, "X %r must be [N, C, ...], got %s"
                   % (x.name, list(x.shape)))
        want = (x.shape[0],) + tuple(x.shape[2:])
        _check_label_shape(ctx, x, label, want + (1,) if _column_labels(x.shape, label.shape)
                           else want)
        reduction = ctx.attr("reduction")
        ctx.expect(reduction in ("none", "mean", "sum"),
                   "reduction must be 'none', 'mean' or 'sum', got %r" % reduction)
        ctx.set_output("Out", want if reduction == "none" else (), x.dtype)
        ctx.set_output("Total_weight", (), x.dtype)

    @staticmethod
    def _weights(x, label, weight, ignore_index):
        """Per-element weight of the label's class (0 where ignored), and safe labels."""
        if _column_labels(x.shape, label.shape):
            label = label.reshape(-1)
        kept = label != ignore_index
        safe = np.where(kept, label, 0).astype(np.int64)
        if np.any((safe < 0) | (safe >= x.shape[1])):
            raise ValueError("nll_loss: labels must be in [0, %d) or ignore_index %d, got %s"
                             % (x.shape[1], ignore_index, np.unique(label[kept]).tolist()))
        w = np.ones(x.shape[1], x.dtype) if weight is None else weight
        return np.where(kept, w[safe], 0).astype(x.dtype), safe

    @staticmethod
    def forward(x, label, weight, ignore_index=-100, reduction="mean"):
        w, safe = NLLLoss._weights(x, label, weight, ignore_index)
        loss = -w * _take_class(x, safe)
        total = np.asarray(w.sum(), x.dtype)
        if reduction == "none":
            return loss, np.zeros((), x.dtype)
        out = loss.sum() / (total if reduction == "mean" and total != 0 else 1)
        return np.asarray(out, x.dtype), total

    @staticmethod
    def backward(x, label, weight, total, dout, ignore_index=-100, reduction="mean"):
        w, safe = NLLLoss._weights(x, label, weight, ignore_index)
        scale = -w * dout
        if reduction == "mean" and total != 0:
            scale = scale / total
        dx = np.zeros_like(x)
        np.put_along_axis(dx, np.expand_dims(safe, 1), np.expand_dims(scale, 1), axis=1)
        return dx

    def samples(self, rng):
        label = rng.randint(0, 4, (5,))
        label[1] = -1
        yield Sample({"X": rand(rng, 5, 4), "Label": label}, {"ignore_index": -1},
                     name="mean_ignore")
        yield Sample({"X": rand(rng, 2, 3, 2, 2), "Label": rng.randint(0, 3, (2, 2, 2)),
                      "Weight": rand(rng, 3, low=0.5, high=2)}, {"reduction": "sum"},
                     name="sum_4d_weight")
        yield Sample({"X": rand(rng, 4, 3), "Label": rng.randint(0, 3, (4,)),
                      "Weight": rand(rng, 3, low=0.5, high=2)}, {"reduction": "none"},
                     name="none_weight")


@register
class BPRLoss(OpDef):
    """Bayesian personalized ranking: Y[n] = -mean_{j != y} log sigmoid(X[n, y] - X[n, j]),
    y = Label[n, 0]. X may have more leading dims ([d..., C], Label [d..., 1], Y [d..., 1]):
    each row of the last dim is one sample, as in Paddle's kernel."""
    type = "bpr_loss"
    inputs = ("X", "Label")
    outputs = ("Y",)
    no_grad = ("Label",)
    grad_inputs = ("X", "Label", "Y@GRAD")

    def infer_shape(self, ctx):
        x, label = ctx.input_var("X"), ctx.input_var("Label")
        ctx.expect(len(x.shape) >= 2, "X %r must be [N, C] (or [d..., C]), got %s"
                   % (x.name, list(x.shape)))
        rows = tuple(x.shape[:-1])
        _check_label_shape(ctx, x, label, rows + (1,))
        ctx.set_output("Y", rows + (1,), x.dtype)

    @staticmethod
    def _margins(x, label):
        pos = np.take_along_axis(x, label, axis=1)
        others = np.ones_like(x, dtype=bool)
        np.put_along_axis(others, label, False, axis=1)
        return pos - x, others

    @staticmethod
    def forward(x, label):
        rows = x.reshape(-1, x.shape[-1])
        margin, others = BPRLoss._margins(rows, label.reshape(-1, 1))
        loss = np.where(others, stable_softplus(-margin), 0).sum(1, keepdims=True)
        return (loss / (rows.shape[1] - 1)).astype(x.dtype).reshape(x.shape[:-1] + (1,))

    @staticmethod
    def backward(x, label, dy):
        rows, label = x.reshape(-1, x.shape[-1]), label.reshape(-1, 1)
        margin, others = BPRLoss._margins(rows, label)
        # d softplus(x_j - x_y) / d x_j = sigmoid(x_j - x_y); x_y gets minus their sum
        d = np.where(others, sigmoid(-margin), 0) * dy.reshape(-1, 1) / (rows.shape[1] - 1)
        np.put_along_axis(d, label, -d.sum(1, keepdims=True), axis=1)
        return d.reshape(x.shape)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 4, 5), "Label": rng.randint(0, 5, (4, 1))})
        yield Sample({"X": rand(rng, 2, 3, 4), "Label": rng.randint(0, 4, (2, 3, 1))},
                     name="3d")


@register
class SigmoidFocalLoss(OpDef):
    """Focal loss of per-class sigmoids (RetinaNet). Label [N, 1] holds 1..D for a
    foreground class (column label-1 is the positive), 0 for background, -1 to ignore.
    Positives add alpha (1-p)^gamma (-log p), other kept columns (1-alpha) p^gamma
    (-log(1-p)), both divided by max(FgNum, 1)."""
    type = "sigmoid_focal_loss"
    inputs = ("X", "Label", "FgNum")
    outputs = ("Out",)
    attrs = {"gamma": 2.0, "alpha": 0.25}
    no_grad = ("Label", "FgNum")
    grad_inputs = ("X", "Label", "FgNum", "Out@GRAD")

    def infer_shape(self, ctx):
        x, label = ctx.input_var("X"), ctx.input_var("Label")
        ctx.expect(len(x.shape) == 2, "X %r must be [N, D], got %s" % (x.name, list(x.shape)))
        _check_label_shape(ctx, x, label, (x.shape[0], 1))
        ctx.same_as("X", "Out")

    @staticmethod
    def _parts(x, label, fg_num, alpha):
        classes = np.arange(1, x.shape[1] + 1)
        pos = (label == classes).astype(x.dtype)
        neg = ((label != classes) & (label != -1)).astype(x.dtype)
        fg = max(float(np.asarray(fg_num).reshape(-1)[0]), 1.0)
        return alpha * pos / fg, (1 - alpha) * neg / fg, sigmoid(x)

    @staticmethod
    def forward(x, label, fg_num, gamma=2.0, alpha=0.25):
        pos, neg, p = SigmoidFocalLoss._parts(x, label, fg_num, alpha)
        log_p, log_1mp = -stable_softplus(-x), -stable_softplus(x)
        out = -pos * (1 - p) ** gamma * log_p - neg * p ** gamma * log_1mp
        return out.astype(x.dtype)

    @staticmethod
    def backward(x, label, fg_num, dout, gamma=2.0, alpha=0.25):
        pos, neg, p = SigmoidFocalLoss._parts(x, label, fg_num, alpha)
        log_p, log_1mp = -stable_softplus(-x), -stable_softplus(x)
        d_pos = (1 - p) ** gamma * (gamma * p * log_p - (1 - p))
        d_neg = p ** gamma * (p - gamma * (1 - p) * log_1mp)
        return ((pos * d_pos + neg * d_neg) * dout).astype(x.dtype)

    def samples(self, rng):
        label = rng.randint(-1, 4, (6, 1)).astype("int32")
        yield Sample({"X": rand(rng, 6, 3, low=-2, high=2), "Label": label,
                      "FgNum": np.array([3], "int32")}, {"gamma": 2.0, "alpha": 0.25})
