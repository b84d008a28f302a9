"""Paddle 3's margin and embedding losses of paddle.nn.functional (cosine_embedding_loss,
hinge_embedding_loss, soft_margin_loss, multi_label_soft_margin_loss, multi_margin_loss,
multi_label_margin_loss, triplet_margin_loss, triplet_margin_with_distance_loss). 3.3.1
composes each of other ops in Python; so does refimpl, of its layer functions, so static
and dynamic mode and the gradients follow from those ops. specs/margin_losses.md."""
from ..framework import mode
from .activation import EXPORTS as _ACTIVATION
from .common import append_op_out, check_static_dtype, check_variables
from .creation import zeros_like
from .embedding import one_hot
from .functional_loss import p_norm
from .indexing import index_sample
from .loss import _check_reduction, _reduce
from .manipulation import cumsum
from .math import EXPORTS as _MATH, cast, clip, mean, paddle_sum
from .tensor import gather, reshape, unsqueeze, where

_FLOATS = ("float32", "float64")
_log_sigmoid = _ACTIVATION["nn.functional"]["log_sigmoid"]
_relu = _ACTIVATION["nn.functional"]["relu"]
_minimum, _maximum, _exp, _log = (_MATH["paddle"][n]
                                  for n in ("minimum", "maximum", "exp", "log"))


def _check(layer, reduction, dtypes=_FLOATS, **variables):
    """The variables are Variables (a static one of `dtypes`, as 3.3.1 checks there) and
    the reduction one of Paddle's."""
    _check_reduction(reduction, layer)
    check_variables(layer, **variables)
    for arg, v in variables.items():
        if v is not None:
            check_static_dtype(v, arg, layer, dtypes)


def _same_shape(layer, *variables):
    shapes = [list(v.shape) for v in variables]
    if any(s != shapes[0] for s in shapes):
        raise ValueError("%s: %s must have one shape, got %s"
                         % (layer, ", ".join(repr(v.name) for v in variables), shapes))


def _where_label(label, value, x):
    """x where label == value, else 0."""
    return where(label == value, x, zeros_like(x))


def cosine_embedding_loss(input1, input2, label, margin=0, reduction="mean", name=None):
    """1 - cos(input1, input2) where label is 1, max(0, cos - margin) where it is -1
    (cos along the last axis, each squared norm + 1e-11), then reduction."""
    check_variables("cosine_embedding_loss", input1=input1, input2=input2, label=label)
    _check_reduction(reduction, "cosine_embedding_loss")
    if len(label.shape) != 1:
        raise ValueError("cosine_embedding_loss: label %r must be 1-D, got shape %s"
                         % (label.name, list(label.shape)))
    _same_shape("cosine_embedding_loss", input1, input2)
    if len(input1.shape) > 2:
        raise ValueError("cosine_embedding_loss: input1 and input2 must be 1-D or 2-D, got "
                         "shape %s" % list(input1.shape))
    for arg, v, dtypes in (("input1", input1, _FLOATS), ("input2", input2, _FLOATS),
                           ("label", label, ("int32", "int64") + _FLOATS)):
        if v.dtype.name not in dtypes:     # 3.3.1: a ValueError, in both modes
            raise ValueError("cosine_embedding_loss: %s %r must be of dtype %s, got %s"
                             % (arg, v.name, list(dtypes), v.dtype.name))
    dot = paddle_sum(input1 * input2, axis=-1)
    norms = (paddle_sum(input1 * input1, axis=-1) + 1e-11) * \
        (paddle_sum(input2 * input2, axis=-1) + 1e-11)
    cos = dot / append_op_out("sqrt", {"X": [norms]})
    loss = _where_label(label, 1, 1.0 - cos) + \
        _where_label(label, -1, clip(cos - float(margin), min=0.0))
    return _reduce(loss, reduction, name)


