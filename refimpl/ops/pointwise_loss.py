"""Elementwise losses of a prediction and a target of the same shape (Paddle's op types):
bce_loss, log_loss, huber_loss, kldiv_loss, sigmoid_cross_entropy_with_logits,
margin_rank_loss, rank_loss, teacher_student_sigmoid_loss, and the two binary-label losses
no 1.8 / 2.0 layer builds (programs append them by type): hinge_loss, modified_huber_loss.

Each is written as loss(x, y) and its partial derivatives; the reductions ('mean',
'sum') are separate ops appended by the layer functions, except where Paddle's op
itself reduces (kldiv_loss's `reduction`, sigmoid_cross_entropy_with_logits' `normalize`).
"""
import numpy as np

from ._common import FLOATS, rand
from .registry import OpDef, Sample, register, scalar_shape, share_lod


def check_same_shape(ctx, a, b):
    """X and Y of one shape (unknown -1 dims match anything); the output takes a's."""
    va, vb = ctx.input_var(a), ctx.input_var(b)
    ctx.check_dtype(a, FLOATS)
    sa, sb = tuple(va.shape), tuple(vb.shape)
    ok = len(sa) == len(sb) and all(p == q or -1 in (p, q) for p, q in zip(sa, sb))
    ctx.expect(ok, "%s %r %s and %s %r %s must have the same shape"
               % (a, va.name, list(sa), b, vb.name, list(sb)))
    return va


def stable_softplus(x):
    """log(1 + exp(x)) without overflow."""
    return np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))


def sigmoid(x):
    return 0.5 * (1 + np.tanh(0.5 * x))


class _SameShapeLoss(OpDef):
    """A loss whose inputs all have the first input's shape; so do all its outputs."""

    def infer_shape(self, ctx):
        for slot in self.inputs[1:]:
            first = check_same_shape(ctx, self.inputs[0], slot)
        for slot in self.outputs:
            ctx.set_output(slot, first.shape, first.dtype)


@register
class BCELoss(_SameShapeLoss):
    """-(y log x + (1 - y) log(1 - x)) on probabilities x; log is clipped at -100 as in
    Paddle (and PyTorch), so x = 0 or 1 gives a finite loss."""
    type = "bce_loss"
    inputs = ("X", "Label")
    outputs = ("Out",)
    no_grad = ("Label",)
    grad_inputs = ("X", "Label", "Out@GRAD")

    @staticmethod
    def forward(x, label):
        with np.errstate(divide="ignore"):
            log_x = np.maximum(np.log(x), -100)
            log_1mx = np.maximum(np.log(1 - x), -100)
        return (-(label * log_x + (1 - label) * log_1mx)).astype(x.dtype)

    @staticmethod
    def backward(x, label, dout):
        eps = 1e-12  # Paddle's guard against x (1 - x) = 0
        return dout * (x - label) / np.maximum((1 - x) * x, eps)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 4, low=0.1, high=0.9),
                      "Label": rand(rng, 3, 4, low=0.0, high=1.0)})


@register
class LogLoss(_SameShapeLoss):
    """-y log(p + eps) - (1 - y) log(1 - p + eps), p the predicted probability."""
    type = "log_loss"
    inputs = ("Predicted", "Labels")
    outputs = ("Loss",)
    attrs = {"epsilon": 1e-4}
    no_grad = ("Labels",)
    grad_inputs = ("Predicted", "Labels", "Loss@GRAD")

    @staticmethod
    def forward(p, y, epsilon=1e-4):
        return -y * np.log(p + epsilon) - (1 - y) * np.log(1 - p + epsilon)

    @staticmethod
    def backward(p, y, dloss, epsilon=1e-4):
        return dloss * (-y / (p + epsilon) + (1 - y) / (1 - p + epsilon))

    def samples(self, rng):
        predicted = rand(rng, 4, 1, low=0.1, high=0.9)
        labels = rng.randint(0, 2, (4, 1)).astype("float64")
        yield Sample({"Predicted": predicted, "Labels": labels}, {"epsilon": 1e-4})
        # float32, the only dtype of Paddle's log_loss kernel (no finite-difference
        # gradient check in float32)
        yield Sample({"Predicted": predicted.astype("float32"),
                      "Labels": labels.astype("float32")}, {"epsilon": 1e-4}, grad=False,
                     name="float32")


