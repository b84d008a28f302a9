"""positive_negative_pair and precision_recall (specs/ops/metric_ops.md), with the values
Paddle 1.8.5 gives for the same inputs (measured through fluid.op.Operator)."""
import numpy as np

from refimpl import versions
from refimpl.fluid import core
from refimpl.fluid.op import Operator

PLACE = core.CPUPlace()


def _run(op_type, inputs, outputs, **attrs):
    scope = core.Scope()
    for name, value in inputs.items():
        scope.var(name).get_tensor().set(value, PLACE)
    for name in outputs.values():
        scope.var(name).get_tensor()
    Operator(op_type, **{slot: slot for slot in inputs}, **outputs, **attrs).run(scope, PLACE)
    return [np.array(scope.find_var(name).get_tensor()) for name in outputs.values()]


def test_positive_negative_pair_counts_a_tie_as_neutral_and_negative():
    # query 0: (0.5, l1) (0.5, l0) a tie; (0.5, l1)-(0.9, l2) and (0.5, l0)-(0.9, l2) agree
    pos, neg, neu = _run("positive_negative_pair", {
        "Score": np.array([[0.5], [0.5], [0.9], [0.1]], "float32"),
        "Label": np.array([[1], [0], [2], [0]], "float32"),
        "QueryID": np.array([[0], [0], [0], [1]], "int64")},
        {"PositivePair": "p", "NegativePair": "n", "NeutralPair": "u"}, column=-1)
    # 1.8.5's [1] each (0-D under 3: switch scalar_shape)
    assert [a.shape for a in (pos, neg, neu)] == [versions.switch("scalar_shape")] * 3
    assert (pos.item(), neg.item(), neu.item()) == (2.0, 1.0, 1.0)


def test_precision_recall_states_and_metrics():
    batch, accum, states = _run("precision_recall", {
        "MaxProbs": np.ones((4, 1), "float32"),
        "Indices": np.array([[0], [1], [1], [2]], "int32"),
        "Labels": np.array([[0], [1], [2], [2]], "int32")},
        {"BatchMetrics": "bm", "AccumMetrics": "am", "AccumStatesInfo": "as"},
        class_number=3)
    # TP FP TN FN per class: class 1 predicted twice, right once; class 2 missed once
    np.testing.assert_array_equal(states, [[1, 0, 3, 0], [1, 1, 2, 0], [1, 0, 2, 1]])
    # macro precision (1 + 1/2 + 1) / 3, macro recall (1 + 1 + 1/2) / 3, micro 3/4
    np.testing.assert_allclose(batch, [5 / 6, 5 / 6, 5 / 6, 0.75, 0.75, 0.75], rtol=1e-6)
    assert batch.dtype == np.float64
    np.testing.assert_array_equal(accum, batch)       # no StatesInfo: the batch's states
