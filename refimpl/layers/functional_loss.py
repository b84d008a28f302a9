"""Losses and normalizations of paddle.nn.functional (2.0) and their fluid.layers (1.8)
twins. Paddle 2.0's functionals that are compositions of other ops are composed the same
way here (l1_loss, margin_ranking_loss, dice_loss, npair_loss, cosine_similarity,
sigmoid_focal_loss); the others append their own op (bce_loss, kldiv_loss, nll_loss, ...)."""
from .. import versions
from ..framework.layer_helper import LayerHelper
from .common import append_op_out, check_static_dtype, check_variables, unary
from .creation import fill_constant
from .embedding import fluid_one_hot
from .loss import _check_reduction, _reduce, softmax_with_cross_entropy, square_error_cost
from .math import cast, matmul, mean, paddle_sum, pow as paddle_pow
from .tensor import reshape, squeeze, transpose


def _weighted(loss, weight):
    return loss if weight is None else loss * weight


# -- probability / logit cross entropies
def binary_cross_entropy(input, label, weight=None, reduction="mean", name=None):
    """-w (y log x + (1 - y) log(1 - x)) on probabilities (bce_loss op), then reduction."""
    check_variables("binary_cross_entropy", input=input, label=label, weight=weight)
    _check_reduction(reduction, "binary_cross_entropy")
    loss = append_op_out("bce_loss", {"X": [input], "Label": [label]}, name=name)
    return _reduce(_weighted(loss, weight), reduction)


def binary_cross_entropy_with_logits(logit, label, weight=None, reduction="mean",
                                     pos_weight=None, name=None):
    """sigmoid_cross_entropy_with_logits, times (1 + (pos_weight - 1) label) when
    pos_weight is given (Paddle 2.0's composition), times weight, then reduction."""
    check_variables("binary_cross_entropy_with_logits", logit=logit, label=label, weight=weight,
                    pos_weight=pos_weight)
    _check_reduction(reduction, "binary_cross_entropy_with_logits")
    loss = fluid_sigmoid_cross_entropy_with_logits(logit, label, name=name)
    if pos_weight is not None:
        loss = loss * (label * (pos_weight - 1.0) + 1.0)
    return _reduce(_weighted(loss, weight), reduction)


def fluid_sigmoid_cross_entropy_with_logits(x, label, ignore_index=-100, name=None,
                                            normalize=False):
    check_variables("sigmoid_cross_entropy_with_logits", x=x, label=label)
    return append_op_out("sigmoid_cross_entropy_with_logits", {"X": [x], "Label": [label]},
                         {"ignore_index": ignore_index, "normalize": bool(normalize)}, name)


def log_loss(input, label, epsilon=1e-4, name=None):
    """-y log(p + eps) - (1 - y) log(1 - p + eps) elementwise (log_loss op)."""
    check_variables("log_loss", input=input, label=label)
    return append_op_out("log_loss", {"Predicted": [input], "Labels": [label]},
                         {"epsilon": float(epsilon)}, name, out_slot="Loss")


# -- divergences and regression losses
def kl_div(input, label, reduction="mean", name=None):
    """label * (log(label) - input), `input` holding log-probabilities (kldiv_loss op);
    reduction: 'none', 'mean', 'batchmean' or 'sum'."""
    check_variables("kl_div", input=input, label=label)
    return append_op_out("kldiv_loss", {"X": [input], "Target": [label]},
                         {"reduction": reduction}, name, out_slot="Loss")


def fluid_kldiv_loss(x, target, reduction="mean", name=None):
    return kl_div(x, target, reduction, name)


def l1_loss(input, label, reduction="mean", name=None):
    """|input - label|, then reduction (composed, as Paddle 2.0 does)."""
    check_variables("l1_loss", input=input, label=label)
    _check_reduction(reduction, "l1_loss")
    diff = append_op_out("elementwise_sub", {"X": [input], "Y": [label]}, {"axis": -1})
    loss = append_op_out("abs", {"X": [diff]}, name=name if reduction == "none" else None)
    return _reduce(loss, reduction, name)


def _huber(input, label, delta, name):
    helper = LayerHelper("huber_loss", name=name)
    out = helper.create_variable_for_type_inference(input.dtype)
    residual = helper.create_variable_for_type_inference(input.dtype, stop_gradient=True)
    helper.append_op(type="huber_loss", inputs={"X": [input], "Y": [label]},
                     outputs={"Out": [out], "Residual": [residual]},
                     attrs={"delta": float(delta)})
    return out