@register
class HuberLoss(_SameShapeLoss):
    """r = Y - X; 0.5 r^2 where |r| <= delta, delta (|r| - 0.5 delta) beyond. Residual (r)
    is kept for the gradient, as in Paddle."""
    type = "huber_loss"
    inputs = ("X", "Y")
    outputs = ("Out", "Residual")
    attrs = {"delta": 1.0}
    grad_inputs = ("Residual", "Out@GRAD")

    @staticmethod
    def forward(x, y, delta=1.0):
        r = y - x
        a = np.abs(r)
        out = np.where(a <= delta, 0.5 * r * r, delta * (a - 0.5 * delta))
        return out.astype(x.dtype), r

    @staticmethod
    def backward(r, dout, delta=1.0):
        d_r = dout * np.clip(r, -delta, delta)
        return -d_r, d_r

    def samples(self, rng):
        x, y = rand(rng, 4, 3, low=-2, high=2), rand(rng, 4, 3, low=-2, high=2)
        r = np.abs(y - x)
        y[np.abs(r - 0.7) < 0.05] += 0.2  # away from the kink at |r| = delta
        yield Sample({"X": x, "Y": y}, {"delta": 0.7})


@register
class KLDivLoss(OpDef):
    """Target * (log(Target) - X) (0 where Target <= 0), X being log-probabilities; then
    `reduction`: none, mean (over elements), batchmean (sum / batch size) or sum."""
    type = "kldiv_loss"
    inputs = ("X", "Target")
    outputs = ("Loss",)
    attrs = {"reduction": "mean"}
    no_grad = ("Target",)
    grad_inputs = ("X", "Target", "Loss@GRAD")
    REDUCTIONS = ("none", "mean", "batchmean", "sum")

    def infer_shape(self, ctx):
        x = check_same_shape(ctx, "X", "Target")
        reduction = ctx.attr("reduction")
        ctx.expect(reduction in self.REDUCTIONS, "reduction must be one of %s, got %r"
                   % (list(self.REDUCTIONS), reduction))
        # a reduced loss is one number: [1] under 1.8 (1.8.5 measured) and 2.0, 0-D in 3
        ctx.set_output("Loss", x.shape if reduction == "none" else scalar_shape(), x.dtype)

    @staticmethod
    def _divisor(x, reduction):
        return {"mean": x.size, "batchmean": x.shape[0] if x.ndim else 1}.get(reduction, 1)

    @staticmethod
    def forward(x, target, reduction="mean"):
        positive = target > 0
        with np.errstate(divide="ignore", invalid="ignore"):
            loss = np.where(positive, target * (np.log(np.where(positive, target, 1)) - x), 0)
        loss = loss.astype(x.dtype)
        if reduction == "none":
            return loss
        return np.full(scalar_shape(), loss.sum() / KLDivLoss._divisor(x, reduction), x.dtype)

    @staticmethod
    def backward(x, target, dloss, reduction="mean"):
        dx = -np.where(target > 0, target, 0) * dloss
        return (dx / KLDivLoss._divisor(x, reduction)).astype(x.dtype)

    def samples(self, rng):
        for reduction in self.REDUCTIONS:
            target = rand(rng, 3, 4, low=-0.2, high=1.0)
            target[np.abs(target) < 0.05] = 0.3
            yield Sample({"X": rand(rng, 3, 4), "Target": target}, {"reduction": reduction},
                         name=reduction)


@register
class SigmoidCrossEntropyWithLogits(_SameShapeLoss):
    """max(x, 0) - x y + log(1 + exp(-|x|)) (the cross entropy of sigmoid(x) against y,
    computed stably); with a pos_weight w (Paddle 2.3 on: its optional input of X's shape),
    (1 - y) x + w (log(1 + exp(-|x|)) + max(-x, 0)), as 3.3.1's kernel (measured), which
    is the former at w = 1; 0 where Label == ignore_index; with `normalize`, divided by the
    number of labels not ignored."""
    type = "sigmoid_cross_entropy_with_logits"
    lod_outputs = {"Out": share_lod("X")}
    inputs = ("X", "Label", "pos_weight?")
    outputs = ("Out",)
    attrs = {"normalize": False, "ignore_index": -100}
    no_grad = ("Label", "pos_weight")
    grad_inputs = ("X", "Label", "pos_weight?", "Out@GRAD")

    def infer_shape(self, ctx):
        x = check_same_shape(ctx, "X", "Label")
        if ctx.has_input("pos_weight"):
            check_same_shape(ctx, "X", "pos_weight")
        ctx.set_output("Out", x.shape, x.dtype)

    @staticmethod
    def _kept(label, normalize, ignore_index):
        kept = label != ignore_index
        return kept, (max(int(kept.sum()), 1) if normalize else 1)

    @staticmethod
    def forward(x, label, pos_weight=None, normalize=False, ignore_index=-100):
        kept, count = SigmoidCrossEntropyWithLogits._kept(label, normalize, ignore_index)
        softplus = np.log1p(np.exp(-np.abs(x)))
        if pos_weight is None:
            loss = np.maximum(x, 0) - x * label + softplus
        else:
            loss = (1 - label) * x + pos_weight * (softplus + np.maximum(-x, 0))
        return (np.where(kept, loss, 0) / count).astype(x.dtype)

    @staticmethod
    def backward(x, label, pos_weight, dout, normalize=False, ignore_index=-100):
        kept, count = SigmoidCrossEntropyWithLogits._kept(label, normalize, ignore_index)
        dx = sigmoid(x) - label if pos_weight is None else \
            (1 - label) - pos_weight * sigmoid(-x)
        return (np.where(kept, dx, 0) * dout / count).astype(x.dtype)

    def samples(self, rng):
        label = rand(rng, 3, 5, low=0, high=1)
        yield Sample({"X": rand(rng, 3, 5, low=-3, high=3), "Label": label}, name="soft")
        hard = rng.randint(0, 2, (3, 5)).astype("float64")
        hard[0, :2] = -1
        yield Sample({"X": rand(rng, 3, 5, low=-3, high=3), "Label": hard},
                     {"normalize": True, "ignore_index": -1}, name="ignore_normalize")
        yield Sample({"X": rand(rng, 3, 5, low=-3, high=3), "Label": label,
                      "pos_weight": rand(rng, 3, 5, low=0.1, high=2)}, name="pos_weight")


