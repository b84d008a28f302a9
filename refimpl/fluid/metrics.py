"""fluid.metrics as Paddle 1.8 has it: streaming metrics on fetched arrays, each a
MetricBase with reset / update / eval. Only Auc so far (paddle.metric has the 2.0 classes);
specs/metric.md."""
from ..metric.metrics import Auc as _Histograms

__all__ = ["MetricBase", "Auc"]


class MetricBase:
    """Paddle 1.8's base class: a name, reset() (the state back to its start), update(...)
    (one batch's statistics) and eval() (the metric over the updates since reset)."""

    def __init__(self, name):
        self._name = str(name) if name is not None else type(self).__name__

    def __str__(self):
        return self._name

    def reset(self):
        raise NotImplementedError("%s must implement reset" % type(self).__name__)

    def update(self, *args):
        raise NotImplementedError("%s must implement update" % type(self).__name__)

    def eval(self):
        raise NotImplementedError("%s must implement eval" % type(self).__name__)

    def get_config(self):
        return {"name": self._name}


class Auc(MetricBase):
    """The ROC area from histograms of the positive class's probability (preds [N, 2],
    column 1; labels [N] or [N, 1]), as paddle.metric.Auc computes it. As in 1.8 the
    histograms read as lists of counts: `_stat_pos`, `_stat_neg` (num_thresholds + 1
    buckets each; Paddle's own tests build the auc op's expected state from them)."""

    def __init__(self, name, curve="ROC", num_thresholds=4095):
        super().__init__(name)
        self._histograms = _Histograms(curve, num_thresholds, name)

    @property
    def _stat_pos(self):
        return self._histograms._stat_pos.tolist()

    @property
    def _stat_neg(self):
        return self._histograms._stat_neg.tolist()

    def reset(self):
        self._histograms.reset()

    def update(self, preds, labels):
        self._histograms.update(preds, labels)

    def eval(self):
        return self._histograms.accumulate()

    def get_config(self):
        return {"name": self._name, "curve": self._histograms._curve,
                "num_thresholds": self._histograms._num_thresholds}
