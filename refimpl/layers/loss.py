"""Losses and metrics: cross entropy (both flavours), square error, mse, accuracy, top-k."""
from ..framework.layer_helper import LayerHelper
from .common import append_op_out, check_variable
from .math import mean as _mean


def fluid_cross_entropy(input, label, soft_label=False, ignore_index=-100):
    """-log(input[label]) per row, `input` being probabilities (fluid.layers.cross_entropy)."""
    return append_op_out("cross_entropy", {"X": [input], "Label": [label]},
                         {"soft_label": soft_label, "ignore_index": ignore_index}, out_slot="Y")


def softmax_with_cross_entropy(logits, label, soft_label=False, ignore_index=-100,
                               numeric_stable_mode=True, return_softmax=False, axis=-1):
    check_variable(logits, "logits", "softmax_with_cross_entropy")
    loss, softmax = append_op_out(
        "softmax_with_cross_entropy", {"Logits": [logits], "Label": [label]},
        {"soft_label": soft_label, "ignore_index": ignore_index,
         "numeric_stable_mode": numeric_stable_mode, "axis": axis},
        out_slot="Loss", extra_outputs=[("Softmax", None)])
    softmax.stop_gradient = False
    return (loss, softmax) if return_softmax else loss


def _reduce(loss, reduction):
    if reduction == "mean":
        return _mean(loss)
    if reduction == "sum":
        from .math import paddle_sum
        return paddle_sum(loss)
    if reduction == "none":
        return loss
    raise ValueError("reduction must be 'mean', 'sum' or 'none', got %r" % (reduction,))


def cross_entropy(input, label, weight=None, ignore_index=-100, reduction="mean",
                  soft_label=False, axis=-1, name=None):
    """paddle.nn.functional.cross_entropy: softmax + cross entropy on logits, reduced."""
    if weight is not None:
        raise NotImplementedError("cross_entropy: class weights are not supported")
    if not soft_label and len(label.shape) == len(input.shape) - 1:
        from .tensor import unsqueeze
        label = unsqueeze(label, -1)
    loss = softmax_with_cross_entropy(input, label, soft_label, ignore_index, axis=axis)
    return _reduce(loss, reduction)


def square_error_cost(input, label):
    """(input - label) ** 2 elementwise."""
    diff = append_op_out("elementwise_sub", {"X": [input], "Y": [label]}, {"axis": -1})
    return append_op_out("square", {"X": [diff]})


def mse_loss(input, label, reduction="mean", name=None):
    return _reduce(square_error_cost(input, label), reduction)


def topk(x, k, axis=-1, largest=True, sorted=True, name=None):
    return append_op_out("top_k_v2", {"X": [x]}, {"k": k, "axis": axis, "largest": largest,
                                                   "sorted": sorted}, name,
                         extra_outputs=[("Indices", "int64")])


def fluid_topk(input, k, name=None):
    return append_op_out("top_k", {"X": [input]}, {"k": k}, name,
                         extra_outputs=[("Indices", "int64")])


def accuracy(input, label, k=1, correct=None, total=None, name=None):
    """Top-k accuracy of `input` (scores) against int64 `label` [N, 1]."""
    values, indices = fluid_topk(input, k)
    helper = LayerHelper("accuracy", name=name)
    acc = helper.create_variable_for_type_inference("float32", stop_gradient=True)
    correct = correct or helper.create_variable_for_type_inference("int32", stop_gradient=True)
    total = total or helper.create_variable_for_type_inference("int32", stop_gradient=True)
    helper.append_op(type="accuracy", inputs={"Out": [values], "Indices": [indices],
                                              "Label": [label]},
                     outputs={"Accuracy": [acc], "Correct": [correct], "Total": [total]})
    return acc


def one_hot(x, num_classes, name=None):
    return append_op_out("one_hot_v2", {"X": [x]}, {"depth": num_classes}, name,
                         out_dtype="float32", stop_gradient=True)


def fluid_one_hot(input, depth, allow_out_of_range=False):
    return append_op_out("one_hot", {"X": [input]},
                         {"depth": depth, "allow_out_of_range": allow_out_of_range},
                         out_dtype="float32", stop_gradient=True)


EXPORTS = {
    "fluid.layers": {"cross_entropy": fluid_cross_entropy,
                     "softmax_with_cross_entropy": softmax_with_cross_entropy,
                     "square_error_cost": square_error_cost, "accuracy": accuracy,
                     "topk": fluid_topk, "one_hot": fluid_one_hot},
    "nn.functional": {"cross_entropy": cross_entropy, "mse_loss": mse_loss,
                      "softmax_with_cross_entropy": softmax_with_cross_entropy,
                      "square_error_cost": square_error_cost, "one_hot": one_hot},
    "paddle": {"topk": topk},
    "metric": {"accuracy": accuracy},
}