@register
class MarginRankLoss(_SameShapeLoss):
    """max(0, -Label (X1 - X2) + margin); Activated marks where the hinge is open."""
    type = "margin_rank_loss"
    inputs = ("X1", "X2", "Label")
    outputs = ("Out", "Activated")
    attrs = {"margin": 0.0}
    no_grad = ("Label",)
    grad_inputs = ("Label", "Activated", "Out@GRAD")

    @staticmethod
    def forward(x1, x2, label, margin=0.0):
        hinge = -label * (x1 - x2) + margin
        return np.maximum(hinge, 0).astype(x1.dtype), (hinge > 0).astype(x1.dtype)

    @staticmethod
    def backward(label, activated, dout, margin=0.0):
        d1 = -dout * activated * label
        return d1, -d1

    def samples(self, rng):
        x1, x2 = rand(rng, 5, 1), rand(rng, 5, 1)
        label = np.where(rng.rand(5, 1) > 0.5, 1.0, -1.0)
        hinge = -label * (x1 - x2) + 0.1
        x1[np.abs(hinge) < 0.05] += 0.2 * label[np.abs(hinge) < 0.05]
        yield Sample({"X1": x1, "X2": x2, "Label": label}, {"margin": 0.1})


@register
class RankLoss(OpDef):
    """RankNet: log(1 + exp(o)) - Label o with o = Left - Right, Label the target
    probability that Left ranks above Right. Each of Label, Left, Right is [N] or [N, 1]
    (Paddle 1.8.5 mixes them freely); Out has Label's shape."""
    type = "rank_loss"
    inputs = ("Label", "Left", "Right")
    outputs = ("Out",)
    no_grad = ("Label",)
    grad_inputs = ("Label", "Left", "Right", "Out@GRAD")

    def infer_shape(self, ctx):
        label = ctx.input_var("Label")
        for slot in ("Label", "Left", "Right"):
            v = ctx.input_var(slot)
            shape = list(v.shape)
            ctx.expect(len(shape) in (1, 2) and shape[1:] in ([], [1]) and
                       (shape[0] < 0 or label.shape[0] < 0 or shape[0] == label.shape[0]),
                       "%s %r has shape %s; Label, Left and Right must each be [N] or [N, 1] "
                       "with the same N (Label %r is %s)" % (slot, v.name, shape, label.name,
                                                             list(label.shape)))
        ctx.set_output("Out", label.shape, ctx.input_dtype("Left"))

    @staticmethod
    def forward(label, left, right):
        o = left.reshape(label.shape) - right.reshape(label.shape)
        return (stable_softplus(o) - label * o).astype(left.dtype)

    @staticmethod
    def backward(label, left, right, dout):
        d = dout * (sigmoid(left.reshape(label.shape) - right.reshape(label.shape)) - label)
        return d.reshape(left.shape), -d.reshape(right.shape)

    def samples(self, rng):
        yield Sample({"Label": rng.randint(0, 2, (5, 1)).astype("float64"),
                      "Left": rand(rng, 5, 1), "Right": rand(rng, 5, 1)})


