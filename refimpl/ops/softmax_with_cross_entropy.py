"""softmax_with_cross_entropy: Softmax = softmax(Logits); Loss = -sum(label * log Softmax)
along `axis` (hard labels: -log Softmax[label]); ignore_index rows get loss 0 and no grad.
The loss comes from log-softmax (shifted logits), never log(0). Logits@GRAD follows
Paddle's kernel: (Softmax - Label) * Loss@GRAD, hard labels one-hot; for soft labels that
is the exact gradient when each label row sums to 1, as Paddle assumes."""
import numpy as np

from .. import versions
from ._common import FLOATS, rand
from .activation import clipped_shift
from .registry import OpDef, Sample, register, share_lod


def _unit_tail_dropped(label, ndim):
    """A hard Label of higher rank than Logits whose extra trailing dims are all 1 (Paddle
    1.8.5 / 2.0 accept [B, T, 1, 1] for Logits [B, T, V]: PaddleNLP 2.0's Perplexity) read
    as its first `ndim` dims."""
    return label.reshape(label.shape[:ndim]) if label.ndim > ndim else label


def _hard_mask(label, axis, n_classes, ignore_index):
    """One-hot of `label` along `axis` (label has size 1 on that axis); ignored rows are 0."""
    if label.dtype.kind not in "iu":     # (a fed Label whose declared dtype did not say)
        raise TypeError("Label must be int64 (or int32) class indices when soft_label is "
                        "False, got %s" % label.dtype.name)
    lab = label.astype(np.int64)
    bad = ((lab < 0) | (lab >= n_classes)) & (lab != ignore_index)
    if bad.any():
        raise IndexError("Label: class %d is out of range for %d classes (ignore_index=%d)"
                         % (lab[bad][0], n_classes, ignore_index))
    classes = np.arange(n_classes).reshape([-1 if i == axis else 1 for i in range(lab.ndim)])
    return (lab == classes) & (lab != ignore_index)


@register
class SoftmaxWithCrossEntropy(OpDef):
    type = "softmax_with_cross_entropy"
    lod_outputs = {"Softmax": share_lod("Logits"), "Loss": share_lod("Logits")}
    inputs = ("Logits", "Label")
    outputs = ("Softmax", "Loss")
    attrs = {"soft_label": False, "ignore_index": -100, "numeric_stable_mode": True,
             "axis": -1}
    no_grad = ("Label",)
    grad_inputs = ("Label", "Softmax", "Loss@GRAD")

    def infer_shape(self, ctx):
        logits, label = ctx.input_var("Logits"), ctx.input_var("Label")
        ctx.check_dtype("Logits", FLOATS)
        axis = ctx.attr("axis") % len(logits.shape)
        # (a fluid.layers.data Label takes the fed dtype, as in Paddle: checked at run time)
        fed_as_is = getattr(label, "is_data", False) and not label.need_check_feed
        if not ctx.attr("soft_label") and not fed_as_is:
            ctx.expect(label.dtype.name in ("int32", "int64"),
                       "Label %r must be int64 (or int32) class indices when soft_label is "
                       "False, got %s" % (label.name, label.dtype.name))
        rank = len(logits.shape)
        extra = list(label.shape[rank:])
        unit_tail = (not ctx.attr("soft_label") and extra and all(d == 1 for d in extra)
                     and versions.switch("cross_entropy_label_unit_tail"))
        ctx.expect(len(label.shape) == rank or unit_tail,
                   "Label %r has shape %s; expected rank %d like Logits %r %s (class dim of "
                   "size 1 for hard labels)" % (label.name, list(label.shape),
                                                rank, logits.name, list(logits.shape)))
        loss_shape = list(logits.shape)
        loss_shape[axis] = 1
        want = list(logits.shape) if ctx.attr("soft_label") else loss_shape
        ctx.expect(all(a < 0 or b < 0 or a == b for a, b in zip(label.shape, want)),
                   "Label %r has shape %s, expected %s for Logits %r %s (soft_label=%s)"
                   % (label.name, list(label.shape), want, logits.name, list(logits.shape),
                      ctx.attr("soft_label")))
        ctx.set_output("Softmax", logits.shape, logits.dtype)
        ctx.set_output("Loss", loss_shape, logits.dtype)

    @staticmethod
    def forward(logits, label, soft_label=False, ignore_index=-100, numeric_stable_mode=True,
                axis=-1):
        axis %= logits.ndim
        shifted = clipped_shift(logits, axis)     # as Paddle's softmax (activation.py)
        e = np.exp(shifted)
        total = e.sum(axis=axis, keepdims=True)
        softmax = e / total
        log_softmax = shifted - np.log(total)
        if soft_label:
            loss = -(label * log_softmax).sum(axis=axis, keepdims=True)
        else:
            mask = _hard_mask(_unit_tail_dropped(label, logits.ndim), axis, logits.shape[axis],
                              ignore_index)
            loss = -(log_softmax * mask).sum(axis=axis, keepdims=True)
        return softmax, loss.astype(logits.dtype)

    @staticmethod
    def backward(label, softmax, dloss, soft_label=False, ignore_index=-100,
                 numeric_stable_mode=True, axis=-1):
        axis %= softmax.ndim
        if soft_label:
            return (dloss * (softmax - label)).astype(softmax.dtype)
        label = _unit_tail_dropped(label, softmax.ndim)
        mask = _hard_mask(label, axis, softmax.shape[axis], ignore_index)
        kept = (label != ignore_index)
        return (dloss * (softmax * kept - mask)).astype(softmax.dtype)

    def samples(self, rng):
        yield Sample({"Logits": rand(rng, 4, 5) * 3,
                      "Label": np.array([[0], [4], [2], [-100]], "int64")})
        soft = rng.uniform(0.1, 1, (3, 4))
        yield Sample({"Logits": rand(rng, 3, 4), "Label": soft / soft.sum(1, keepdims=True)},
                     {"soft_label": True})
        yield Sample({"Logits": rand(rng, 2, 3, 4),
                      "Label": rng.randint(0, 3, (2, 1, 4)).astype("int64")}, {"axis": 1})
