"""Losses as layers: forward(input, label) calls the nn.functional loss with the settings
given at construction. HSigmoidLoss and AdaptiveLogSoftmaxWithLoss own their weights.
Paddle 3's margin and likelihood losses are made by `_settings_loss` from their functions."""
import inspect

from ...layers import functional_loss as F
from ...layers import likelihood_losses, margin_losses
from ...layers.loss import cross_entropy, mse_loss
from ...layers.math import cast
from ...layers.tensor import argmax
from .base import Layer
from .function_layer import bound_settings

__all__ = ["CrossEntropyLoss", "MSELoss", "BCELoss", "BCEWithLogitsLoss", "KLDivLoss",
           "L1Loss", "NLLLoss", "SmoothL1Loss", "HuberLoss", "MarginRankingLoss", "CTCLoss",
           "HSigmoidLoss", "CosineEmbeddingLoss", "HingeEmbeddingLoss", "GaussianNLLLoss",
           "PoissonNLLLoss", "MultiLabelSoftMarginLoss", "MultiLabelMarginLoss",
           "MultiMarginLoss", "SoftMarginLoss", "TripletMarginLoss",
           "TripletMarginWithDistanceLoss", "AdaptiveLogSoftmaxWithLoss"]

_REDUCTIONS = ("mean", "sum", "none")


class _Loss(Layer):
    _reductions = _REDUCTIONS

    def __init__(self, reduction):
        super().__init__()
        if reduction not in self._reductions:
            raise ValueError("%s: reduction must be one of %s, got %r"
                             % (type(self).__name__, list(self._reductions), reduction))
        self.reduction = reduction

    def _expect_inputs(self, **inputs):
        for arg, v in inputs.items():
            self._expect_input(v, arg)


class CrossEntropyLoss(_Loss):
    """nn.functional.cross_entropy: softmax cross entropy of logits `input` against
    integer (or soft) labels, reduced by `reduction` (use_softmax=False, Paddle 2.1 on:
    `input` holds probabilities)."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", soft_label=False,
                 axis=-1, use_softmax=True, name=None):
        super().__init__(reduction)
        self.weight, self.ignore_index, self.soft_label = weight, ignore_index, soft_label
        self.axis, self.use_softmax, self._name = axis, use_softmax, name

    def forward(self, input, label):
        self._expect_inputs(input=input, label=label)
        return cross_entropy(input, label, self.weight, self.ignore_index, self.reduction,
                             self.soft_label, self.axis, use_softmax=self.use_softmax,
                             name=self._name)


class MSELoss(_Loss):
    """nn.functional.mse_loss: (input - label) ** 2 reduced by `reduction`."""

    def __init__(self, reduction="mean"):
        super().__init__(reduction)

    def forward(self, input, label):
        self._expect_inputs(input=input, label=label)
        return mse_loss(input, label, self.reduction)


class BCELoss(_Loss):
    """nn.functional.binary_cross_entropy on probabilities `input`, times `weight` (a
    Variable broadcast against the loss) when given."""

    def __init__(self, weight=None, reduction="mean", name=None):
        super().__init__(reduction)
        self.weight, self._name = weight, name

    def forward(self, input, label):
        self._expect_inputs(input=input, label=label)
        return F.binary_cross_entropy(input, label, self.weight, self.reduction, self._name)


class BCEWithLogitsLoss(_Loss):
    """nn.functional.binary_cross_entropy_with_logits (weight, pos_weight: Variables)."""

    def __init__(self, weight=None, reduction="mean", pos_weight=None, name=None):
        super().__init__(reduction)
        self.weight, self.pos_weight, self._name = weight, pos_weight, name

    def forward(self, logit, label):
        self._expect_inputs(logit=logit, label=label)
        return F.binary_cross_entropy_with_logits(logit, label, self.weight, self.reduction,
                                                  self.pos_weight, self._name)


class KLDivLoss(_Loss):
    """nn.functional.kl_div: label * (log(label) - input), reduction also 'batchmean'."""
    _reductions = _REDUCTIONS + ("batchmean",)

    def __init__(self, reduction="mean"):
        super().__init__(reduction)

    def forward(self, input, label):
        self._expect_inputs(input=input, label=label)
        return F.kl_div(input, label, self.reduction)


class L1Loss(_Loss):
    """nn.functional.l1_loss: |input - label|, reduced."""

    def __init__(self, reduction="mean", name=None):
        super().__init__(reduction)
        self._name = name

    def forward(self, input, label):
        self._expect_inputs(input=input, label=label)
        return F.l1_loss(input, label, self.reduction, self._name)


class NLLLoss(_Loss):
    """nn.functional.nll_loss on log-probabilities [N, C, ...] and class ids [N, ...]."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", name=None):
        super().__init__(reduction)
        self.weight, self.ignore_index, self._name = weight, ignore_index, name

    def forward(self, input, label):
        self._expect_inputs(input=input, label=label)
        return F.nll_loss(input, label, self.weight, self.ignore_index, self.reduction,
                          self._name)


