"""fluid.contrib.layers.metric_op (Paddle 1.8): ctr_metric_bundle, the running sums a
click-through-rate model's metrics are computed from."""
from ....framework.initializer import Constant
from ....framework.layer_helper import LayerHelper
from ....layers.common import check_variable

__all__ = ["ctr_metric_bundle"]


def ctr_metric_bundle(input, label):
    """Persistable float32 [1] accumulators, each increased by every run of the program,
    returned as (squared error, absolute error, predicted sum, sigmoid(predicted) sum,
    positive count, instance count): sum((input - label)^2), sum(|input - label|),
    sum(input), sum(sigmoid(input)), sum(label) and the batch size. Built as Paddle 1.8.5
    builds it (elementwise_sub, squared_l2_norm, l1_norm, reduce_sum, sigmoid,
    fill_constant_batch_size_like and elementwise_add into the accumulators); input and
    label must have one shape."""
    check_variable(input, "input", "ctr_metric_bundle")
    check_variable(label, "label", "ctr_metric_bundle")
    if tuple(input.shape) != tuple(label.shape):
        raise ValueError("ctr_metric_bundle: input and label must have one shape, got %s and "
                         "%s" % (list(input.shape), list(label.shape)))
    helper = LayerHelper("ctr_metric_bundle")

    def variable(persistable, shape):
        var = helper.create_global_variable(persistable=persistable, dtype="float32",
                                            shape=shape)
        if persistable:
            Constant(0.0)(var)
        return var

    def op(op_type, out, attrs=None, **inputs):
        helper.append_op(type=op_type, inputs={k: [v] for k, v in inputs.items()},
                         outputs={"Out": [out]}, attrs=attrs or {})
        return out

    totals = [variable(True, [1]) for _ in range(6)]
    sqrerr, abserr, prob, q, pos_num, ins_num = totals
    error = op("elementwise_sub", variable(False, [-1]), X=input, Y=label)
    batch = [op("squared_l2_norm", variable(False, [1]), X=error),
             op("l1_norm", variable(False, [1]), X=error),
             op("reduce_sum", variable(False, [1]), X=input),
             op("reduce_sum", variable(False, [1]),
                X=op("sigmoid", variable(False, [-1]), X=input)),
             op("reduce_sum", variable(False, [1]), X=label),
             op("reduce_sum", variable(False, [1]),
                X=op("fill_constant_batch_size_like", variable(False, [-1]),
                     {"shape": [-1, 1], "dtype": "float32", "value": 1.0}, Input=label))]
    for total, part in zip(totals, batch):
        op("elementwise_add", total, X=part, Y=total)
    return sqrerr, abserr, prob, q, pos_num, ins_num