def smooth_l1_loss(input, label, reduction="mean", delta=1.0, is_huber=True, name=None):
    """Paddle 2.0's smooth L1 is the Huber loss (huber_loss op): 0.5 r^2 for |r| <= delta,
    delta (|r| - delta / 2) beyond; Paddle 3's is_huber=False divides it by delta (0.5 r^2
    / delta, |r| - delta / 2); then reduction."""
    check_variables("smooth_l1_loss", input=input, label=label)
    _check_reduction(reduction, "smooth_l1_loss")
    loss = _huber(input, label, delta, name)
    if not is_huber and delta != 1:
        loss = loss / float(delta)
    return _reduce(loss, reduction)


def huber_loss(input, label, delta):
    check_variables("huber_loss", input=input, label=label)
    return _huber(input, label, delta, None)


def smooth_l1(x, y, inside_weight=None, outside_weight=None, sigma=None):
    """fluid.layers.smooth_l1: [N, 1] row sums of the smooth L1 (smooth_l1_loss op)."""
    check_variables("smooth_l1", x=x, y=y, inside_weight=inside_weight,
                    outside_weight=outside_weight)
    helper = LayerHelper("smooth_l1_loss")
    diff = helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    out = helper.create_variable_for_type_inference(x.dtype)
    inputs = {"X": [x], "Y": [y]}
    if inside_weight is not None:
        inputs["InsideWeight"] = [inside_weight]
    if outside_weight is not None:
        inputs["OutsideWeight"] = [outside_weight]
    helper.append_op(type="smooth_l1_loss", inputs=inputs,
                     outputs={"Diff": [diff], "Out": [out]},
                     attrs={"sigma": 1.0 if sigma is None else float(sigma)})
    return out


def fluid_mse_loss(input, label):
    """fluid.layers.mse_loss: mean of (input - label)^2."""
    return mean(square_error_cost(input, label))


# -- ranking losses
def margin_ranking_loss(input, other, label, margin=0.0, reduction="mean", name=None):
    """relu(-label (input - other) + margin), then reduction (composed, as Paddle 2.0)."""
    check_variables("margin_ranking_loss", input=input, other=other, label=label)
    _check_reduction(reduction, "margin_ranking_loss")
    hinge = -label * (input - other)
    if margin != 0.0:    # a [1] constant holding it exactly (Paddle: fill_constant / full)
        hinge = hinge + fill_constant([1], hinge.dtype, float(margin))
    # the last op's output is named after the loss (margin_ranking_loss_0.tmp_0), as 2.0's
    # LayerHelper names it; its own test_nn_margin_rank_loss checks 'loss' in the name
    if reduction == "none":
        return append_op_out("relu", {"X": [hinge]}, name=name, layer_type="margin_ranking_loss")
    hinge = append_op_out("relu", {"X": [hinge]})
    op, attrs = (("mean", {}) if reduction == "mean" else
                 ("reduce_sum", {"dim": [0], "keep_dim": False, "reduce_all": True}))
    return append_op_out(op, {"X": [hinge]}, attrs, name, layer_type="margin_ranking_loss")


def margin_rank_loss(label, left, right, margin=0.1, name=None):
    """fluid.layers.margin_rank_loss: max(0, -label (left - right) + margin)."""
    check_variables("margin_rank_loss", label=label, left=left, right=right)
    return append_op_out("margin_rank_loss", {"X1": [left], "X2": [right], "Label": [label]},
                         {"margin": float(margin)}, name, extra_outputs=[("Activated", None)])[0]


def rank_loss(label, left, right, name=None):
    """fluid.layers.rank_loss (RankNet): log(1 + exp(left - right)) - label (left - right)."""
    check_variables("rank_loss", label=label, left=left, right=right)
    return append_op_out("rank_loss", {"Label": [label], "Left": [left], "Right": [right]},
                         name=name)


def bpr_loss(input, label, name=None):
    check_variables("bpr_loss", input=input, label=label)
    return append_op_out("bpr_loss", {"X": [input], "Label": [label]}, name=name,
                         out_slot="Y")


def teacher_student_sigmoid_loss(input, label, soft_max_up_bound=15.0,
                                 soft_max_lower_bound=-15.0):
    """fluid.layers.teacher_student_sigmoid_loss: click and teacher-score sigmoid cross
    entropies folded into one label (see the op)."""
    check_variables("teacher_student_sigmoid_loss", input=input, label=label)
    return append_op_out("teacher_student_sigmoid_loss", {"X": [input], "Label": [label]},
                         {"soft_max_up_bound": float(soft_max_up_bound),
                          "soft_max_lower_bound": float(soft_max_lower_bound)},
                         out_slot="Y")