def hinge_embedding_loss(input, label, margin=1.0, reduction="mean", name=None):
    """input where label is 1, max(0, margin - input) where it is -1 (0 elsewhere), then
    reduction."""
    _check("hinge_embedding_loss", reduction, input=input, label=label)
    loss = _where_label(label, 1.0, input) + \
        _where_label(label, -1.0, _relu(float(margin) - input))
    return _reduce(loss, reduction, name)


def soft_margin_loss(input, label, reduction="mean", name=None):
    """log(1 + exp(-label input)) elementwise (label cast to input's dtype), then
    reduction."""
    _check("soft_margin_loss", reduction, input=input)
    check_variables("soft_margin_loss", label=label)
    check_static_dtype(label, "label", "soft_margin_loss", ("int32", "int64") + _FLOATS)
    _same_shape("soft_margin_loss", input, label)
    loss = _log(1.0 + _exp(-cast(label, input.dtype) * input))
    return _reduce(loss, reduction, name)


def multi_label_soft_margin_loss(input, label, weight=None, reduction="mean", name=None):
    """-(label log sigmoid(input) + (1 - label) log sigmoid(-input)), times weight, averaged
    over the last axis, then reduction."""
    _check("multi_label_soft_margin_loss", reduction, input=input, label=label, weight=weight)
    _same_shape("multi_label_soft_margin_loss", input, label)
    loss = -(label * _log_sigmoid(input) + (1.0 - label) * _log_sigmoid(-input))
    if weight is not None:
        loss = loss * weight
    return _reduce(mean(loss, axis=-1), reduction, name)


def multi_margin_loss(input, label, p=1, margin=1.0, weight=None, reduction="mean",
                      name=None):
    """Per row n of input [N, C], label[n] = y: the mean over classes i of
    w[y] max(0, margin - x[y] + x[i])^p, less the i = y term's w[y] margin^p / C (3.3.1's
    formula), then reduction."""
    _check("multi_margin_loss", reduction, input=input, weight=weight)
    check_variables("multi_margin_loss", label=label)
    check_static_dtype(label, "label", "multi_margin_loss", ("int32", "int64"))
    if input.shape[0] != label.shape[0]:
        raise ValueError("multi_margin_loss: label %r's shape[0] %d must be input %r's %d"
                         % (label.name, label.shape[0], input.name, input.shape[0]))
    label = reshape(label, [-1, 1])
    hinge = clip(float(margin) - index_sample(input, label) + input, min=0.0)
    hinge = append_op_out("pow", {"X": [hinge]}, {"factor": float(p)})
    own = float(margin) ** p / input.shape[1]
    if weight is None:
        return _reduce(mean(hinge, axis=1) - own, reduction, name)
    if input.shape[1] != weight.shape[0]:
        raise ValueError("multi_margin_loss: weight %r's shape[0] %d must be input %r's "
                         "shape[1] %d" % (weight.name, weight.shape[0], input.name,
                                          input.shape[1]))
    weight = reshape(gather(weight, label, axis=0), [-1, 1])
    loss = mean(weight * hinge, axis=1) - reshape(weight * own, [-1])
    return _reduce(loss, reduction, name)


def _check_multi_labels(label, classes):
    """3.3.1's check of an eager label's values: in [-1, classes)."""
    if mode.dynamic and label.size:
        values = label.numpy()
        if values.min() < -1:
            raise ValueError("multi_label_margin_loss: label values should be >= -1")
        if values.max() >= classes:
            raise ValueError("multi_label_margin_loss: label values should be < %d"
                             % classes)


