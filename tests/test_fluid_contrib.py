"""fluid.contrib.layers' basic_gru / basic_lstm (1.8) against a numpy recurrence over the
same parameters, and their parameter names."""
import numpy as np
import pytest

from refimpl import fluid
from refimpl.fluid.contrib.layers import BasicGRUUnit, basic_gru, basic_lstm


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _value(name):
    return np.array(fluid.global_scope().find_var(name).get_tensor())


@pytest.mark.parametrize("time_dim", [3, None], ids=["built", "run_time"])
@pytest.mark.parametrize("with_init", [False, True])
def test_basic_gru_matches_numpy_with_sequence_lengths(time_dim, with_init):
    """T unknown when built: the StaticRNN is a while op; an initial hidden state is
    sliced per layer inside the step block and computed once, before the steps."""
    x = fluid.data("x", [2, time_dim, 4], "float32")          # batch first: [batch, T, in]
    lengths = fluid.data("lengths", [2], "int64")
    init = fluid.data("init", [1, 2, 5], "float32") if with_init else None
    out, last = basic_gru(x, init, 5, sequence_length=lengths,
                          param_attr=fluid.ParamAttr(name="g"),
                          bias_attr=fluid.ParamAttr(name="g"))
    exe = fluid.Executor()
    exe.run(fluid.default_startup_program())
    rng = np.random.RandomState(0)
    xs = rng.uniform(-1, 1, (2, 3, 4)).astype("float32")
    h0 = rng.uniform(-1, 1, (1, 2, 5)).astype("float32")
    feed = {"x": xs, "lengths": np.array([3, 1])}
    if with_init:
        feed["init"] = h0
    got_out, got_last = exe.run(feed=feed, fetch_list=[out, last])
    wg, wc = _value("g_fw_w_0_gate"), _value("g_fw_w_0_candidate")
    bg, bc = _value("g_fw_b_0_gate"), _value("g_fw_b_0_candidate")
    h = h0[0] if with_init else np.zeros((2, 5), "float32")
    outs = []
    for t in range(3):
        gates = _sigmoid(np.concatenate([xs[:, t], h], 1) @ wg + bg)
        r, u = gates[:, :5], gates[:, 5:]
        c = np.tanh(np.concatenate([xs[:, t], r * h], 1) @ wc + bc)
        new = u * h + (1 - u) * c
        keep = (t < np.array([3, 1]))[:, None]
        h = np.where(keep, new, h)
        outs.append(h)
    np.testing.assert_allclose(got_out, np.stack(outs, 1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_last, h[None], rtol=1e-5, atol=1e-6)


def test_basic_lstm_bidirectional_shapes_and_names():
    x = fluid.data("x", [4, 2, 3], "float32")          # time major
    out, last_h, last_c = basic_lstm(x, None, None, 6, num_layers=2, bidirectional=True,
                                     batch_first=False)
    assert out.shape == (4, 2, 12) and last_h.shape == (4, 2, 6) and last_c.shape == (4, 2, 6)
    names = sorted(p.name for p in fluid.default_main_program().all_parameters())
    assert names[:2] == ["basic_lstm_layers_0/BasicLSTMUnit_0.b_0",
                         "basic_lstm_layers_0/BasicLSTMUnit_0.w_0"]
    assert "basic_lstm_reverse_layers_1/BasicLSTMUnit_0.w_0" in names


def test_basic_gru_unit_names_its_parameters_after_its_scope():
    unit = BasicGRUUnit("basicGRU", 3)
    unit(fluid.data("x", [None, 2], "float32"), fluid.data("h", [None, 3], "float32"))
    assert [p.name for p in fluid.default_main_program().all_parameters()] == [
        "basicGRU/BasicGRUUnit_0.w_0", "basicGRU/BasicGRUUnit_0.w_1",
        "basicGRU/BasicGRUUnit_0.b_0", "basicGRU/BasicGRUUnit_0.b_1"]