# -- class-index losses
def nll_loss(input, label, weight=None, ignore_index=-100, reduction="mean", name=None):
    """-weight[y] input[n, y, ...] (nll_loss op); 'mean' divides by the kept weights' sum."""
    check_variables("nll_loss", input=input, label=label, weight=weight)
    _check_reduction(reduction, "nll_loss")
    inputs = {"X": [input], "Label": [label]}
    if weight is not None:
        inputs["Weight"] = [weight]
    return append_op_out("nll_loss", inputs, {"ignore_index": ignore_index,
                                              "reduction": reduction}, name,
                         extra_outputs=[("Total_weight", None)])[0]


def fluid_sigmoid_focal_loss(x, label, fg_num, gamma=2.0, alpha=0.25):
    """fluid.layers.sigmoid_focal_loss (sigmoid_focal_loss op): label [N, 1] in 0..D,
    0 background, -1 ignored; divided by fg_num."""
    check_variables("sigmoid_focal_loss", x=x, label=label, fg_num=fg_num)
    return append_op_out("sigmoid_focal_loss", {"X": [x], "Label": [label],
                                                "FgNum": [fg_num]},
                         {"gamma": float(gamma), "alpha": float(alpha)})


def sigmoid_focal_loss(logit, label, normalizer=None, alpha=0.25, gamma=2.0,
                       reduction="sum", name=None):
    """paddle 2.0: alpha_t (1 - p_t)^gamma BCE-with-logits, label in {0, 1} of logit's
    shape, divided by `normalizer` when given, then reduction (composed, as Paddle)."""
    check_variables("sigmoid_focal_loss", logit=logit, label=label, normalizer=normalizer)
    _check_reduction(reduction, "sigmoid_focal_loss")
    p = unary("sigmoid", logit)
    loss = fluid_sigmoid_cross_entropy_with_logits(logit, label)
    p_t = p * label + (1.0 - p) * (1.0 - label)
    alpha_t = label * alpha + (1.0 - label) * (1.0 - alpha)
    loss = paddle_pow(1.0 - p_t, float(gamma)) * (alpha_t * loss)
    if normalizer is not None:
        loss = loss / normalizer
    return _reduce(loss, reduction)


def dice_loss(input, label, epsilon=0.00001, name=None):
    """1 - 2 |X n Y| / (|X| + |Y| + eps) per sample, averaged; input [N, ..., C]
    probabilities, label [N, ..., 1] class ids (one-hot encoded here)."""
    check_variables("dice_loss", input=input, label=label)
    label = cast(fluid_one_hot(label, input.shape[-1]), input.dtype)
    dims = list(range(1, len(input.shape)))
    inse = paddle_sum(input * label, axis=dims)
    denominator = paddle_sum(input, axis=dims) + paddle_sum(label, axis=dims)
    return mean(1.0 - inse * 2.0 / (denominator + float(epsilon)))


def npair_loss(anchor, positive, labels, l2_reg=0.002):
    """N-pair loss: softmax cross entropy of anchor @ positive^T against the row-normalized
    label-equality matrix, plus l2_reg/4 times the mean squared norms (Paddle's recipe)."""
    check_variables("npair_loss", anchor=anchor, positive=positive, labels=labels)
    check_static_dtype(anchor, "anchor", "npair_loss", ("float32", "float64"))
    check_static_dtype(positive, "positive", "npair_loss", ("float32", "float64"))
    check_static_dtype(labels, "labels", "npair_loss", ("float32", "float64", "int64"))
    batch = labels.shape[0]
    labels = reshape(labels, [batch, 1])
    same = append_op_out("equal", {"X": [labels], "Y": [transpose(labels, [1, 0])]},
                         {"axis": -1}, out_dtype="bool", stop_gradient=True)
    targets = cast(same, anchor.dtype)
    targets = targets / paddle_sum(targets, axis=1, keepdim=True)
    l2 = (mean(paddle_sum(anchor * anchor, axis=1))
          + mean(paddle_sum(positive * positive, axis=1))) * (0.25 * l2_reg)
    ce = softmax_with_cross_entropy(matmul(anchor, positive, transpose_y=True), targets,
                                    soft_label=True)
    # Paddle sums targets * ce over the rows' axis before the mean; the targets' rows sum
    # to 1, so that is the mean of ce
    return mean(ce) + l2


def label_smooth(label, prior_dist=None, epsilon=0.1, dtype="float32", name=None):
    """(1 - epsilon) label + epsilon prior_dist (uniform 1/C by default); label_smooth op.
    `dtype` is accepted for fluid's signature; the output has label's dtype."""
    if not 0. <= epsilon <= 1.:
        raise ValueError("label_smooth: epsilon must be in [0, 1], got %s" % epsilon)
    check_variables("label_smooth", label=label, prior_dist=prior_dist)
    inputs = {"X": [label]}
    if prior_dist is not None:
        inputs["PriorDist"] = [prior_dist]
    return append_op_out("label_smooth", inputs, {"epsilon": float(epsilon)}, name)


