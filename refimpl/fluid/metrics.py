"""fluid.metrics as Paddle 1.8 has it: streaming metrics on fetched arrays, each a
MetricBase with reset / update / eval. The state of a metric is its public attributes (what
reset zeroes and get_config reports); specs/fluid_metrics.md."""
import copy
import numbers

import numpy as np

from ..metric.metrics import Auc as _Histograms, _binary_update

__all__ = ["MetricBase", "CompositeMetric", "Precision", "Recall", "Accuracy",
           "ChunkEvaluator", "EditDistance", "DetectionMAP", "Auc"]


def _is_number(value):
    # as 1.8's: a one-element [1] array (a fetched count, test_profiler's batch size) too
    if isinstance(value, np.ndarray):
        return value.shape == (1,)
    return isinstance(value, (numbers.Number, np.generic)) and not isinstance(value, bool)


def _is_number_or_array(value):
    return _is_number(value) or isinstance(value, np.ndarray)


def check_value_and_weight(owner, value, weight):
    """The checks 1.8 makes of a weighted value (Accuracy.update, WeightedAverage.add)."""
    if not _is_number_or_array(value):
        raise ValueError("%s: value must be a number or numpy ndarray, got %s"
                         % (owner, type(value).__name__))
    if not _is_number(weight):
        raise ValueError("%s: weight must be a number (int, float), got %s"
                         % (owner, type(weight).__name__))


class MetricBase:
    """Paddle 1.8's base class: a name, reset() (each public attribute back to zero of its
    kind: 0, 0.0, zeros of an array, else None), update(...) (one batch's statistics),
    eval() (the metric over the updates since reset) and get_config() ({'name', 'states'})."""

    def __init__(self, name):
        self._name = str(name) if name is not None else type(self).__name__

    def __str__(self):
        return self._name

    def _states(self):
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_")}

    def reset(self):
        for attr, value in self._states().items():
            if isinstance(value, (np.ndarray, np.generic)):
                setattr(self, attr, np.zeros_like(value))
            elif isinstance(value, bool) or not isinstance(value, (int, float)):
                setattr(self, attr, None)
            else:
                setattr(self, attr, type(value)(0))

    def get_config(self):
        return {"name": self._name, "states": copy.deepcopy(self._states())}

    def update(self, preds, labels):
        raise NotImplementedError("%s must implement update" % type(self).__name__)

    def eval(self):
        raise NotImplementedError("%s must implement eval" % type(self).__name__)


class CompositeMetric(MetricBase):
    """Several metrics fed the same (preds, labels); eval() is the list of their evals."""

    def __init__(self, name=None):
        super().__init__(name)
        self._metrics = []

    def add_metric(self, metric):
        if not isinstance(metric, MetricBase):
            raise ValueError("CompositeMetric.add_metric: expected a fluid.metrics."
                             "MetricBase, got %s" % type(metric).__name__)
        self._metrics.append(metric)

    def update(self, preds, labels):
        for metric in self._metrics:
            metric.update(preds, labels)

    def eval(self):
        return [metric.eval() for metric in self._metrics]


def _binary_arrays(owner, preds, labels):
    for what, value in (("preds", preds), ("labels", labels)):
        if not isinstance(value, np.ndarray):
            raise ValueError("%s.update: %s must be a numpy ndarray, got %s"
                             % (owner, what, type(value).__name__))
    preds, labels = _binary_update(owner, preds, labels)
    # 1.8 rounds the probabilities with np.rint (halves to even: 0.5 counts as 0)
    return np.rint(preds).astype(np.int32) == 1, labels == 1


class Precision(MetricBase):
    """Binary precision tp / (tp + fp) (0.0 before any positive prediction)."""

    def __init__(self, name=None):
        super().__init__(name)
        self.tp = 0
        self.fp = 0

    def update(self, preds, labels):
        predicted, positive = _binary_arrays("Precision", preds, labels)
        self.tp += int(np.sum(predicted & positive))
        self.fp += int(np.sum(predicted & ~positive))

    def eval(self):
        predicted = self.tp + self.fp
        return float(self.tp) / predicted if predicted else 0.0


class Recall(MetricBase):
    """Binary recall tp / (tp + fn) (0.0 before any positive label)."""

    def __init__(self, name=None):
        super().__init__(name)
        self.tp = 0
        self.fn = 0

    def update(self, preds, labels):
        predicted, positive = _binary_arrays("Recall", preds, labels)
        self.tp += int(np.sum(predicted & positive))
        self.fn += int(np.sum(~predicted & positive))

    def eval(self):
        positives = self.tp + self.fn
        return float(self.tp) / positives if positives else 0.0


class Accuracy(MetricBase):
    """The weighted mean of batch accuracies: update(value, weight) with value a batch's
    accuracy (a number or array, e.g. fetched from layers.accuracy) and weight its sample
    count; eval() raises ValueError before any update."""

    def __init__(self, name=None):
        super().__init__(name)
        self.value = 0.0
        self.weight = 0.0

    def update(self, value, weight):
        check_value_and_weight("Accuracy.update", value, weight)
        if weight < 0:
            raise ValueError("Accuracy.update: weight can not be negative, got %s" % weight)
        self.value += value * weight
        self.weight += weight

    def eval(self):
        if self.weight == 0:
            raise ValueError("There is no data in Accuracy Metrics: add the output of "
                             "layers.accuracy with update(value, weight) first")
        return self.value / self.weight


