"""Losses and metrics: cross entropy (on probabilities and on logits), square error / mse,
top-k and accuracy."""
from ..dygraph.dispatch import run_eagerly
from ..framework import mode
from ..framework.layer_helper import LayerHelper
from ..framework.program import Variable
from .common import append_op_out, check_variable
from .math import cast, mean as _mean, paddle_sum

_REDUCTIONS = ("mean", "sum", "none")


def fluid_cross_entropy(input, label, soft_label=False, ignore_index=-100):
    """fluid.layers.cross_entropy: -log(input[label]) per row, `input` being probabilities.
    Hard labels build cross_entropy2 (as Paddle 1.8 does), soft labels cross_entropy."""
    check_variable(input, "input", "cross_entropy")
    if soft_label:
        return append_op_out("cross_entropy", {"X": [input], "Label": [label]},
                             {"soft_label": True, "ignore_index": ignore_index}, out_slot="Y")
    helper = LayerHelper("cross_entropy2")
    out, xshape, match_x = (helper.create_variable_for_type_inference(input.dtype)
                            for _ in range(3))
    helper.append_op(type="cross_entropy2", inputs={"X": [input], "Label": [label]},
                     outputs={"Y": [out], "MatchX": [match_x], "XShape": [xshape]},
                     attrs={"ignore_index": ignore_index})
    return out


def softmax_with_cross_entropy(logits, label, soft_label=False, ignore_index=-100,
                               numeric_stable_mode=True, return_softmax=False, axis=-1):
    """Loss (the class axis kept with size 1), and Softmax when return_softmax."""
    check_variable(logits, "logits", "softmax_with_cross_entropy")
    inputs = {"Logits": [logits], "Label": [label]}
    attrs = {"soft_label": soft_label, "ignore_index": ignore_index,
             "numeric_stable_mode": numeric_stable_mode, "axis": axis}
    if mode.dynamic and not return_softmax:    # a training loop's loss: the eager hot path
        ran = run_eagerly("softmax_with_cross_entropy", inputs, attrs, out_slot="Loss",
                          extra_outputs=[("Softmax", None)])
        if ran is not None:
            return ran[0]
    helper = LayerHelper("softmax_with_cross_entropy")
    softmax = helper.create_variable_for_type_inference(logits.dtype)
    loss = helper.create_variable_for_type_inference(logits.dtype)
    helper.append_op(type="softmax_with_cross_entropy", inputs=inputs,
                     outputs={"Softmax": [softmax], "Loss": [loss]}, attrs=attrs)
    return (loss, softmax) if return_softmax else loss


def _check_reduction(reduction, layer):
    if reduction not in _REDUCTIONS:
        raise ValueError("%s: reduction must be one of %s, got %r"
                         % (layer, list(_REDUCTIONS), reduction))


def _reduce(loss, reduction, name=None):
    """`name` names the reduced result, as Paddle 2.0's functionals pass theirs to the
    final paddle.mean / paddle.sum (with reduction='none' the caller names `loss`)."""
    if reduction == "mean":
        return _mean(loss, name=name)
    if reduction == "sum":
        return paddle_sum(loss, name=name)
    return loss


def _count_not_ignored(label, ignore_index, dtype):
    """How many labels differ from ignore_index, as a `dtype` scalar."""
    ignored = append_op_out("fill_any_like", {"X": [label]}, {"value": float(ignore_index)},
                            stop_gradient=True)
    kept = append_op_out("not_equal", {"X": [label], "Y": [ignored]}, {"axis": -1},
                         out_dtype="bool", stop_gradient=True)
    return paddle_sum(cast(kept, dtype))


def cross_entropy(input, label, weight=None, ignore_index=-100, reduction="mean",
                  soft_label=False, axis=-1, use_softmax=True, name=None):
    """paddle.nn.functional.cross_entropy (2.0): softmax_with_cross_entropy on logits, then
    the reduction (use_softmax=False, Paddle 2.1 on: `input` holds probabilities, and the
    loss is -log of the label's, cross_entropy2 as fluid's cross_entropy builds it). As in Paddle 2.0, 'mean' with a non-default ignore_index divides by the
    number of kept labels; with the default -100 it is the plain mean. A class `weight`
    scales each sample's loss by its label's weight (a soft label: the label-weighted sum of
    the class weights) and 'mean' divides by the sum of those weights (ignored labels weigh
    0)."""
    check_variable(input, "input", "cross_entropy")
    _check_reduction(reduction, "cross_entropy")
    from .tensor import squeeze, unsqueeze
    squeezed = not soft_label and len(label.shape) == len(input.shape) - 1
    if squeezed:
        label = unsqueeze(label, axis)
    if use_softmax:
        loss = softmax_with_cross_entropy(input, label, soft_label, ignore_index, axis=axis)
    else:
        loss = _probability_cross_entropy(input, label, soft_label, ignore_index, axis)
    if weight is not None:
        check_variable(weight, "weight", "cross_entropy")
        classes = input.shape[axis]
        if len(weight.shape) != 1 or -1 not in (classes, weight.shape[0]) and \
                weight.shape[0] != classes:
            raise ValueError("cross_entropy: weight %r must have one entry per class (%d, "
                             "dim %d of input %r), got shape %s"
                             % (weight.name, classes, axis, input.name, list(weight.shape)))
        sample_weight = _sample_weights(weight, label, soft_label, ignore_index, axis)
        loss = loss * sample_weight
        if reduction == "mean":
            return paddle_sum(loss) / paddle_sum(sample_weight)
    if reduction == "mean" and ignore_index != -100 and not soft_label:
        return paddle_sum(loss) / _count_not_ignored(label, ignore_index, input.dtype)
    if squeezed and reduction == "none":   # the loss takes the label's shape, as in Paddle
        return squeeze(loss, [axis])
    return _reduce(loss, reduction)


