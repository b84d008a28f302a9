"""precision_recall: multi-class precision / recall / F1 (Paddle's precision_recall op,
1.8 and 2.0). Each instance has a predicted class (Indices) and a Label (both int32
[batch, 1], in [0, class_number)) and a weight (Weights, default 1). Per class the states
[TP, FP, TN, FN] sum the weights: TP where prediction = label = class, FP where only the
prediction is the class, FN where only the label is, TN where neither. BatchMetrics are
this batch's [macro precision, macro recall, macro F1, micro precision, micro recall,
micro F1] (precision / recall 1 when their denominator is 0, F1 0 when both are 0);
AccumStatesInfo adds StatesInfo (the states so far, optional) to the batch's, and
AccumMetrics are its metrics. States in MaxProbs' dtype (MaxProbs itself is not read),
metrics computed in it and returned float64 (Paddle's output dtype). No gradient."""
import numpy as np

from .registry import OpDef, Sample, register

METRICS = 6


def _ratio(num, other):
    return np.where((num > 0) | (other > 0), num / np.where(num + other > 0, num + other, 1), 1)


def _f1(precision, recall):
    if precision > 0 or recall > 0:
        return 2 * precision * recall / (precision + recall)
    return precision.dtype.type(0)


def metrics(states):
    """The six metrics of [class_number, 4] states, in the states' dtype."""
    tp, fp, fn = states[:, 0], states[:, 1], states[:, 3]
    t = states.dtype.type
    macro_p = _ratio(tp, fp).astype(states.dtype).sum() / t(len(states))
    macro_r = _ratio(tp, fn).astype(states.dtype).sum() / t(len(states))
    micro_p = t(_ratio(tp.sum(), fp.sum()))
    micro_r = t(_ratio(tp.sum(), fn.sum()))
    return np.array([macro_p, macro_r, _f1(macro_p, macro_r),
                     micro_p, micro_r, _f1(micro_p, micro_r)], np.float64)


@register
class PrecisionRecall(OpDef):
    type = "precision_recall"
    inputs = ("MaxProbs", "Indices", "Labels", "Weights?", "StatesInfo?")
    outputs = ("BatchMetrics", "AccumMetrics", "AccumStatesInfo")
    attrs = {"class_number": 0}
    # AccumStatesInfo holds float32 sums of weights, which Paddle adds in its own order
    # (1.8.5: 1.2e-7 relative off), though the metrics' float64 picks the case's tolerance
    tolerances = {"float32": (1e-4, 1e-5), "float64": (1e-6, 1e-9)}

    def infer_shape(self, ctx):
        classes = ctx.attr("class_number")
        ctx.expect(classes > 0, "class_number must be > 0, got %r" % (classes,))
        probs, labels = ctx.input_shape("MaxProbs"), ctx.input_shape("Labels")
        ctx.expect(len(probs) == 2 and probs[1] in (1, -1), "MaxProbs must be [batch, 1], "
                   "got shape %s" % list(probs))
        ctx.expect(tuple(ctx.input_shape("Indices")) == tuple(probs), "Indices must have "
                   "MaxProbs' shape %s, got %s" % (list(probs), list(ctx.input_shape("Indices"))))
        ctx.expect(len(labels) == 2 and labels[1] in (1, -1) and labels[0] == probs[0],
                   "Labels must be [batch, 1] as MaxProbs %s, got shape %s"
                   % (list(probs), list(labels)))
        for slot, shape in (("Weights", probs), ("StatesInfo", (classes, 4))):
            if ctx.has_input(slot):
                ctx.expect(tuple(ctx.input_shape(slot)) == tuple(shape), "%s must be %s, got "
                           "shape %s" % (slot, list(shape), list(ctx.input_shape(slot))))
        for slot in ("Indices", "Labels"):
            ctx.check_dtype(slot, ("int32",))
        ctx.set_output("BatchMetrics", [METRICS], "float64")
        ctx.set_output("AccumMetrics", [METRICS], "float64")
        ctx.set_output("AccumStatesInfo", [classes, 4], ctx.input_dtype("MaxProbs"))

    @staticmethod
    def forward(max_probs, indices, labels, weights, states_info, class_number=0):
        pred, label = indices.reshape(-1), labels.reshape(-1)
        for slot, values in (("Indices", pred), ("Labels", label)):
            bad = (values < 0) | (values >= class_number)
            if bad.any():
                raise ValueError("precision_recall: %s holds %d, outside [0, class_number=%d)"
                                 % (slot, values[bad][0], class_number))
        dtype = max_probs.dtype
        w = np.ones(len(pred), dtype) if weights is None else weights.reshape(-1).astype(dtype)
        states = np.zeros((class_number, 4), dtype)
        hit = pred == label
        np.add.at(states[:, 0], pred[hit], w[hit])
        np.add.at(states[:, 1], pred[~hit], w[~hit])
        np.add.at(states[:, 3], label[~hit], w[~hit])
        involved = np.zeros(class_number, dtype)    # the weight of instances naming a class
        np.add.at(involved, pred, w)
        np.add.at(involved, label[~hit], w[~hit])
        states[:, 2] = w.sum(dtype=dtype) - involved
        batch = metrics(states)
        if states_info is not None:
            states += states_info.astype(dtype)
        return batch, metrics(states), states

    def samples(self, rng):
        n, classes = 12, 4
        inputs = {"MaxProbs": rng.uniform(0, 1, (n, 1)).astype("float32"),
                  "Indices": rng.randint(0, classes, (n, 1)).astype("int32"),
                  "Labels": rng.randint(0, classes, (n, 1)).astype("int32")}
        yield Sample(dict(inputs), {"class_number": classes})
        yield Sample(dict(inputs, Weights=rng.uniform(0, 1, (n, 1)).astype("float32"),
                          StatesInfo=rng.randint(0, 5, (classes, 4)).astype("float32")),
                     {"class_number": classes})