# -- normalization and similarity
def p_norm(x, porder=2.0, axis=-1, keepdim=False, epsilon=1e-12, asvector=False, name=None):
    """The p_norm op: (sum |x|^p)^(1/p) along axis (for paddle.norm and F.normalize)."""
    check_variables("p_norm", x=x)
    return append_op_out("p_norm", {"X": [x]},
                         {"porder": float(porder), "axis": int(axis), "keepdim": bool(keepdim),
                          "epsilon": float(epsilon), "asvector": bool(asvector)}, name)


def pairwise_distance(x, y, p=2.0, epsilon=1e-6, keepdim=False, name=None):
    """||x - y + epsilon||_p along the last axis (Paddle 3's F.pairwise_distance, also
    nn.PairwiseDistance's), or Paddle 2.0's layer: ||x - y||_p along axis 1 with epsilon
    the p_norm op's attr (switch `pairwise_distance_axis`). A static x and y of
    float16/32/64 (a TypeError)."""
    check_variables("pairwise_distance", x=x, y=y)
    for arg, v in (("x", x), ("y", y)):
        check_static_dtype(v, arg, "pairwise_distance", ("float16", "float32", "float64"))
    diff = append_op_out("elementwise_sub", {"X": [x], "Y": [y]}, {"axis": -1})
    if versions.switch("pairwise_distance_axis") == "axis1":
        return p_norm(diff, p, 1, keepdim, epsilon, name=name)
    if epsilon != 0:
        diff = diff + float(epsilon)
    return p_norm(diff, p, -1, keepdim, name=name)


def normalize(x, p=2, axis=1, epsilon=1e-12, name=None):
    """x / max(||x||_p along axis, epsilon) (Paddle 2.0's composition over p_norm)."""
    check_variables("normalize", x=x)
    norm = p_norm(x, p, axis, keepdim=True, epsilon=epsilon)
    floor = append_op_out("fill_any_like", {"X": [norm]}, {"value": float(epsilon)},
                          stop_gradient=True)
    return append_op_out("elementwise_div", {"X": [x], "Y": [
        append_op_out("elementwise_max", {"X": [norm], "Y": [floor]}, {"axis": -1})]},
        {"axis": -1}, name)


def l2_normalize(x, axis, epsilon=1e-12, name=None):
    """fluid.layers.l2_normalize: x / sqrt(sum x^2 + epsilon) along axis (norm op)."""
    check_variables("l2_normalize", x=x)
    if len(x.shape) == 1:
        axis = 0
    return append_op_out("norm", {"X": [x]}, {"axis": 1 if axis is None else int(axis),
                                              "epsilon": float(epsilon)}, name,
                         extra_outputs=[("Norm", None)])[0]


def cosine_similarity(x1, x2, axis=1, eps=1e-8):
    """sum(x1 x2) / sqrt(max(sum(x1^2) sum(x2^2), eps^2)) along axis (Paddle 2.0's
    composition)."""
    check_variables("cosine_similarity", x1=x1, x2=x2)
    w12 = paddle_sum(x1 * x2, axis=axis)
    w1, w2 = paddle_sum(x1 * x1, axis=axis), paddle_sum(x2 * x2, axis=axis)
    n12 = append_op_out("sqrt", {"X": [append_op_out(
        "clip", {"X": [w1 * w2]}, {"min": float(eps) ** 2, "max": float("inf")})]})
    return w12 / n12


# -- sequence and tree losses
def fluid_warpctc(input, label, blank=0, norm_by_times=False, input_length=None,
                  label_length=None):
    """fluid.layers.warpctc on padded input [Tmax, B, C] (softmax inside) and labels
    [B, Lmax] with their lengths: loss [B, 1]. LoD input is not supported."""
    check_variables("warpctc", input=input, label=label, input_length=input_length,
                    label_length=label_length)
    if input_length is None or label_length is None:
        raise NotImplementedError("warpctc: LoD sequences are not supported; pass padded "
                                  "input with input_length and label_length")
    helper = LayerHelper("warpctc")
    grad = helper.create_variable_for_type_inference(input.dtype, stop_gradient=True)
    loss = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op(type="warpctc",
                     inputs={"Logits": [input], "Label": [label],
                             "LogitsLength": [input_length], "LabelLength": [label_length]},
                     outputs={"WarpCTCGrad": [grad], "Loss": [loss]},
                     attrs={"blank": int(blank), "norm_by_times": bool(norm_by_times)})
    return loss


