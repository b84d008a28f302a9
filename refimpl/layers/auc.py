"""fluid.layers.auc: the streaming ROC AUC of binary predictions (the auc op, ops/auc.py),
as Paddle 1.8 builds it: a batch AUC over the last `slide_steps` runs and a global AUC over
all runs, each with its persistable int64 counters (zeros in the startup program)."""
from ..framework.initializer import Constant
from ..framework.layer_helper import LayerHelper
from .common import check_dtype, check_variable


def auc(input, label, curve="ROC", num_thresholds=2 ** 12 - 1, topk=1, slide_steps=1):
    """(global AUC, batch AUC, [batch_stat_pos, batch_stat_neg, stat_pos, stat_neg]);
    `input` [N, 2] (or [N, 1]) probabilities, `label` int [N, 1]. `topk` is unused, as in
    Paddle."""
    check_dtype(input, "input", "auc", ("float32", "float64"))
    check_variable(label, "label", "auc")
    helper = LayerHelper("auc")
    auc_out = helper.create_variable_for_type_inference("float64")
    batch_auc_out = helper.create_variable_for_type_inference("float64")
    buckets = num_thresholds + 1
    # the batch counters: slide_steps windows, their sum and a run counter (ops/auc.py)
    shapes = [[(1 + slide_steps) * buckets + 1]] * 2 + [[1, buckets]] * 2
    states = [helper.create_global_variable(persistable=True, dtype="int64", shape=shape)
              for shape in shapes]
    for var in states:
        Constant(0.0)(var)
    for out, (pos, neg), steps in ((batch_auc_out, states[:2], slide_steps),
                                   (auc_out, states[2:], 0)):
        helper.append_op(type="auc", inputs={"Predict": [input], "Label": [label],
                                             "StatPos": [pos], "StatNeg": [neg]},
                         outputs={"AUC": [out], "StatPosOut": [pos], "StatNegOut": [neg]},
                         attrs={"curve": curve, "num_thresholds": num_thresholds,
                                "slide_steps": steps})
    return auc_out, batch_auc_out, states


EXPORTS = {"fluid.layers": {"auc": auc}, "static": {"auc": auc}}
