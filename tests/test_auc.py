"""fluid.layers.auc and the auc op (ops/auc.py, specs/ops/auc.md) against Paddle 1.8.5:
the same program and feeds gave these AUCs and counters there."""
import warnings

import numpy as np
import pytest

from refimpl import fluid, versions
from refimpl.ops.auc import roc_area

# Paddle 1.8.5: fluid.layers.auc(p, l, num_thresholds=7, slide_steps=2), three runs of the
# batches below: (global auc, batch auc, batch_stat_pos, batch_stat_neg, stat_pos, stat_neg)
PADDLE_1_8_5 = [
    (1.0, 1.0, [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1],
     [0, 0, 1, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 2, 0, 0, 0, 1],
     [[0, 0, 0, 0, 0, 1, 0, 0]], [[0, 0, 1, 2, 2, 0, 0, 0]]),
    (0.4714285714285714, 0.4714285714285714,
     [0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1, 1, 0, 0, 1, 0, 1, 0, 1, 1, 0, 1, 1, 0, 2],
     [0, 0, 1, 2, 2, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 3, 2, 1, 0, 0, 2],
     [[1, 0, 1, 1, 0, 1, 1, 0]], [[0, 0, 1, 3, 2, 1, 0, 0]]),
    (0.537037037037037, 0.375,
     [0, 0, 0, 1, 0, 2, 1, 0, 1, 0, 1, 1, 0, 0, 1, 0, 1, 0, 1, 2, 0, 2, 2, 0, 3],
     [0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1, 0, 2, 1, 0, 3],
     [[1, 0, 1, 2, 0, 3, 2, 0]], [[0, 0, 1, 3, 2, 2, 1, 0]]),
]


def _auc_runs(slide_steps, runs=3):
    """fluid.layers.auc(num_thresholds=7, slide_steps) over `runs` batches drawn as in the
    Paddle 1.8.5 run: (the layer's outputs, the fetched values of each run)."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("p", [-1, 2], "float32")
        y = fluid.data("l", [-1, 1], "int64")
        outs = fluid.layers.auc(x, y, num_thresholds=7, slide_steps=slide_steps)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(startup, scope=scope)
    rng = np.random.RandomState(0)
    fetched = []
    for _ in range(runs):
        p = rng.uniform(0, 1, (6, 1)).astype("float32")
        feed = {"p": np.hstack([1 - p, p]), "l": rng.randint(0, 2, (6, 1)).astype("int64")}
        fetched.append(exe.run(main, feed=feed, fetch_list=list(outs[:2]) + outs[2],
                               scope=scope))
    return outs, fetched


def test_auc_layer_matches_paddle_1_8_5_over_runs():
    (auc, batch_auc, states), fetched = _auc_runs(slide_steps=2)
    assert (auc.name, batch_auc.name) == ("auc_0.tmp_0", "auc_0.tmp_1")
    assert [list(s.shape) for s in states] == [[25], [25], [1, 8], [1, 8]]
    for want, got in zip(PADDLE_1_8_5, fetched):
        assert got[0].dtype == np.float64
        # [1] as in 1.8.5 (and 2.0), 0-D under 3 (switch scalar_shape)
        assert got[0].shape == got[1].shape == versions.switch("scalar_shape")
        assert [got[0].item(), got[1].item()] == list(want[:2])
        for g, w in zip(got[2:], want[2:]):
            np.testing.assert_array_equal(g, w)


def test_roc_area_is_the_probability_a_positive_outranks_a_negative():
    # one positive in bucket 3, negatives in buckets 1 and 3: 1 win + 1 tie of 2 pairs
    assert roc_area(np.array([0, 0, 0, 1]), np.array([0, 1, 0, 1])) == 0.75
    assert roc_area(np.array([0, 0]), np.array([1, 0])) == 0.0      # no positives


def test_auc_refuses_probabilities_outside_0_1_and_warns_on_save(tmp_path):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("p", [-1, 1], "float32")
        y = fluid.data("l", [-1, 1], "int64")
        auc, _, _ = fluid.layers.auc(x, y, num_thresholds=3)
        loss = fluid.layers.mean(x)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(startup, scope=scope)
    with pytest.raises(ValueError, match=r"must be in \[0, 1\]"):
        exe.run(main, feed={"p": np.array([[1.5]], "float32"), "l": np.array([[1]], "int64")},
                fetch_list=[auc], scope=scope)
    with fluid.scope_guard(scope), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fluid.io.save_inference_model(str(tmp_path), ["p"], [loss], exe, main)
    assert "set the auc states to zeros" in str(caught[0].message)


def test_auc_without_a_sliding_window_accumulates_like_paddle_1_8_5():
    _, fetched = _auc_runs(slide_steps=0)
    got = fetched[-1]
    # Paddle 1.8.5 after the same three runs: every counter [1, 8], both AUCs global
    assert [got[0].item(), got[1].item()] == [0.537037037037037] * 2
    for g, w in zip(got[2:], [PADDLE_1_8_5[2][4], PADDLE_1_8_5[2][5]] * 2):
        np.testing.assert_array_equal(g, w)