def _probability_cross_entropy(input, label, soft_label, ignore_index, axis):
    """-log(input) at the label along `axis` (fluid's cross_entropy2 / cross_entropy, whose
    class axis is the last: another axis is moved there and back)."""
    rank = len(input.shape)
    axis %= rank
    if axis == rank - 1:
        return fluid_cross_entropy(input, label, soft_label, ignore_index)
    from .tensor import transpose
    perm = [i for i in range(rank) if i != axis] + [axis]
    loss = fluid_cross_entropy(transpose(input, perm), transpose(label, perm), soft_label,
                               ignore_index)
    return transpose(loss, [perm.index(i) for i in range(rank)])


def _sample_weights(weight, label, soft_label, ignore_index, axis):
    """Each sample's class weight, shaped like the loss: weight[label] (0 where the label is
    ignore_index), or for soft labels sum_k weight[k] * label[k]."""
    from .tensor import gather, reshape, where
    if soft_label:
        from .math import matmul
        from .tensor import transpose
        rank = len(label.shape)
        axis = axis % rank
        if axis != rank - 1:
            perm = [i for i in range(rank) if i != axis] + [axis]
            label = transpose(label, perm)
        w = matmul(label, reshape(weight, [-1, 1]))
        if axis != rank - 1:
            w = transpose(w, [perm.index(i) for i in range(rank)])
        return w
    ignored = append_op_out("fill_any_like", {"X": [label]}, {"value": float(ignore_index)},
                            stop_gradient=True)
    kept = append_op_out("not_equal", {"X": [label], "Y": [ignored]}, {"axis": -1},
                         out_dtype="bool", stop_gradient=True)
    safe = where(kept, label, append_op_out("fill_any_like", {"X": [label]}, {"value": 0.0},
                                             stop_gradient=True))
    w = reshape(gather(weight, reshape(safe, [-1])), list(label.shape))
    return w * cast(kept, weight.dtype)


def square_error_cost(input, label):
    """(input - label) ** 2 elementwise: elementwise_sub then square, as Paddle builds it."""
    check_variable(input, "input", "square_error_cost")
    helper = LayerHelper("square_error_cost")
    diff = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op(type="elementwise_sub", inputs={"X": [input], "Y": [label]},
                     outputs={"Out": [diff]})
    square = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op(type="square", inputs={"X": [diff]}, outputs={"Out": [square]})
    return square


def mse_loss(input, label, reduction="mean", name=None):
    _check_reduction(reduction, "mse_loss")
    return _reduce(square_error_cost(input, label), reduction)


def topk(x, k, axis=-1, largest=True, sorted=True, name=None):
    """paddle.topk (top_k_v2): (values, int64 indices). k: an int, or a 1-element int
    Variable (the op's K input, read when it runs)."""
    check_variable(x, "x", "topk")
    inputs = {"X": [x]}
    if isinstance(k, Variable):
        inputs["K"], k = [k], 1
    return append_op_out("top_k_v2", inputs, {"k": k, "axis": axis, "largest": largest,
                                              "sorted": sorted}, name,
                         extra_outputs=[("Indices", "int64")])


def fluid_topk(input, k, name=None):
    """fluid.layers.topk (top_k, last axis): (values, int64 indices). k: an int, or a
    1-element int Variable (the op's K input, read when it runs)."""
    check_variable(input, "input", "topk")
    inputs = {"X": [input]}
    if isinstance(k, Variable):
        inputs["K"], k = [k], 1
    return append_op_out("top_k", inputs, {"k": k}, name,
                         extra_outputs=[("Indices", "int64")])


