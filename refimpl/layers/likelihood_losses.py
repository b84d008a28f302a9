"""Paddle 3's negative log-likelihood losses of paddle.nn.functional (gaussian_nll_loss,
poisson_nll_loss, adaptive_log_softmax_with_loss), composed of refimpl's layer functions
as 3.3.1 composes them of its ops. specs/margin_losses.md."""
import math

from ..framework import mode
from .activation import log_softmax
from .common import check_static_dtype, check_variables
from .creation import zeros_like
from .functional_nn import linear
from .indexing import index_sample
from .loss import _check_reduction, _reduce
from .margin_losses import _FLOATS, _check, _same_shape
from .math import EXPORTS as _MATH, cast, clip, mean
from .tensor import concat, reshape, slice, squeeze, unsqueeze, where

_log, _exp, _square, _and = (_MATH["paddle"][n]
                             for n in ("log", "exp", "square", "logical_and"))


def gaussian_nll_loss(input, label, variance, full=False, epsilon=1e-6, reduction="mean",
                      name=None):
    """0.5 (log(v) + (input - label)^2 / v) (+ 0.5 log(2 pi) when `full`), v the variance
    clipped at epsilon. variance has input's shape, or it without the last dim, or a last
    dim of 1 (broadcast). As in 3.3.1 the clipped variance is a constant: no gradient
    reaches `variance`; an eager variance below 0 is a ValueError."""
    check_variables("gaussian_nll_loss", input=input, label=label, variance=variance)
    for arg, v in (("input", input), ("label", label), ("variance", variance)):
        check_static_dtype(v, arg, "gaussian_nll_loss", _FLOATS)
    shape, var_shape = list(input.shape), list(variance.shape)
    if var_shape != shape:
        if var_shape == shape[:-1]:
            variance = unsqueeze(variance, -1)
        elif not (var_shape[:-1] == shape[:-1] and var_shape[-1:] == [1]):
            raise ValueError("gaussian_nll_loss: variance %r %s must have input's shape %s, "
                             "it without the last dim, or a last dim of 1"
                             % (variance.name, var_shape, shape))
    _check_reduction(reduction, "gaussian_nll_loss")
    if mode.dynamic and (variance.numpy() < 0).any():
        raise ValueError("gaussian_nll_loss: variance has negative entry/entries")
    variance = clip(variance, min=float(epsilon))
    variance.stop_gradient = True
    loss = 0.5 * (_log(variance) + _square(input - label) / variance)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction, name)


def poisson_nll_loss(input, label, log_input=True, full=False, epsilon=1e-8,
                     reduction="mean", name=None):
    """exp(input) - label input (log_input), else input - label log(input + epsilon); with
    `full` Stirling's term label log(label) - label + 0.5 log(2 pi label) where label > 1."""
    if epsilon <= 0:
        raise ValueError("poisson_nll_loss: epsilon must be positive, got %s" % epsilon)
    _check("poisson_nll_loss", reduction, ("float16",) + _FLOATS, input=input, label=label)
    _same_shape("poisson_nll_loss", input, label)
    if log_input:
        loss = _exp(input) - label * input
    else:
        loss = input - label * _log(input + float(epsilon))
    if full:
        stirling = label * _log(label) - label + 0.5 * _log(2 * math.pi * label)
        loss = loss + where(label > 1.0, stirling, zeros_like(stirling))
    return _reduce(loss, reduction, name)


def adaptive_log_softmax_with_loss(input, label, head_weight, tail_weights, cutoffs,
                                   head_bias=None, name=None):
    """(output, loss): output[n] the log-probability of label[n] under the adaptive softmax
    (a head over the shortlist [0, cutoffs[0]) and one entry per tail cluster, each
    cluster i its own two-layer projection tail_weights[i] over [cutoffs[i], cutoffs[i+1])),
    loss the mean of -output. input [N, D] with label [N], or [D] with a 0-D label.
    Composed densely: every cluster's log-probabilities for every row, masked by the rows
    whose label falls in it (3.3.1 selects the rows)."""
    check_variables("adaptive_log_softmax_with_loss", input=input, label=label,
                    head_weight=head_weight, head_bias=head_bias)
    batched = len(label.shape) == 1
    if len(label.shape) > 1:
        raise ValueError("adaptive_log_softmax_with_loss: 0D or 1D label tensor expected, "
                         "multi-label not supported")
    if len(input.shape) != (2 if batched else 1):
        raise ValueError("adaptive_log_softmax_with_loss: a %dD label expects %dD input, got "
                         "input of shape %s" % (len(label.shape), 2 if batched else 1,
                                                list(input.shape)))
    if batched and input.shape[0] != label.shape[0] and label.shape[0] != 0:
        raise ValueError("adaptive_log_softmax_with_loss: input and label should have the "
                         "same size in the batch dimension")
    if not batched:
        input, label = unsqueeze(input, 0), unsqueeze(label, 0)
    bounds = [0] + [int(c) for c in cutoffs]
    if mode.dynamic and label.size:
        values = label.numpy()
        if values.min() < 0 or values.max() >= bounds[-1]:
            raise ValueError("adaptive_log_softmax_with_loss: label values should be in "
                             "[0, n_classes - 1], but values in range [%d, %d] were found"
                             % (values.min(), values.max()))
    column = reshape(label, [-1, 1])
    head_logprob = log_softmax(linear(input, head_weight, head_bias), axis=1)
    head_column = column           # the shortlist's own class, or the row's cluster's entry
    output = None
    for i, (low, high) in enumerate(zip(bounds[1:-1], bounds[2:])):
        in_cluster = _and(column >= low, column < high)
        inside = cast(in_cluster, input.dtype)
        inside.stop_gradient = True
        relative = clip(cast(column, input.dtype) - float(low), min=0.0,
                        max=float(high - low - 1))
        relative = cast(relative, column.dtype)
        relative.stop_gradient = True
        projection, weight = tail_weights[i]
        cluster = log_softmax(linear(linear(input, projection), weight), axis=1)
        term = index_sample(cluster, relative) * inside
        output = term if output is None else output + term
        cluster_entry = zeros_like(column) + (bounds[1] + i)
        head_column = where(in_cluster, cluster_entry, head_column)
    head_column.stop_gradient = True
    picked = index_sample(head_logprob, head_column)
    output = squeeze(picked if output is None else picked + output, [1])
    loss = mean(-output)
    return (output if batched else squeeze(output, [0])), loss


def adaptive_log_prob(input, head_weight, tail_weights, cutoffs, head_bias=None):
    """[N, n_classes] log-probabilities of every class under the adaptive softmax (3.3.1's
    AdaptiveLogSoftmaxWithLoss.log_prob): the head's for the shortlist, and for cluster i
    its own log-softmax plus the head's log-probability of the cluster."""
    head_logprob = log_softmax(linear(input, head_weight, head_bias), axis=1)
    shortlist = int(cutoffs[0])
    parts = [slice(head_logprob, [1], [0], [shortlist])]
    for i, (projection, weight) in enumerate(tail_weights):
        cluster = log_softmax(linear(linear(input, projection), weight), axis=1)
        parts.append(cluster + slice(head_logprob, [1], [shortlist + i], [shortlist + i + 1]))
    return concat(parts, axis=1)


EXPORTS = {
    "nn.functional": {
        "gaussian_nll_loss": gaussian_nll_loss, "poisson_nll_loss": poisson_nll_loss,
        "adaptive_log_softmax_with_loss": adaptive_log_softmax_with_loss},
}
