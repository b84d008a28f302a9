"""paddle.metric classes: hand-derived values and values recorded from Paddle 3.3.1 on
the same inputs (np.random.RandomState(42) streams, drawn in the same order)."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl.metric import Accuracy, Auc, Metric, Precision, Recall


@pytest.fixture
def data():
    rng = np.random.RandomState(42)
    pred = rng.rand(20, 5).astype("float32")
    label = rng.randint(0, 5, (20, 1)).astype("int64")
    probs = rng.rand(50)
    labs = (rng.rand(50) < probs).astype("int64")
    return pred, label, probs, labs


def test_accuracy_hand_derived():
    m = Accuracy(topk=(1, 2))
    pred = np.array([[0.1, 0.7, 0.2], [0.5, 0.3, 0.2], [0.2, 0.3, 0.5], [0.3, 0.2, 0.4]])
    correct = m.compute(pred, np.array([[1], [1], [0], [2]]))
    np.testing.assert_array_equal(correct, [[1, 0], [0, 1], [0, 0], [1, 0]])
    assert correct.dtype == np.float32
    assert m.update(correct) == [0.5, 0.75]
    assert m.name() == ["acc_top1", "acc_top2"]
    m.reset()
    assert m.accumulate() == [0.0, 0.0]
    assert Accuracy().name() == ["acc"] and Accuracy(name="a").name() == ["a"]


def test_accuracy_matches_paddle(data):
    pred, label, _, _ = data
    m = Accuracy(topk=(1, 3))
    assert m.update(m.compute(pred, label)) == pytest.approx([0.1, 0.45])
    assert m.update(m.compute(pred[:7], label[:7])) == pytest.approx([0.0, 3 / 7])
    assert m.accumulate() == pytest.approx([0.07407407407407407, 0.4444444444444444])
    one_hot = np.eye(5)[label.ravel()].astype("float32")
    m = Accuracy()
    assert m.update(m.compute(pred, one_hot)) == pytest.approx(0.1)
    assert m.update(m.compute(pred, label.ravel())) == pytest.approx(0.1)


def test_accuracy_compute_builds_ops_on_variables(data):
    pred, label, _, _ = data
    m = Accuracy(topk=(1, 3))
    p = paddle.static.data("p", [None, 5], "float32")
    y = paddle.static.data("y", [None, 1], "int64")
    correct = m.compute(p, y)
    exe = paddle.static.Executor(paddle.CPUPlace())
    got, = exe.run(feed={"p": pred, "y": label}, fetch_list=[correct])
    np.testing.assert_array_equal(got, m.compute(pred, label))
    with pytest.raises(TypeError, match="static Variable"):
        m.update(correct)


def test_metrics_update_from_eager_tensors():
    # Paddle 2.0's test_metrics: compute on Tensors in dynamic mode, update with its mask
    paddle.disable_static()
    try:
        m = Accuracy()
        x = paddle.to_tensor(np.array([[0.1, 0.2, 0.3, 0.4], [0.1, 0.4, 0.3, 0.2],
                                       [0.1, 0.2, 0.4, 0.3], [0.1, 0.2, 0.3, 0.4]]))
        correct = m.compute(x, paddle.to_tensor(np.array([[0], [1], [2], [3]])))
        assert correct.shape == [4, 1] and m.update(correct) == 0.75
        p = Precision()
        p.update(paddle.to_tensor(np.array([0.1, 0.5, 0.6, 0.7])),
                 paddle.to_tensor(np.array([1, 0, 1, 1])))
        assert p.accumulate() == pytest.approx(2 / 3)          # tp 2 (0.6, 0.7), fp 1 (0.5)
    finally:
        paddle.enable_static()


def test_precision_and_recall_round_halves_as_paddle():
    preds = np.array([0.1, 0.5, 0.7, 0.49, 0.9, 0.5, 0.2, 0.8]).reshape(-1, 1)
    labels = np.array([0, 1, 1, 1, 0, 0, 1, 1]).reshape(-1, 1)
    p = Precision()
    p.update(preds, labels)              # 0.5 -> 1: predicted at 1, 2, 4, 5, 7
    assert (p.tp, p.fp, p.accumulate(), p.name()) == (3, 2, 0.6, "precision")
    r = Recall()
    r.update(preds, labels)              # 0.5 -> 0 (round half to even)
    assert (r.tp, r.fn, r.accumulate(), r.name()) == (2, 3, 0.4, "recall")
    p.reset(), r.reset()
    assert p.accumulate() == r.accumulate() == 0.0
    with pytest.raises(ValueError, match="8 preds and 7 labels"):
        p.update(preds, labels[:7])


def test_auc_hand_derived_and_matches_paddle(data):
    m = Auc()
    m.update(np.array([[0.9, 0.1], [0.6, 0.4], [0.65, 0.35], [0.2, 0.8]]),
             np.array([[0], [0], [1], [1]]))
    assert m.accumulate() == 0.75      # 3 of the 4 (positive, negative) pairs ordered right
    _, _, probs, labs = data
    preds = np.stack([1 - probs, probs], 1)
    for thresholds, paddle_value in [(4095, 0.9293139293139294), (10, 0.9261954261954262)]:
        m = Auc(num_thresholds=thresholds)
        m.update(preds[:30], labs[:30].reshape(-1, 1))
        m.update(preds[30:], labs[30:].reshape(-1, 1))
        assert m.accumulate() == pytest.approx(paddle_value, rel=1e-12)
    m.reset()
    assert m.accumulate() == 0.0 and m.name() == "auc"


def test_fluid_1_8_auc_evaluates_and_lists_its_histograms():
    from refimpl.fluid import metrics
    m = metrics.Auc("auc", num_thresholds=4)
    m.update(np.array([[0.9, 0.1], [0.6, 0.4], [0.65, 0.35], [0.2, 0.8]]),
             np.array([[0], [0], [1], [1]]))
    # buckets int(p * 4): negatives at 0.1 -> 0, 0.4 -> 1; positives 0.35 -> 1, 0.8 -> 3;
    # of the 4 (positive, negative) pairs 3 are ordered right and one tied (half): 3.5 / 4
    assert m.eval() == 0.875 and str(m) == "auc"
    assert m._stat_pos == [0, 1, 0, 1, 0] and m._stat_neg == [1, 1, 0, 0, 0]
    m.reset()
    assert m.eval() == 0.0 and m.get_config()["num_thresholds"] == 4


def test_auc_reads_as_many_pred_rows_as_there_are_labels():
    # measured on Paddle 1.8.5 (fluid.metrics.Auc) and 3.3.1 (paddle.metric.Auc): labels
    # [0, 1] with these 4 rows give 1.0, labels [1, 0] give 0.0 (rows 3-4 are not read);
    # 3 labels against 2 rows is an error (IndexError there)
    from refimpl.fluid import metrics
    preds = np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4], [0.3, 0.7]])
    for make in (lambda: metrics.Auc("auc"), Auc):
        for labels, expected in (([[0], [1]], 1.0), ([[1], [0]], 0.0)):
            m = make()
            m.update(preds, np.array(labels))
            assert (m.eval() if hasattr(m, "eval") else m.accumulate()) == expected
        with pytest.raises(ValueError, match=r"N = 3 labels, got shape \[2, 2\]"):
            make().update(preds[:2], np.array([[0], [1], [1]]))

def test_auc_errors():
    with pytest.raises(ValueError, match="curve must be 'ROC'"):
        Auc(curve="PR")
    with pytest.raises(ValueError, match=r"preds must be \[N, 2\]"):
        Auc().update(np.array([0.1, 0.2]), np.array([0, 1]))
    with pytest.raises(ValueError, match="probabilities in"):
        Auc().update(np.array([[0.0, 1.5]]), np.array([1]))


def test_metric_base_and_the_static_accuracy_layer_are_kept():
    class Partial(Metric):
        pass

    with pytest.raises(NotImplementedError, match="'accumulate' is not implemented in Partial"):
        Partial().accumulate()
    assert Partial().compute(1, 2) == (1, 2)
    assert callable(paddle.metric.accuracy)
