"""paddle.metric classes: streaming metrics kept in numpy on the host. `update` takes
arrays (or anything np.asarray takes) from fetched results; Accuracy.compute also builds
its correct-mask ops when given static Variables (what hapi's Model does)."""
import numpy as np

from ..dygraph.tensor import Tensor
from ..layers import exports
from ..framework.program import Variable
from ..ops.auc import roc_area

__all__ = ["Metric", "Accuracy", "Precision", "Recall", "Auc"]

accuracy = exports("metric")["accuracy"]     # paddle.metric.accuracy, in 2.0's module too


def _host_array(value, what, owner):
    if isinstance(value, Tensor):   # eager (Accuracy.compute's mask in dynamic mode)
        return value.numpy()
    if isinstance(value, Variable):
        raise TypeError("%s.update: %s %r is a static Variable; fetch it with Executor.run "
                        "and pass the array" % (owner, what, value.name))
    try:
        return np.asarray(value)
    except Exception:
        raise TypeError("%s.update: %s must be a numpy array or Tensor, got %s"
                        % (owner, what, type(value).__name__)) from None


class Metric:
    """Base class. Subclasses implement reset, update (statistics of one batch),
    accumulate (the metric over every update since reset) and name; compute(*outputs,
    *labels) prepares update's arguments (by default it passes them through)."""

    def reset(self):
        raise NotImplementedError("function 'reset' is not implemented in %s"
                                  % type(self).__name__)

    def update(self, *args):
        raise NotImplementedError("function 'update' is not implemented in %s"
                                  % type(self).__name__)

    def accumulate(self):
        raise NotImplementedError("function 'accumulate' is not implemented in %s"
                                  % type(self).__name__)

    def name(self):
        raise NotImplementedError("function 'name' is not implemented in %s"
                                  % type(self).__name__)

    def compute(self, *args):
        return args


class Accuracy(Metric):
    """Top-k accuracy for each k in `topk`. compute(pred [N, ..., C], label [N, ..., 1] or
    [N] or one-hot [N, ..., C]) -> correct mask [N, ..., max(topk)] (1.0 where the j-th
    highest score is the label); update(correct) adds the counts and returns this batch's
    accuracy (a list when several k)."""

    def __init__(self, topk=(1,), name=None, *args, **kwargs):
        topk = tuple(topk)
        if not topk or any(not isinstance(k, (int, np.integer)) or k < 1 for k in topk):
            raise ValueError("Accuracy: topk must be positive ints, got %r" % (topk,))
        self.topk = topk
        self.maxk = max(topk)
        base = name or "acc"
        self._name = ["%s_top%d" % (base, k) for k in topk] if self.maxk != 1 else [base]
        self.reset()

    def compute(self, pred, label, *args):
        if isinstance(pred, Variable):
            return self._compute_ops(pred, label)
        pred, label = np.asarray(pred), np.asarray(label)
        if pred.shape[-1] < self.maxk:
            raise ValueError("Accuracy.compute: pred has %d classes (last dim of %s), fewer "
                             "than max(topk)=%d" % (pred.shape[-1], list(pred.shape), self.maxk))
        # descending order; ties keep the lower class first (a stable sort of -pred)
        top = np.argsort(-pred, axis=-1, kind="stable")[..., :self.maxk]
        if label.ndim == 1 or (label.ndim == 2 and label.shape[-1] == 1):
            label = label.reshape(-1, 1)
        elif label.shape[-1] != 1:
            label = np.argmax(label, axis=-1)[..., None]
        return (top == label.astype(top.dtype)).astype(np.float32)

    def _compute_ops(self, pred, label):
        from .. import argmax, argsort, cast, equal, reshape, slice as slice_
        top = slice_(argsort(pred, descending=True), axes=[len(pred.shape) - 1], starts=[0],
                     ends=[self.maxk])
        if len(label.shape) == 1 or (len(label.shape) == 2 and label.shape[-1] == 1):
            label = reshape(label, (-1, 1))
        elif label.shape[-1] != 1:
            label = argmax(label, axis=-1, keepdim=True)
        return cast(equal(top, cast(label, top.dtype)), "float32")

    def update(self, correct, *args):
        correct = _host_array(correct, "correct", "Accuracy")
        if correct.ndim == 0 or correct.shape[-1] < self.maxk:
            raise ValueError("Accuracy.update: correct must have max(topk)=%d entries in its "
                             "last dim (the output of compute), got shape %s"
                             % (self.maxk, list(correct.shape)))
        samples = int(np.prod(correct.shape[:-1]))
        accuracies = []
        for i, k in enumerate(self.topk):
            hits = float(correct[..., :k].sum())
            accuracies.append(hits / samples if samples else 0.0)
            self.total[i] += hits
            self.count[i] += samples
        return accuracies[0] if len(self.topk) == 1 else accuracies

    def reset(self):
        self.total = [0.0] * len(self.topk)
        self.count = [0] * len(self.topk)

    def accumulate(self):
        result = [t / c if c > 0 else 0.0 for t, c in zip(self.total, self.count)]
        return result[0] if len(self.topk) == 1 else result

    def name(self):
        return self._name


