"""cross_entropy and cross_entropy2 on probabilities X (not logits), classes on the last dim.

cross_entropy: Y = -log X[label] (hard labels, int64 [..., 1]) or -sum(Label * log X)
(soft_label). Hard labels may also drop their last dim of 1 (Y then has Label's shape).
cross_entropy2 (what fluid.layers.cross_entropy builds for hard labels): the same Y, plus
MatchX = X[label] (what the gradient reads instead of X) and XShape (X.shape + [0], as
Paddle 1.8.5's cross_entropy2 declares it; reshape2's puts the 0 first). Rows whose label
is ignore_index give Y = 0, MatchX = 0 and no gradient. As Paddle (math::TolerableValue), log X is clamped to +-1e20 rather than
X clipped with an epsilon, so X = 0 gives Y = 1e20, not inf.
"""
import numpy as np

from ._common import FLOATS, shapes_agree
from .registry import OpDef, Sample, register, share_lod

_APPROX_INF = 1e20


def _tolerable_log(x):
    with np.errstate(divide="ignore"):
        # np.clip's bounds, through the ufuncs (np.clip's Python wrapper costs more than
        # the work on a numeric gradient's small inputs)
        return np.minimum(np.maximum(np.log(x), -_APPROX_INF), _APPROX_INF)


def _hard_rows(x, label, ignore_index):
    """(X as [rows, D], which rows count, labels with ignored rows set to 0)."""
    rows = x.reshape(-1, x.shape[-1])
    lab = label.reshape(-1)
    keep = lab != ignore_index
    safe = np.where(keep, lab, 0)
    bad = (safe < 0) | (safe >= rows.shape[1])
    if bad.any():
        raise IndexError("Label: class %d is out of range for %d classes (ignore_index=%d)"
                         % (safe[bad][0], rows.shape[1], ignore_index))
    return rows, keep, safe


def _matched(x, label, ignore_index):
    """(X[label] per row as [..., 1], 0 for ignored rows; which rows count)."""
    rows, keep, safe = _hard_rows(x, label, ignore_index)
    picked = np.where(keep, rows[np.arange(len(rows)), safe], 0)
    return picked.reshape(x.shape[:-1] + (1,)).astype(x.dtype, copy=False), keep


def _hard_loss(match_x, keep):
    keep = keep.reshape(match_x.shape)
    loss = np.where(keep, -_tolerable_log(np.where(keep, match_x, 1)), 0)
    return loss.astype(match_x.dtype, copy=False)


def _hard_grad(x_shape, dtype, label, match_x, dy, ignore_index):
    """dX: -dY / X[label] at each row's label, 0 elsewhere and on ignored rows."""
    lab = label.reshape(-1).astype(np.int64)
    keep = lab != ignore_index
    d = x_shape[-1]
    dx = np.zeros((lab.size, d), dtype)
    r = np.arange(lab.size)
    safe_x = np.where(keep, match_x.reshape(-1), 1)
    dx[r, np.where(keep, lab, 0)] = np.where(keep, -dy.reshape(-1) / safe_x, 0)
    return dx.reshape(x_shape)


def _check_hard_label(ctx, x, label, may_drop_last_dim=False):
    ctx.expect(label.dtype.name in ("int32", "int64"),
               "Label %r must be int64 class indices, got %s" % (label.name, label.dtype.name))
    ctx.expect(shapes_agree(label.shape[:len(x.shape) - 1], x.shape[:-1]),
               "Label %r %s and X %r %s must have the same shape except X's last dim"
               % (label.name, list(label.shape), x.name, list(x.shape)))
    if may_drop_last_dim and len(label.shape) == len(x.shape) - 1:
        return
    ctx.expect(list(label.shape[-1:]) == [1] and len(label.shape) == len(x.shape),
               "Label %r must be X's shape with a last dim of 1 (X %r %s), got shape %s"
               % (label.name, x.name, list(x.shape), list(label.shape)))


def _y_shape(x_shape, label_shape, soft_label):
    """Y is X's shape with a last dim of 1; for hard labels without their last dim of 1
    (X's shape less its last dim, which Paddle's cross_entropy takes too), Label's."""
    if not soft_label and len(label_shape) == len(x_shape) - 1:
        return list(label_shape)
    return list(x_shape[:-1]) + [1]


@register
class CrossEntropy(OpDef):
    type = "cross_entropy"
    lod_outputs = {"Y": share_lod("X")}
    inputs = ("X", "Label")
    outputs = ("Y",)
    attrs = {"soft_label": False, "ignore_index": -100}
    no_grad = ("Label",)
    grad_inputs = ("X", "Label", "Y@GRAD")

    def infer_shape(self, ctx):
        x, label = ctx.input_var("X"), ctx.input_var("Label")
        ctx.check_dtype("X", FLOATS)
        soft = ctx.attr("soft_label")
        if not soft:
            _check_hard_label(ctx, x, label, may_drop_last_dim=True)
        ctx.set_output("Y", _y_shape(x.shape, label.shape, soft), x.dtype)

    @staticmethod
    def forward(x, label, soft_label=False, ignore_index=-100):
        if soft_label:
            return -(label * _tolerable_log(x)).sum(axis=-1, keepdims=True).astype(x.dtype)
        loss = _hard_loss(*_matched(x, label, ignore_index))
        return loss.reshape(_y_shape(x.shape, label.shape, False))

    @staticmethod
    def backward(x, label, dy, soft_label=False, ignore_index=-100):
        if soft_label:
            return (-dy * label / x).astype(x.dtype)
        return _hard_grad(x.shape, x.dtype, label, _matched(x, label, ignore_index)[0], dy,
                          ignore_index)

    def samples(self, rng):
        p = rng.uniform(0.1, 1, (4, 3))
        yield Sample({"X": p / p.sum(1, keepdims=True),
                      "Label": np.array([[2], [0], [1], [-100]], "int64")})
        yield Sample({"X": p / p.sum(1, keepdims=True), "Label": p[::-1] / p.sum()},
                     {"soft_label": True})


@register
class CrossEntropy2(OpDef):
    type = "cross_entropy2"
    lod_outputs = {"Y": share_lod("X")}
    inputs = ("X", "Label")
    outputs = ("Y", "XShape", "MatchX")
    attrs = {"ignore_index": -100}
    no_grad = ("Label",)
    grad_inputs = ("Label", "MatchX", "XShape", "Y@GRAD")

    def infer_shape(self, ctx):
        x, label = ctx.input_var("X"), ctx.input_var("Label")
        ctx.check_dtype("X", FLOATS)
        _check_hard_label(ctx, x, label, may_drop_last_dim=True)
        ctx.set_output("Y", _y_shape(x.shape, label.shape, False), x.dtype)
        ctx.set_output("XShape", list(x.shape) + [0], x.dtype)
        ctx.set_output("MatchX", list(x.shape[:-1]) + [1], x.dtype)

    @staticmethod
    def forward(x, label, ignore_index=-100):
        match_x, keep = _matched(x, label, ignore_index)
        loss = _hard_loss(match_x, keep)
        return (loss.reshape(_y_shape(x.shape, label.shape, False)),
                np.empty(x.shape + (0,), x.dtype), match_x)

    @staticmethod
    def backward(label, match_x, xshape, dy, ignore_index=-100):
        return _hard_grad(xshape.shape[:-1], match_x.dtype, label, match_x, dy, ignore_index)

    def samples(self, rng):
        p = rng.uniform(0.1, 1, (2, 3, 4))
        yield Sample({"X": p / p.sum(-1, keepdims=True),
                      "Label": np.array([[[3], [0], [-100]], [[1], [1], [2]]], "int64")})
