"""Losses as layers: forward(input, label) calls the nn.functional loss. Others (L1Loss,
BCELoss, NLLLoss, ...) wait for their functionals."""
from ...layers.loss import cross_entropy, mse_loss
from .base import Layer

__all__ = ["CrossEntropyLoss", "MSELoss"]

_REDUCTIONS = ("mean", "sum", "none")


class _Loss(Layer):
    def __init__(self, reduction):
        super().__init__()
        if reduction not in _REDUCTIONS:
            raise ValueError("%s: reduction must be one of %s, got %r"
                             % (type(self).__name__, list(_REDUCTIONS), reduction))
        self.reduction = reduction


class CrossEntropyLoss(_Loss):
    """nn.functional.cross_entropy: softmax cross entropy of logits `input` against
    integer (or soft) labels, reduced by `reduction`."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", soft_label=False,
                 axis=-1, name=None):
        super().__init__(reduction)
        self.weight, self.ignore_index, self.soft_label = weight, ignore_index, soft_label
        self.axis, self._name = axis, name

    def forward(self, input, label):
        self._expect_input(input, "input")
        self._expect_input(label, "label")
        return cross_entropy(input, label, self.weight, self.ignore_index, self.reduction,
                             self.soft_label, self.axis, self._name)


class MSELoss(_Loss):
    """nn.functional.mse_loss: (input - label) ** 2 reduced by `reduction`."""

    def __init__(self, reduction="mean"):
        super().__init__(reduction)

    def forward(self, input, label):
        self._expect_input(input, "input")
        self._expect_input(label, "label")
        return mse_loss(input, label, self.reduction)