def _binary_update(owner, preds, labels):
    preds = _host_array(preds, "preds", owner).reshape(-1)
    labels = _host_array(labels, "labels", owner).reshape(-1)
    if preds.shape != labels.shape:
        raise ValueError("%s.update: preds and labels must hold one value per sample, got %d "
                         "preds and %d labels" % (owner, preds.size, labels.size))
    return preds, labels


class Precision(Metric):
    """Binary precision tp / (tp + fp). preds are probabilities of class 1 (rounded half
    up: 0.5 counts as 1), labels 0 / 1, one per sample ([N] or [N, 1])."""

    def __init__(self, name="precision", *args, **kwargs):
        self._name = name
        self.reset()

    def update(self, preds, labels):
        preds, labels = _binary_update("Precision", preds, labels)
        predicted = np.floor(preds + 0.5).astype(np.int32) == 1
        self.tp += int(np.sum(predicted & (labels == 1)))
        self.fp += int(np.sum(predicted & (labels != 1)))

    def reset(self):
        self.tp = 0
        self.fp = 0

    def accumulate(self):
        predicted = self.tp + self.fp
        return self.tp / predicted if predicted else 0.0

    def name(self):
        return self._name


class Recall(Metric):
    """Binary recall tp / (tp + fn). preds are probabilities of class 1, rounded to the
    nearest integer with halves to even (0.5 counts as 0, as Paddle's np.rint), labels
    0 / 1, one per sample."""

    def __init__(self, name="recall", *args, **kwargs):
        self._name = name
        self.reset()

    def update(self, preds, labels):
        preds, labels = _binary_update("Recall", preds, labels)
        positive = labels == 1
        hit = np.rint(preds).astype(np.int32) == 1
        self.tp += int(np.sum(positive & hit))
        self.fn += int(np.sum(positive & ~hit))

    def reset(self):
        self.tp = 0
        self.fn = 0

    def accumulate(self):
        positives = self.tp + self.fn
        return self.tp / positives if positives else 0.0

    def name(self):
        return self._name


class Auc(Metric):
    """Area under the ROC curve from histograms: preds [N, 2] (column 1 is the
    probability of class 1) fall into bucket int(p * num_thresholds) of the positive or
    negative histogram (labels [N] or [N, 1], non-zero = positive); accumulate sweeps the
    buckets from the highest down, adding trapezoids, and normalises by positives x
    negatives (0.0 while either is empty)."""

    def __init__(self, curve="ROC", num_thresholds=4095, name="auc", *args, **kwargs):
        if curve != "ROC":
            raise ValueError("Auc: curve must be 'ROC', got %r (Paddle accepts 'PR' but "
                             "computes the ROC area for it)" % (curve,))
        if not isinstance(num_thresholds, (int, np.integer)) or num_thresholds < 1:
            raise ValueError("Auc: num_thresholds must be a positive int, got %r"
                             % (num_thresholds,))
        self._curve = curve
        self._num_thresholds = int(num_thresholds)
        self._name = name
        self.reset()

    def update(self, preds, labels):
        preds = _host_array(preds, "preds", "Auc")
        labels = _host_array(labels, "labels", "Auc").reshape(-1)
        if preds.ndim != 2 or preds.shape[1] < 2 or preds.shape[0] < labels.size:
            raise ValueError("Auc.update: preds must be [N, 2] (probabilities of class 0 and "
                             "1) with N = %d labels, got shape %s"
                             % (labels.size, list(preds.shape)))
        # Paddle (1.8.5 and 3.3.1) reads preds[i, 1] for each label i: rows past the
        # labels' count are not read (PaddlePaddle/models' 1.8 similarity_net gathers
        # every validation's preds into one list and passes it with one pass's labels)
        positive = preds[:labels.size, 1]
        if np.any(positive < 0) or np.any(positive > 1):
            raise ValueError("Auc.update: preds[:, 1] must be probabilities in [0, 1], got "
                             "values in [%g, %g]" % (positive.min(), positive.max()))
        buckets = (positive * self._num_thresholds).astype(np.int64)
        is_positive = labels != 0
        self._stat_pos += np.bincount(buckets[is_positive], minlength=self._num_thresholds + 1)
        self._stat_neg += np.bincount(buckets[~is_positive], minlength=self._num_thresholds + 1)

    def accumulate(self):
        """The ROC area of the histograms (the auc op's, ops/auc.py)."""
        return roc_area(self._stat_pos, self._stat_neg)

    def reset(self):
        self._stat_pos = np.zeros(self._num_thresholds + 1)
        self._stat_neg = np.zeros(self._num_thresholds + 1)

    def name(self):
        return self._name