class ChunkEvaluator(MetricBase):
    """Chunk precision, recall and F1 from the counts layers.chunk_eval returns:
    update(num_infer_chunks, num_label_chunks, num_correct_chunks); eval() ->
    (precision, recall, f1), 0 where a denominator is 0."""

    def __init__(self, name=None):
        super().__init__(name)
        self.num_infer_chunks = 0
        self.num_label_chunks = 0
        self.num_correct_chunks = 0

    def update(self, num_infer_chunks, num_label_chunks, num_correct_chunks):
        counts = {"num_infer_chunks": num_infer_chunks, "num_label_chunks": num_label_chunks,
                  "num_correct_chunks": num_correct_chunks}
        for what, value in counts.items():
            if not _is_number_or_array(value):
                raise ValueError("ChunkEvaluator.update: %s must be a number or numpy "
                                 "ndarray, got %s" % (what, type(value).__name__))
        self.num_infer_chunks += num_infer_chunks
        self.num_label_chunks += num_label_chunks
        self.num_correct_chunks += num_correct_chunks

    def eval(self):
        # counts fed as [1] arrays (fetched) give [1] arrays, as in 1.8
        correct = self.num_correct_chunks
        precision = correct / self.num_infer_chunks if np.all(self.num_infer_chunks) else 0
        recall = correct / self.num_label_chunks if np.all(self.num_label_chunks) else 0
        f1 = 2 * precision * recall / (precision + recall) if np.all(correct) else 0
        return precision, recall, f1


class EditDistance(MetricBase):
    """update(distances [N, 1], seq_num) from layers.edit_distance; eval() ->
    (mean distance, fraction of sequences with a nonzero distance); ValueError before any
    update."""

    def __init__(self, name):
        super().__init__(name)
        self.total_distance = 0.0
        self.seq_num = 0
        self.instance_error = 0

    def update(self, distances, seq_num):
        if not isinstance(distances, np.ndarray):
            raise ValueError("EditDistance.update: distances must be a numpy ndarray, got %s"
                             % type(distances).__name__)
        if not _is_number(seq_num):
            raise ValueError("EditDistance.update: seq_num must be a number (int, float), "
                             "got %s" % type(seq_num).__name__)
        self.seq_num += seq_num
        self.instance_error += seq_num - int(np.sum(distances == 0))
        self.total_distance += float(np.sum(distances))

    def eval(self):
        if self.seq_num == 0:
            raise ValueError("There is no data in EditDistance Metric: add the output of "
                             "layers.edit_distance with update(distances, seq_num) first")
        return self.total_distance / self.seq_num, self.instance_error / float(self.seq_num)


class DetectionMAP:
    """Paddle 1.8's in-graph mAP metric: builds two detection_map ops on the current main
    program, the mini-batch's mAP and the mAP accumulated (in persistable state variables,
    `map_eval_N_accum_*`) since the last reset; get_map_var() returns both variables."""

    def __init__(self, input, gt_label, gt_box, gt_difficult=None, class_num=None,
                 background_label=0, overlap_threshold=0.5, evaluate_difficult=True,
                 ap_version="integral"):
        from ..framework import unique_name
        from ..framework.initializer import Constant
        from ..framework.layer_helper import LayerHelper
        from ..layers.creation import fill_constant
        from ..layers.detection import detection_map
        from ..layers.math import cast
        from ..layers.tensor import concat
        if class_num is None:
            raise ValueError("DetectionMAP: class_num is required")
        self.helper = LayerHelper("map_eval")
        gt_label = cast(gt_label, gt_box.dtype)
        columns = [gt_label] + ([cast(gt_difficult, gt_box.dtype)] if gt_difficult is not None
                                else []) + [gt_box]
        label = concat(columns, axis=1)
        args = (input, label, class_num, background_label)
        kwargs = {"overlap_threshold": overlap_threshold,
                  "evaluate_difficult": evaluate_difficult, "ap_version": ap_version}
        self.cur_map = detection_map(*args, **kwargs)

        def state(suffix, dtype, shape=None):
            return self.helper.create_variable(
                name="_".join([unique_name.generate(self.helper.name), suffix]),
                persistable=True, dtype=dtype, shape=shape)
        states = [state("accum_pos_count", "int32"), state("accum_true_pos", "float32"),
                  state("accum_false_pos", "float32")]
        self.has_state = state("has_state", "int32", [1])
        Constant(0)(self.has_state, self.helper.startup_program.global_block())
        self.accum_map = detection_map(*args, has_state=self.has_state, input_states=states,
                                       out_states=states, **kwargs)
        fill_constant([1], "int32", 1, out=self.has_state)

    def get_map_var(self):
        """(mAP of the current mini-batch, mAP accumulated since the last reset)."""
        return self.cur_map, self.accum_map

    def reset(self, executor, reset_program=None):
        """Run a program setting has_state to 0, so the next batch starts the totals anew."""
        from ..framework.program import Program, program_guard
        from ..layers.creation import fill_constant
        reset_program = reset_program if reset_program is not None else Program()
        with program_guard(reset_program):
            var = reset_program.current_block().create_var(
                name=self.has_state.name, shape=[1], dtype="int32", persistable=True)
            fill_constant([1], "int32", 0, out=var)
        executor.run(reset_program)


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