class SmoothL1Loss(_Loss):
    """nn.functional.smooth_l1_loss (Paddle 2.0's Huber loss with `delta`; Paddle 3's
    is_huber=False divides it by delta). Paddle 3's nn.HuberLoss is this class."""

    def __init__(self, reduction="mean", delta=1.0, is_huber=True, name=None):
        super().__init__(reduction)
        self.delta, self.is_huber, self._name = delta, is_huber, name

    def forward(self, input, label):
        self._expect_inputs(input=input, label=label)
        return F.smooth_l1_loss(input, label, self.reduction, self.delta, self.is_huber,
                                self._name)


HuberLoss = SmoothL1Loss


class MarginRankingLoss(_Loss):
    """nn.functional.margin_ranking_loss: relu(-label (input - other) + margin)."""

    def __init__(self, margin=0.0, reduction="mean", name=None):
        super().__init__(reduction)
        self.margin, self._name = margin, name

    def forward(self, input, other, label):
        self._expect_inputs(input=input, other=other, label=label)
        return F.margin_ranking_loss(input, other, label, self.margin, self.reduction,
                                     self._name)


class CTCLoss(_Loss):
    """nn.functional.ctc_loss on padded log_probs [Tmax, B, C] and labels [B, Lmax] with
    their lengths."""

    def __init__(self, blank=0, reduction="mean"):
        super().__init__(reduction)
        self.blank = blank

    def forward(self, log_probs, labels, input_lengths, label_lengths, norm_by_times=False):
        self._expect_inputs(log_probs=log_probs, labels=labels, input_lengths=input_lengths,
                            label_lengths=label_lengths)
        return F.ctc_loss(log_probs, labels, input_lengths, label_lengths, self.blank,
                          self.reduction, norm_by_times)


class HSigmoidLoss(Layer):
    """nn.functional.hsigmoid_loss with its own weight [num_classes - 1, feature_size]
    (XavierUniform) and bias [num_classes - 1, 1] (zeros; bias_attr=False -> none);
    is_custom: num_classes rows, the tree given to forward as path_table / path_code."""

    def __init__(self, feature_size, num_classes, weight_attr=None, bias_attr=None,
                 is_custom=False, is_sparse=False, name=None):
        super().__init__()
        if num_classes < 2 and not is_custom:
            raise ValueError("HSigmoidLoss: num_classes must be at least 2 for the default "
                             "tree, got %d" % num_classes)
        self._feature_size, self._num_classes = feature_size, num_classes
        self._is_custom, self._is_sparse, self._name = is_custom, is_sparse, name
        rows = num_classes if is_custom else num_classes - 1
        self.weight = self.create_parameter([rows, feature_size], weight_attr)
        self.bias = self.create_parameter([rows, 1], bias_attr, is_bias=True)

    def forward(self, input, label, path_table=None, path_code=None):
        self._expect_input(input, "input")
        self._expect_input(label, "label")
        self._expect_dim(input, -1, self._feature_size, "feature_size")
        if self._is_custom and path_table is None:
            raise ValueError("%s: is_custom needs path_table and path_code" % self._where())
        return F.hsigmoid_loss(input, label, self._num_classes, self.weight, self.bias,
                               path_table, path_code, self._is_sparse, self._name)


def _settings_loss(class_name, function, inputs, check=None):
    """The _Loss class `class_name` whose constructor takes `function`'s arguments after
    its `inputs` (3.3.1's order and defaults: the settings, reduction, name), checked by
    `check(settings)` when given, and whose forward(*inputs) calls it with them."""
    parameters = list(inspect.signature(function).parameters.values())[len(inputs):]
    signature = inspect.Signature([inspect.Parameter("self", inspect.Parameter.
                                                     POSITIONAL_OR_KEYWORD)] + parameters)

    def __init__(self, *args, **kwargs):
        settings = bound_settings(class_name, signature, self, args, kwargs)
        _Loss.__init__(self, settings["reduction"])
        if check is not None:
            check(settings)
        self._name = settings.pop("name")
        self._settings = settings

    def forward(self, *args, **kwargs):
        given = dict(zip(inputs, args), **kwargs)
        if len(args) > len(inputs) or sorted(given) != sorted(inputs):
            raise TypeError("%s.forward() takes %s, got %d positional arguments and %s"
                            % (class_name, ", ".join(inputs), len(args), sorted(kwargs)))
        self._expect_inputs(**given)
        return function(*(given[arg] for arg in inputs), name=self._name, **self._settings)

    __init__.__signature__ = signature
    return type(class_name, (_Loss,), {
        "__init__": __init__, "forward": forward, "__module__": __name__,
        "__qualname__": class_name, "__doc__": "nn.functional.%s as a layer."
                                               % function.__name__})