@register
class TeacherStudentSigmoidLoss(_SameShapeLoss):
    """Click-through loss with an optional teacher score folded into Label: Label < -1:
    no click (z = 0); -1 <= Label < 0: click (z = 1); 0 <= Label < 1: no click plus a
    teacher score Label; Label >= 1: click plus a teacher score Label - 1. Each part is
    a sigmoid cross entropy ce(x, z) = max(x, 0) - x z + log(1 + exp(-|x|)). As in
    Paddle 1.8.5 (the last Paddle with the op; specs/ops/functional_loss.md), the bounds
    act on the gradient only: the forward takes X as it is, while the gradient is zero
    where X lies outside (soft_max_lower_bound, soft_max_up_bound)."""
    type = "teacher_student_sigmoid_loss"
    inputs = ("X", "Label")
    outputs = ("Y",)
    attrs = {"soft_max_up_bound": 15.0, "soft_max_lower_bound": -15.0}
    no_grad = ("Label",)
    grad_inputs = ("X", "Label", "Y@GRAD")

    @staticmethod
    def _targets(label):
        """(click z, where a teacher score is given, that score) per element."""
        click = ((label >= -1) & (label < 0)) | (label >= 1)
        has_teacher = label >= 0
        teacher = np.where(label >= 1, label - 1, label)
        return click.astype(float), has_teacher, teacher

    @staticmethod
    def forward(x, label, soft_max_up_bound=15.0, soft_max_lower_bound=-15.0):
        click, has_teacher, teacher = TeacherStudentSigmoidLoss._targets(label)

        def ce(z):
            return np.maximum(x, 0) - x * z + np.log1p(np.exp(-np.abs(x)))
        return (ce(click) + np.where(has_teacher, ce(teacher), 0)).astype(x.dtype)

    @staticmethod
    def backward(x, label, dy, soft_max_up_bound=15.0, soft_max_lower_bound=-15.0):
        inside = (x > soft_max_lower_bound) & (x < soft_max_up_bound)
        click, has_teacher, teacher = TeacherStudentSigmoidLoss._targets(label)
        s = sigmoid(x)
        d = (s - click) + np.where(has_teacher, s - teacher, 0)
        return (d * inside * dy).astype(x.dtype)

    def samples(self, rng):
        label = np.array([[-2.0], [-1.0], [0.3], [1.6], [0.0], [1.0]])
        bounds = {"soft_max_up_bound": 2.5, "soft_max_lower_bound": -2.5}
        # beyond the bounds the gradient is zero but the loss is not constant, so only the
        # forward is checked there (tests/test_functional_loss.py checks that gradient)
        yield Sample({"X": rand(rng, 6, 1, low=-3, high=3), "Label": label}, bounds,
                     grad=False)
        yield Sample({"X": rand(rng, 6, 1, low=-2.4, high=2.4), "Label": label}, bounds,
                     name="inside_bounds")


def _signed_labels(labels):
    """0 / 1 labels as -1 / +1."""
    return 2 * labels - 1


def _binary_label_samples(rng, x_slot, label_slot):
    """X in [-2, 2] with 0 / 1 labels, margins kept off the kinks at -1 and 1."""
    x = rand(rng, 6, 1, low=-2, high=2)
    labels = rng.randint(0, 2, (6, 1)).astype("float64")
    margin = x * _signed_labels(labels)
    x[np.abs(np.abs(margin) - 1) < 0.05] += 0.2
    yield Sample({x_slot: x, label_slot: labels})


@register
class HingeLoss(_SameShapeLoss):
    """max(1 - (2 Labels - 1) Logits, 0) on 0 / 1 Labels; the gradient -(2 Labels - 1)
    where the margin (2 Labels - 1) Logits is below 1, else 0 (Paddle 1.8.5: a margin of
    exactly 1 gives 0)."""
    type = "hinge_loss"
    inputs = ("Logits", "Labels")
    outputs = ("Loss",)
    no_grad = ("Labels",)
    grad_inputs = ("Logits", "Labels", "Loss@GRAD")

    @staticmethod
    def forward(logits, labels):
        return np.maximum(1 - _signed_labels(labels) * logits, 0).astype(logits.dtype)

    @staticmethod
    def backward(logits, labels, dloss):
        sign = _signed_labels(labels)
        return (dloss * -sign * (sign * logits < 1)).astype(logits.dtype)

    def samples(self, rng):
        return _binary_label_samples(rng, "Logits", "Labels")


@register
class ModifiedHuberLoss(_SameShapeLoss):
    """v = X (2 Y - 1) on 0 / 1 labels Y (kept as IntermediateVal for the gradient);
    -4 v where v < -1, (1 - v)^2 where v < 1, else 0."""
    type = "modified_huber_loss"
    inputs = ("X", "Y")
    outputs = ("IntermediateVal", "Out")
    no_grad = ("Y",)
    grad_inputs = ("Y", "IntermediateVal", "Out@GRAD")

    @staticmethod
    def forward(x, y):
        v = x * _signed_labels(y)
        out = np.where(v < -1, -4 * v, np.where(v < 1, (1 - v) ** 2, 0))
        return v.astype(x.dtype), out.astype(x.dtype)

    @staticmethod
    def backward(y, v, dout):
        dv = np.where(v < -1, -4, np.where(v < 1, -2 * (1 - v), 0))
        return (dout * _signed_labels(y) * dv).astype(v.dtype)

    def samples(self, rng):
        return _binary_label_samples(rng, "X", "Y")
