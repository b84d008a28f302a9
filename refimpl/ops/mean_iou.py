"""mean_iou: the mean intersection-over-union of class predictions (Paddle 1.8's op).
Per class c, correct[c] counts the elements with pred == label == c; each mismatched element
adds 1 to wrong[pred] and to wrong[label]. IoU_c = correct[c] / (correct[c] + wrong[c]),
averaged over the classes seen (denominator > 0). InWrongs / InCorrects (lists of
[num_classes] counts) are added to the counts first and InMeanIou values to the mean after,
so a stream of batches can be summed. No gradient."""
import numpy as np

from .registry import OpDef, Sample, register


@register
class MeanIou(OpDef):
    type = "mean_iou"
    inputs = ("Predictions", "Labels", "InWrongs*?", "InCorrects*?", "InMeanIou*?")
    outputs = ("OutMeanIou", "OutWrong", "OutCorrect")
    attrs = {"num_classes": 2}

    def infer_shape(self, ctx):
        ctx.check_dtype("Predictions", ("int32", "int64"))
        pred, label = ctx.input_shape("Predictions"), ctx.input_shape("Labels")
        ctx.expect(list(pred) == list(label) or -1 in pred or -1 in label,
                   "Predictions %s and Labels %s must have the same shape"
                   % (list(pred), list(label)))
        classes = ctx.attr("num_classes")
        ctx.set_output("OutMeanIou", [1], "float32")
        ctx.set_output("OutWrong", [classes], "int32")
        ctx.set_output("OutCorrect", [classes], "int32")

    @staticmethod
    def forward(predictions, labels, in_wrongs=None, in_corrects=None, in_mean_iou=None,
                num_classes=2):
        pred, label = predictions.reshape(-1), labels.reshape(-1)
        if pred.size and (pred.min() < 0 or label.min() < 0 or pred.max() >= num_classes
                          or label.max() >= num_classes):
            raise ValueError("mean_iou: Predictions and Labels must be class ids in [0, %d)"
                             % num_classes)
        wrong = sum((w.astype(np.int32) for w in in_wrongs or ()),
                    np.zeros(num_classes, np.int32))
        correct = sum((c.astype(np.int32) for c in in_corrects or ()),
                      np.zeros(num_classes, np.int32))
        hit = pred == label
        correct += np.bincount(pred[hit], minlength=num_classes).astype(np.int32)
        wrong += np.bincount(pred[~hit], minlength=num_classes).astype(np.int32)
        wrong += np.bincount(label[~hit], minlength=num_classes).astype(np.int32)
        total = wrong + correct
        seen = total > 0
        mean = (correct[seen] / total[seen]).sum() / max(int(seen.sum()), 1)
        mean += sum(float(m.reshape(-1)[0]) for m in in_mean_iou or ())
        return np.array([mean], np.float32), wrong, correct

    def samples(self, rng):
        pred = rng.randint(0, 4, (6, 5)).astype(np.int32)
        label = rng.randint(0, 4, (6, 5)).astype(np.int32)
        yield Sample({"Predictions": pred, "Labels": label}, {"num_classes": 4}, grad=False)
        yield Sample({"Predictions": pred, "Labels": label,
                      "InWrongs": [rng.randint(0, 5, 4).astype(np.int32)],
                      "InCorrects": [rng.randint(0, 5, 4).astype(np.int32)],
                      "InMeanIou": [np.array([0.25], np.float32)]},
                     {"num_classes": 4}, grad=False)