def _accuracy(top, input, label, k, correct, total, name):
    helper = LayerHelper("accuracy", name=name)
    values, indices = top(input, k)
    acc = helper.create_variable_for_type_inference("float32", stop_gradient=True)
    if correct is None:
        correct = helper.create_variable_for_type_inference("int32", stop_gradient=True)
    if total is None:
        total = helper.create_variable_for_type_inference("int32", stop_gradient=True)
    helper.append_op(type="accuracy", inputs={"Out": [values], "Indices": [indices],
                                              "Label": [label]},
                     outputs={"Accuracy": [acc], "Correct": [correct], "Total": [total]})
    return acc


def fluid_accuracy(input, label, k=1, correct=None, total=None):
    """fluid.layers.accuracy: top-k accuracy of scores `input` against int64 label [N, 1]."""
    return _accuracy(fluid_topk, input, label, k, correct, total, None)


def accuracy(input, label, k=1, correct=None, total=None, name=None):
    """paddle.metric.accuracy (top_k_v2 then accuracy)."""
    return _accuracy(topk, input, label, k, correct, total, name)


def sampled_softmax_with_cross_entropy(logits, label, num_samples, num_true=1,
                                       remove_accidental_hits=True,
                                       use_customized_samples=False, customized_samples=None,
                                       customized_probabilities=None, seed=0):
    """Softmax cross entropy over the true classes plus `num_samples` classes drawn from
    the log-uniform distribution (sample_logits op), as Paddle 1.8 builds it: the sampled
    labels one-hot (summed over the num_true columns) as a soft label, loss / num_true.
    Returns [N, 1]."""
    layer = "sampled_softmax_with_cross_entropy"
    check_variable(logits, "logits", layer)
    check_variable(label, "label", layer)
    if len(label.shape) != 2 or label.shape[1] != num_true:
        raise ValueError("%s: label must be [N, num_true=%d], got %s"
                         % (layer, num_true, list(label.shape)))
    inputs = {"Logits": [logits], "Labels": [label]}
    if use_customized_samples:
        check_variable(customized_samples, "customized_samples", layer)
        check_variable(customized_probabilities, "customized_probabilities", layer)
        inputs.update(CustomizedSamples=[customized_samples],
                      CustomizedProbabilities=[customized_probabilities])
    helper = LayerHelper("sample_logits")
    outputs = {slot: helper.create_variable_for_type_inference(dtype, stop_gradient=stop)
               for slot, dtype, stop in (("Samples", "int64", True),
                                         ("Probabilities", logits.dtype, True),
                                         ("SampledLogits", logits.dtype, False),
                                         ("SampledLabels", "int64", True))}
    helper.append_op(type="sample_logits", inputs=inputs,
                     outputs={k: [v] for k, v in outputs.items()},
                     attrs={"use_customized_samples": bool(use_customized_samples),
                            "uniq": True, "remove_accidental_hits": bool(remove_accidental_hits),
                            "num_samples": int(num_samples), "seed": int(seed)})
    one_hot = append_op_out("one_hot_v2", {"X": [outputs["SampledLabels"]]},
                            {"depth": num_true + int(num_samples), "dtype": logits.dtype.name},
                            out_dtype=logits.dtype, stop_gradient=True)
    soft_label = append_op_out("reduce_sum", {"X": [one_hot]},
                               {"dim": [1], "keep_dim": False, "reduce_all": False},
                               stop_gradient=True)
    helper = LayerHelper("softmax_with_cross_entropy")
    softmax, loss = (helper.create_variable_for_type_inference(logits.dtype) for _ in "ab")
    helper.append_op(type="softmax_with_cross_entropy",
                     inputs={"Logits": [outputs["SampledLogits"]], "Label": [soft_label]},
                     outputs={"Softmax": [softmax], "Loss": [loss]},
                     attrs={"soft_label": True, "ignore_index": -100,
                            "numeric_stable_mode": False, "axis": -1})
    return append_op_out("scale", {"X": [loss]}, {"scale": 1.0 / num_true, "bias": 0.0,
                                                  "bias_after_scale": True})


EXPORTS = {
    "fluid.layers": {"cross_entropy": fluid_cross_entropy,
                     "softmax_with_cross_entropy": softmax_with_cross_entropy,
                     "square_error_cost": square_error_cost, "accuracy": fluid_accuracy,
                     "topk": fluid_topk,
                     "sampled_softmax_with_cross_entropy": sampled_softmax_with_cross_entropy},
    "nn.functional": {"cross_entropy": cross_entropy, "mse_loss": mse_loss,
                      "softmax_with_cross_entropy": softmax_with_cross_entropy,
                      "square_error_cost": square_error_cost},
    "paddle": {"topk": topk},
    "metric": {"accuracy": accuracy},
    "static": {"accuracy": fluid_accuracy},    # Paddle 2.0's paddle.static.accuracy
}