def ctc_loss(log_probs, labels, input_lengths, label_lengths, blank=0, reduction="mean",
             norm_by_times=False):
    """CTC loss per sequence (warpctc); 'mean' averages loss / label_length over the batch
    (Paddle 2.0's rule), 'sum' sums, 'none' gives [B]."""
    _check_reduction(reduction, "ctc_loss")
    loss = squeeze(fluid_warpctc(log_probs, labels, blank, norm_by_times, input_lengths,
                                 label_lengths), [-1])
    if reduction == "mean":
        return mean(loss / cast(label_lengths, loss.dtype))
    return _reduce(loss, reduction)


def _hsigmoid(input, label, num_classes, weight, bias, path_table, path_code, is_sparse,
              name):
    inputs = {"X": [input], "W": [weight], "Label": [label]}
    if (path_table is None) != (path_code is None):
        raise ValueError("hsigmoid: give path_table and path_code together (a custom tree)")
    if path_table is not None:
        inputs.update(PathTable=[path_table], PathCode=[path_code])
    if bias is not None:
        inputs["Bias"] = [bias]
    return append_op_out("hierarchical_sigmoid", inputs,
                         {"num_classes": int(num_classes), "is_sparse": bool(is_sparse)},
                         name, extra_outputs=[("PreOut", None)])[0]


def hsigmoid_loss(input, label, num_classes, weight, bias=None, path_table=None,
                  path_code=None, is_sparse=False, name=None):
    """Hierarchical sigmoid loss [N, 1] over the default complete binary tree of
    num_classes leaves (weight [num_classes - 1, D], bias [num_classes - 1, 1]), or a
    custom tree given by path_table / path_code."""
    check_variables("hsigmoid_loss", input=input, label=label, weight=weight, bias=bias,
                    path_table=path_table, path_code=path_code)
    return _hsigmoid(input, label, num_classes, weight, bias, path_table, path_code,
                     is_sparse, name)


def hsigmoid(input, label, num_classes, param_attr=None, bias_attr=None, name=None,
             path_table=None, path_code=None, is_custom=False, is_sparse=False):
    """fluid.layers.hsigmoid: creates W [num_classes - 1, D] ([num_classes, D] for a custom
    tree) and the bias (unless bias_attr is False), then the loss."""
    check_variables("hsigmoid", input=input, label=label)
    if is_custom and path_table is None:
        raise ValueError("hsigmoid: is_custom needs path_table and path_code")
    helper = LayerHelper("hierarchical_sigmoid", name=name)
    rows = num_classes if is_custom else num_classes - 1
    weight = helper.create_parameter(param_attr, [rows, input.shape[1]], input.dtype)
    bias = None
    if bias_attr is not False:
        bias = helper.create_parameter(bias_attr, [rows, 1], input.dtype, is_bias=True)
    return _hsigmoid(input, label, num_classes, weight, bias, path_table, path_code,
                     is_sparse, None)


EXPORTS = {
    "nn.functional": {
        "binary_cross_entropy": binary_cross_entropy,
        "binary_cross_entropy_with_logits": binary_cross_entropy_with_logits,
        "log_loss": log_loss, "kl_div": kl_div, "l1_loss": l1_loss,
        "smooth_l1_loss": smooth_l1_loss, "margin_ranking_loss": margin_ranking_loss,
        "nll_loss": nll_loss, "sigmoid_focal_loss": sigmoid_focal_loss,
        "dice_loss": dice_loss, "npair_loss": npair_loss, "label_smooth": label_smooth,
        "normalize": normalize, "cosine_similarity": cosine_similarity,
        "pairwise_distance": pairwise_distance,
        "ctc_loss": ctc_loss, "hsigmoid_loss": hsigmoid_loss},
    "fluid.layers": {
        "sigmoid_cross_entropy_with_logits": fluid_sigmoid_cross_entropy_with_logits,
        "log_loss": log_loss, "kldiv_loss": fluid_kldiv_loss, "mse_loss": fluid_mse_loss,
        "huber_loss": huber_loss, "smooth_l1": smooth_l1,
        "margin_rank_loss": margin_rank_loss, "rank_loss": rank_loss, "bpr_loss": bpr_loss,
        "sigmoid_focal_loss": fluid_sigmoid_focal_loss, "dice_loss": dice_loss,
        "npair_loss": npair_loss, "label_smooth": label_smooth,
        "l2_normalize": l2_normalize, "hsigmoid": hsigmoid,
        "teacher_student_sigmoid_loss": teacher_student_sigmoid_loss},
}