_M, _L = margin_losses, likelihood_losses


def _cosine_margin(settings):
    if not -1 <= settings["margin"] <= 1:      # 3.3.1's layer refuses it (its functional not)
        raise ValueError("CosineEmbeddingLoss: margin must be in [-1, 1], got %s"
                         % settings["margin"])


CosineEmbeddingLoss = _settings_loss("CosineEmbeddingLoss", _M.cosine_embedding_loss,
                                     ("input1", "input2", "label"), _cosine_margin)
HingeEmbeddingLoss = _settings_loss("HingeEmbeddingLoss", _M.hinge_embedding_loss,
                                    ("input", "label"))
SoftMarginLoss = _settings_loss("SoftMarginLoss", _M.soft_margin_loss, ("input", "label"))
MultiLabelSoftMarginLoss = _settings_loss("MultiLabelSoftMarginLoss",
                                          _M.multi_label_soft_margin_loss, ("input", "label"))
MultiLabelMarginLoss = _settings_loss("MultiLabelMarginLoss", _M.multi_label_margin_loss,
                                      ("input", "label"))
MultiMarginLoss = _settings_loss("MultiMarginLoss", _M.multi_margin_loss, ("input", "label"))
TripletMarginLoss = _settings_loss("TripletMarginLoss", _M.triplet_margin_loss,
                                   ("input", "positive", "negative"))
TripletMarginWithDistanceLoss = _settings_loss(
    "TripletMarginWithDistanceLoss", _M.triplet_margin_with_distance_loss,
    ("input", "positive", "negative"))
GaussianNLLLoss = _settings_loss("GaussianNLLLoss", _L.gaussian_nll_loss,
                                 ("input", "label", "variance"))
PoissonNLLLoss = _settings_loss("PoissonNLLLoss", _L.poisson_nll_loss, ("input", "label"))


class AdaptiveLogSoftmaxWithLoss(Layer):
    """nn.functional.adaptive_log_softmax_with_loss with its own weights: a head
    [in_features, cutoffs[0] + clusters] (and bias when head_bias) and per cluster i a
    projection [in_features, in_features // div_value^(i+1)] and an output
    [that, cluster size]; forward(input, label) -> (output, loss)."""

    def __init__(self, in_features, n_classes, cutoffs, weight_attr=None, bias_attr=None,
                 div_value=4.0, head_bias=False, name=None):
        super().__init__()
        cutoffs = list(cutoffs)
        if cutoffs != sorted(cutoffs) or not cutoffs or min(cutoffs) <= 0 or \
                max(cutoffs) > n_classes - 1 or len(set(cutoffs)) != len(cutoffs) or \
                any(int(c) != c for c in cutoffs):
            raise ValueError("AdaptiveLogSoftmaxWithLoss: cutoffs should be a sequence of "
                             "unique, positive integers sorted in an increasing order, "
                             "where each value is between 1 and n_classes-1, got %s"
                             % cutoffs)
        self.in_features, self.n_classes, self.div_value = in_features, n_classes, div_value
        self.cutoffs = cutoffs + [n_classes]
        self.shortlist_size, self.n_clusters = self.cutoffs[0], len(cutoffs)
        self.head_size = self.shortlist_size + self.n_clusters
        self._name = name
        self.head_weight = self.create_parameter([in_features, self.head_size], weight_attr)
        self.head_bias = self.create_parameter([self.head_size], bias_attr, is_bias=True) \
            if head_bias else None
        self.tail_weights = []
        for i, (low, high) in enumerate(zip(self.cutoffs, self.cutoffs[1:])):
            hidden = int(in_features // div_value ** (i + 1))
            self.tail_weights.append([self.create_parameter(shape, weight_attr)
                                      for shape in ([in_features, hidden], [hidden, high - low])])

    def forward(self, input, label):
        self._expect_input(input, "input")
        self._expect_input(label, "label")
        return likelihood_losses.adaptive_log_softmax_with_loss(
            input, label, self.head_weight, self.tail_weights, self.cutoffs, self.head_bias,
            self._name)

    def log_prob(self, input):
        """[N, n_classes] log-probabilities of every class."""
        self._expect_input(input, "input")
        return likelihood_losses.adaptive_log_prob(input, self.head_weight, self.tail_weights,
                                                   self.cutoffs, self.head_bias)

    def predict(self, input):
        """The most likely class of each row, as float32 (3.3.1's dtype): a shortlist class
        the head prefers beats every tail class (its probability is above each cluster's
        total), so this is the argmax of log_prob."""
        return cast(argmax(self.log_prob(input), axis=1), "float32")
