"""fluid.metrics, fluid.average and fluid.evaluator (Paddle 1.8) against values recorded on
Paddle 1.8.5 (specs/fluid_metrics.md)."""
import numpy as np
import pytest

from refimpl import fluid
from refimpl.fluid import metrics

pytestmark = pytest.mark.paddle("1.8")

PREDS = np.array([[0.2], [0.7], [0.9], [0.6]])
LABELS = np.array([[1], [1], [0], [1]])


def test_accuracy_is_the_weighted_mean_of_batch_accuracies():
    acc = metrics.Accuracy()
    acc.update(0.5, 4)
    acc.update(1.0, 2)
    assert acc.eval() == pytest.approx(2 / 3)
    assert acc.get_config() == {"name": "Accuracy", "states": {"value": 4.0, "weight": 6}}
    acc.reset()
    assert (acc.value, acc.weight) == (0.0, 0)
    with pytest.raises(ValueError, match="no data in Accuracy"):
        acc.eval()
    acc.update(np.array([0.5]), 3)      # a fetched [1] accuracy stays an array
    np.testing.assert_array_equal(acc.eval(), [0.5])
    with pytest.raises(ValueError, match="weight can not be negative"):
        acc.update(0.5, -1)
    with pytest.raises(ValueError, match="weight must be a number"):
        acc.update(0.5, "3")


def test_precision_recall_composite_as_paddle18():
    precision, recall = metrics.Precision(), metrics.Recall()
    precision.update(PREDS, LABELS)
    recall.update(PREDS, LABELS)
    assert (precision.tp, precision.fp, precision.eval()) == (2, 1, pytest.approx(2 / 3))
    assert (recall.tp, recall.fn, recall.eval()) == (2, 1, pytest.approx(2 / 3))
    both = metrics.CompositeMetric()
    both.add_metric(metrics.Precision())
    both.add_metric(metrics.Recall())
    both.update(PREDS, LABELS)
    assert both.eval() == [pytest.approx(2 / 3)] * 2
    assert metrics.Precision().eval() == 0.0 and metrics.Recall().eval() == 0.0
    # 1.8 rounds with np.rint: 0.5 is negative (paddle.metric.Precision counts it)
    half = metrics.Precision()
    half.update(np.array([0.5, 0.51]), np.array([1, 1]))
    assert (half.tp, half.fp) == (1, 0)
    with pytest.raises(ValueError, match="preds must be a numpy ndarray"):
        half.update([0.5], np.array([1]))
    with pytest.raises(ValueError, match="MetricBase"):
        both.add_metric("precision")


def test_chunk_evaluator_and_edit_distance_as_paddle18():
    chunks = metrics.ChunkEvaluator()
    chunks.update(np.array([5]), np.array([4]), np.array([3]))
    chunks.update(3, 4, 2)
    precision, recall, f1 = chunks.eval()
    for value in (precision, recall, f1):    # arrays in, arrays out: Paddle 1.8.5's 0.625
        np.testing.assert_allclose(value, [0.625])
    assert metrics.ChunkEvaluator().eval() == (0, 0, 0)
    distance = metrics.EditDistance("ed")
    distance.update(np.array([[0.], [2.], [1.], [0.]]), 4)
    assert distance.eval() == (0.75, 0.5)
    with pytest.raises(ValueError, match="no data in EditDistance"):
        metrics.EditDistance("e").eval()


def test_metric_base_reset_zeroes_public_state_by_kind():
    class Counts(metrics.MetricBase):
        def __init__(self):
            super().__init__("counts")
            self.n, self.total, self.hist, self.note = 3, 2.5, np.ones(2), "x"
            self._private = 7
    counts = Counts()
    counts.reset()
    assert (counts.n, counts.total, counts.note, counts._private) == (0, 0.0, None, 7)
    np.testing.assert_array_equal(counts.hist, [0, 0])
    assert str(counts) == "counts"


def test_weighted_average_and_detection_map_arguments():
    with pytest.warns(Warning, match="deprecated"):
        average = fluid.average.WeightedAverage()
    average.add(1.0, 2)
    average.add(4.0, 1)
    assert average.eval() == 2.0
    # as 1.8.5: a weight may be a [1] array (test_profiler's fetched batch size), no
    # other array
    average.add(np.array([0.5]), np.array([3], "int64"))
    np.testing.assert_allclose(average.eval(), [(2.0 + 4.0 + 1.5) / 6])
    with pytest.raises(ValueError, match="weight must be a number"):
        average.add(0.5, np.array([1, 2]))
    average.reset()
    with pytest.raises(ValueError, match="no data to be averaged"):
        average.eval()
    assert fluid.evaluator.DetectionMAP is fluid.metrics.DetectionMAP
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        box = fluid.data("box", [None, 4], "float32", lod_level=1)
        with pytest.raises(ValueError, match="DetectionMAP: class_num is required"):
            fluid.metrics.DetectionMAP(box, box, box)


def test_evaluators_accumulate_in_the_program():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        hyp = fluid.data(name="hyp", shape=[None, 1], dtype="int64", lod_level=1)
        ref = fluid.data(name="ref", shape=[None, 1], dtype="int64", lod_level=1)
        with pytest.warns(Warning, match="deprecated"):
            distance = fluid.evaluator.EditDistance(hyp, ref)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    place = fluid.CPUPlace()
    with fluid.scope_guard(scope):
        exe.run(startup)
        distance.reset(exe)
        # batch 1: "ab" vs "ab" (0), "abc" vs "ab" (1); batch 2: "a" vs "b" (1)
        for h, r, lens in (([1, 2, 1, 2, 3], [1, 2, 1, 2], ([2, 3], [2, 2])),
                           ([1], [2], ([1], [1]))):
            feed = {"hyp": fluid.create_lod_tensor(np.array(h, np.int64).reshape(-1, 1),
                                                   [lens[0]], place),
                    "ref": fluid.create_lod_tensor(np.array(r, np.int64).reshape(-1, 1),
                                                   [lens[1]], place)}
            exe.run(main, feed=feed)
        mean_distance, error_rate = distance.eval(exe)
    # normalized distances (by the reference length): 0, 1/2, 1 over 3 sequences
    np.testing.assert_allclose(mean_distance, [0.5])
    np.testing.assert_allclose(error_rate, [2 / 3])