def multi_label_margin_loss(input, label, reduction="mean", name=None):
    """Per row n of input [N, C]: label[n] lists target classes up to its first -1; the
    loss is the sum over those targets j and the classes i that are no target of
    max(0, 1 - x[j] + x[i]), divided by C, then reduction. Composed densely: a [N, L, C]
    hinge masked by the valid targets and the non-target classes."""
    _check("multi_label_margin_loss", reduction, input=input)
    check_variables("multi_label_margin_loss", label=label)
    check_static_dtype(label, "label", "multi_label_margin_loss", ("int32", "int64"))
    for arg, v in (("input", input), ("label", label)):
        if len(v.shape) != 2:
            raise ValueError("multi_label_margin_loss: expected a 2-D %s tensor, got %d-D"
                             % (arg, len(v.shape)))
    classes = input.shape[1]
    _check_multi_labels(label, classes)
    stopped = cast(cumsum(cast(label == -1, "int32"), axis=1) > 0, input.dtype)
    valid = 1.0 - stopped                                          # [N, L]
    target = _maximum(label, zeros_like(label))      # -1 read as class 0, masked out
    target.stop_gradient = True
    is_target = cast(one_hot(target, classes), input.dtype) * unsqueeze(valid, -1)  # [N, L, C]
    non_target = cast(paddle_sum(is_target, axis=1, keepdim=True) == 0, input.dtype)
    hinge = _relu(1.0 - unsqueeze(index_sample(input, target), -1) + unsqueeze(input, 1))
    loss = paddle_sum(hinge * non_target * unsqueeze(valid, -1), axis=[1, 2]) / float(classes)
    return _reduce(loss, reduction, name)


def _pairwise_distance(p, epsilon):
    """3.3.1's nn.PairwiseDistance(p, epsilon): ||x - y + epsilon||_p along the last axis
    (in every profile: the losses are Paddle 3's)."""
    def distance(x, y):
        return p_norm(x - y + float(epsilon), p, -1)
    return distance


def _triplet(layer, input, positive, negative, distance, margin, swap, reduction, name,
             check_distances):
    _check(layer, reduction, input=input, positive=positive, negative=negative)
    if margin < 0:
        raise ValueError("%s: the margin between positive samples and negative samples "
                         "should be no less than 0, got %s" % (layer, margin))
    _same_shape(layer, input, positive, negative)
    positive_dist = distance(input, positive)
    negative_dist = distance(input, negative)
    if swap:
        negative_dist = _minimum(negative_dist, distance(positive, negative))
    if check_distances and mode.dynamic and (
            (positive_dist.numpy() < 0).any() or (negative_dist.numpy() < 0).any()):
        raise ValueError("%s: the positive and negative distances must be no less than 0; "
                         "check the distance function" % layer)
    loss = clip(positive_dist - negative_dist + float(margin), min=0.0)
    return _reduce(loss, reduction, name)


def triplet_margin_loss(input, positive, negative, margin=1.0, p=2, epsilon=1e-6, swap=False,
                        reduction="mean", name=None):
    """max(0, d(input, positive) - d(input, negative) + margin), d the p-norm distance
    ||a - b + epsilon||_p along the last axis; `swap`: the negative's distance is the
    smaller of d(input, negative) and d(positive, negative). Then reduction."""
    return _triplet("triplet_margin_loss", input, positive, negative,
                    _pairwise_distance(p, epsilon), margin, swap, reduction, name, False)


def triplet_margin_with_distance_loss(input, positive, negative, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean", name=None):
    """triplet_margin_loss with `distance_function(a, b)` (default: the 2-norm distance,
    epsilon 1e-6); an eager distance below 0 is a ValueError (3.3.1)."""
    return _triplet("triplet_margin_with_distance_loss", input, positive, negative,
                    distance_function or _pairwise_distance(2, 1e-6), margin, swap,
                    reduction, name, True)


EXPORTS = {
    "nn.functional": {
        "cosine_embedding_loss": cosine_embedding_loss,
        "hinge_embedding_loss": hinge_embedding_loss, "soft_margin_loss": soft_margin_loss,
        "multi_label_soft_margin_loss": multi_label_soft_margin_loss,
        "multi_margin_loss": multi_margin_loss,
        "multi_label_margin_loss": multi_label_margin_loss,
        "triplet_margin_loss": triplet_margin_loss,
        "triplet_margin_with_distance_loss": triplet_margin_with_distance_loss},
}
