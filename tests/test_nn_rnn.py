"""refimpl.nn recurrent layers: the cells against numpy step-by-step references written from
Paddle's documented equations, RNN/BiRNN/LSTM/GRU/SimpleRNN shapes and values (multi-layer,
bidirectional, time-major, initial states, sequence_length masking), gradients, errors."""
import numpy as np
import pytest

import refimpl as paddle
import refimpl.nn as nn
from refimpl import static
from helpers import scope_value, startup_executor

RNG = np.random.RandomState(11)


def _sigmoid(a):
    return 1.0 / (1.0 + np.exp(-a))


# -- numpy references of one step: (x, states, weights) -> (output, new states)
def _weights(cell):
    return [scope_value(getattr(cell, n)) for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]


def _simple_step(x, h, w, act=np.tanh):
    w_ih, w_hh, b_ih, b_hh = w
    h = act(x @ w_ih.T + b_ih + h @ w_hh.T + b_hh)
    return h, h


def _lstm_step(x, states, w):
    h, c = states
    w_ih, w_hh, b_ih, b_hh = w
    i, f, g, o = np.split(x @ w_ih.T + b_ih + h @ w_hh.T + b_hh, 4, axis=-1)
    c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
    h = _sigmoid(o) * np.tanh(c)
    return h, (h, c)


def _gru_step(x, h, w):
    w_ih, w_hh, b_ih, b_hh = w
    x_r, x_z, x_c = np.split(x @ w_ih.T + b_ih, 3, axis=-1)
    h_r, h_z, h_c = np.split(h @ w_hh.T + b_hh, 3, axis=-1)
    r, z = _sigmoid(x_r + h_r), _sigmoid(x_z + h_z)
    c = np.tanh(x_c + r * h_c)
    return (h - c) * z + c, (h - c) * z + c


def _run_numpy(step, w, x, states, lengths=None, reverse=False, zero_outputs=False):
    """x [batch, time, in]; states carried unchanged past each sequence's end."""
    batch, steps = x.shape[:2]
    outputs = [None] * steps
    for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
        out, new = step(x[:, t], states, w)
        if lengths is not None:
            keep = (t < lengths)[:, None]
            if isinstance(new, tuple):
                new = tuple(np.where(keep, n, s) for n, s in zip(new, states))
            else:
                new = np.where(keep, new, states)
            if zero_outputs:
                out = np.where(keep, out, 0.0)
        outputs[t], states = out, new
    return np.stack(outputs, 1), states


# -- cells
def test_cell_parameters_follow_paddle_names_shapes_and_uniform_init():
    cell = nn.LSTMCell(3, 4)
    assert [(n, tuple(p.shape)) for n, p in cell.named_parameters()] == [
        ("weight_ih", (16, 3)), ("weight_hh", (16, 4)), ("bias_ih", (16,)),
        ("bias_hh", (16,))]
    assert [p.name for p in cell.parameters()] == [
        "lstm_cell_0.w_0", "lstm_cell_0.w_1", "lstm_cell_0.b_0", "lstm_cell_0.b_1"]
    assert nn.GRUCell(3, 5).weight_hh.shape == (15, 5)
    assert nn.SimpleRNNCell(3, 5).weight_ih.shape == (5, 3)
    big = nn.GRUCell(2, 400)
    startup_executor()
    for p in cell.parameters():                       # Uniform(-1/sqrt(4), 1/sqrt(4))
        v = scope_value(p)
        assert np.all(np.abs(v) <= 0.5) and v.std() > 0.1
    w = scope_value(big.weight_hh)
    assert np.abs(w).max() <= 0.05 and np.abs(w).max() > 0.049


@pytest.mark.parametrize("version, names", [
    ("2.0", ["weight_ih", "weight_hh"]),
    ("3", ["weight_ih", "weight_hh", "bias_ih", "bias_hh"])])
def test_cell_false_bias_by_version(version, names, paddle_version):
    # Paddle 2.0: attr False creates no bias; 3.3.1: a zero, frozen one (measured)
    with paddle_version(version):
        cell = nn.GRUCell(3, 4, bias_ih_attr=False, bias_hh_attr=False)
        assert [n for n, _ in cell.named_parameters()] == names
        x = static.data("x", [None, 3], "float32")
        h0 = static.data("h0", [None, 4], "float32")
        out, _ = cell(x, h0)
        exe = startup_executor()
        a, h = RNG.randn(2, 3).astype("float32"), RNG.randn(2, 4).astype("float32")
        (got,) = exe.run(feed={"x": a, "h0": h}, fetch_list=[out])
        w = [scope_value(cell.weight_ih), scope_value(cell.weight_hh),
             np.zeros(12, "float32"), np.zeros(12, "float32")]
        np.testing.assert_allclose(got, _gru_step(a, h, w)[0], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("make, step", [
    (lambda: nn.SimpleRNNCell(3, 4), _simple_step),
    (lambda: nn.SimpleRNNCell(3, 4, activation="relu"),
     lambda x, h, w: _simple_step(x, h, w, lambda a: np.maximum(a, 0))),
    (lambda: nn.LSTMCell(3, 4), _lstm_step),
    (lambda: nn.GRUCell(3, 4), _gru_step)])
def test_cells_match_the_documented_equations(make, step):
    cell = make()
    x = static.data("x", [None, 3], "float32")
    is_lstm = isinstance(cell, nn.LSTMCell)
    h0 = static.data("h0", [None, 4], "float32")
    c0 = static.data("c0", [None, 4], "float32")
    out, states = cell(x, (h0, c0) if is_lstm else h0)
    zero_out, _ = cell(x)                             # default: zero states
    exe = startup_executor()
    a, h, c = (RNG.randn(2, n).astype("float32") for n in (3, 4, 4))
    got = exe.run(feed={"x": a, "h0": h, "c0": c},
                  fetch_list=[out, zero_out] + (list(states) if is_lstm else [states]))
    w = _weights(cell)
    want_out, want_states = step(a, (h, c) if is_lstm else h, w)
    np.testing.assert_allclose(got[0], want_out, rtol=1e-5, atol=1e-6)
    zero = np.zeros((2, 4), "float32")
    np.testing.assert_allclose(got[1], step(a, (zero, zero) if is_lstm else zero, w)[0],
                               rtol=1e-5, atol=1e-6)
    for g, want in zip(got[2:], want_states if is_lstm else [want_states]):
        np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-6)


def test_get_initial_states_nested_shapes_and_batch_from_the_reference():
    cell = nn.LSTMCell(3, 4)
    x = static.data("x", [None, 5, 3], "float32")
    h, c = cell.get_initial_states(x, batch_dim_idx=0)
    custom = cell.get_initial_states(x, shape=[[2, 3]], init_value=1.5, batch_dim_idx=1)
    got = startup_executor().run(feed={"x": np.zeros((6, 5, 3), "float32")}, fetch_list=[h, c, custom[0]])
    assert got[0].shape == (6, 4) and got[1].shape == (6, 4) and not got[0].any()
    np.testing.assert_array_equal(got[2], np.full((5, 2, 3), 1.5))


# -- RNN / BiRNN
@pytest.mark.parametrize("time_major", [False, True])
@pytest.mark.parametrize("is_reverse", [False, True])
def test_rnn_runs_the_cell_over_time(time_major, is_reverse):
    cell = nn.GRUCell(3, 4)
    rnn = nn.RNN(cell, is_reverse=is_reverse, time_major=time_major)
    shape = [5, None, 3] if time_major else [None, 5, 3]
    x = static.data("x", shape, "float32")
    out, final = rnn(x)
    assert out.shape == ((5, -1, 4) if time_major else (-1, 5, 4))
    a = RNG.randn(2, 5, 3).astype("float32")
    got_out, got_final = startup_executor().run(
        feed={"x": a.transpose(1, 0, 2) if time_major else a}, fetch_list=[out, final])
    want_out, want_final = _run_numpy(_gru_step, _weights(cell), a, np.zeros((2, 4)),
                                      reverse=is_reverse)
    if time_major:
        got_out = got_out.transpose(1, 0, 2)
    np.testing.assert_allclose(got_out, want_out, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_final, want_final, rtol=1e-5, atol=1e-6)


def test_rnn_sequence_length_keeps_states_past_the_end_and_outputs_unmasked():
    cell = nn.LSTMCell(3, 4)
    x = static.data("x", [None, 5, 3], "float32")
    lengths = static.data("len", [None], "int64")
    out, (h, c) = nn.RNN(cell)(x, sequence_length=lengths)
    a = RNG.randn(3, 5, 3).astype("float32")
    n = np.array([5, 2, 1], "int64")
    got = startup_executor().run(feed={"x": a, "len": n}, fetch_list=[out, h, c])
    zero = np.zeros((3, 4))
    want_out, (want_h, want_c) = _run_numpy(_lstm_step, _weights(cell), a, (zero, zero), n)
    np.testing.assert_allclose(got[0], want_out, rtol=1e-5, atol=1e-6)
    assert np.abs(got[0][1, 2:]).min() > 0          # RNN does not zero padded outputs
    np.testing.assert_allclose(got[1], want_h, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1][1], got[0][1, 1], rtol=1e-6)   # h at step len-1
    np.testing.assert_allclose(got[2], want_c, rtol=1e-5, atol=1e-6)


def test_birnn_concatenates_forward_and_backward_with_masked_reverse():
    fw, bw = nn.SimpleRNNCell(3, 2), nn.SimpleRNNCell(3, 2)
    x = static.data("x", [None, 4, 3], "float32")
    lengths = static.data("len", [None], "int64")
    h_fw, h_bw = static.data("hf", [None, 2], "float32"), static.data("hb", [None, 2],
                                                                      "float32")
    out, (final_fw, final_bw) = nn.BiRNN(fw, bw)(x, (h_fw, h_bw), sequence_length=lengths)
    assert out.shape == (-1, 4, 4)
    a = RNG.randn(2, 4, 3).astype("float32")
    n = np.array([4, 2], "int64")
    hf, hb = RNG.randn(2, 2).astype("float32"), RNG.randn(2, 2).astype("float32")
    got = startup_executor().run(feed={"x": a, "len": n, "hf": hf, "hb": hb},
                     fetch_list=[out, final_fw, final_bw])
    want_fw, want_final_fw = _run_numpy(_simple_step, _weights(fw), a, hf, n)
    want_bw, want_final_bw = _run_numpy(_simple_step, _weights(bw), a, hb, n, reverse=True)
    np.testing.assert_allclose(got[0], np.concatenate([want_fw, want_bw], -1), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(got[1], want_final_fw, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[2], want_final_bw, rtol=1e-5, atol=1e-6)
    # the backward pass of the short sequence starts at its own last step (index 1)
    np.testing.assert_allclose(got[0][1, 1, 2:], _simple_step(a[1, 1], hb[1], _weights(bw))[0],
                               rtol=1e-5, atol=1e-6)


# -- multi-layer networks
def _net_reference(net, a, lengths, initial):
    """numpy forward of SimpleRNN/LSTM/GRU built from the cells' parameter values."""
    step = {"LSTM": _lstm_step, "GRU": _gru_step}.get(net.mode, _simple_step)
    rows = []
    for layer in net:
        cells = [layer.cell] if net.num_directions == 1 else [layer.cell_fw, layer.cell_bw]
        outs = []
        for d, cell in enumerate(cells):
            state = initial(len(rows))
            out, final = _run_numpy(step, _weights(cell), a, state, lengths, reverse=d == 1,
                                    zero_outputs=True)
            outs.append(out)
            rows.append(final)
        a = np.concatenate(outs, -1)
    return a, rows


@pytest.mark.parametrize("cls, direction", [
    (nn.LSTM, "forward"), (nn.LSTM, "bidirect"), (nn.GRU, "bidirectional"),
    (nn.SimpleRNN, "forward")])
def test_multi_layer_networks_match_numpy_with_sequence_length(cls, direction):
    net = cls(3, 4, num_layers=2, direction=direction)
    directions = 1 if direction == "forward" else 2
    assert len(net) == 2 and net.num_directions == directions
    names = [n for n, _ in net.named_parameters()]
    assert names[:4] == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"]
    assert (("weight_ih_l1_reverse" in names) == (directions == 2))
    assert net.weight_ih_l1.shape[1] == 4 * directions
    x = static.data("x", [None, 5, 3], "float32")
    lengths = static.data("len", [None], "int64")
    out, final = net(x, sequence_length=lengths)
    assert out.shape == (-1, 5, 4 * directions)
    fetch = [out] + (list(final) if cls is nn.LSTM else [final])
    a = RNG.randn(3, 5, 3).astype("float32")
    n = np.array([5, 3, 1], "int64")
    got = startup_executor().run(feed={"x": a, "len": n}, fetch_list=fetch)
    zero = np.zeros((3, 4))
    want_out, rows = _net_reference(net, a, n, lambda _: (zero, zero) if cls is nn.LSTM
                                    else zero)
    np.testing.assert_allclose(got[0], want_out, rtol=1e-4, atol=1e-5)
    assert not got[0][2, 1:].any()                  # outputs past the end are zeros
    want_states = [np.stack([r[k] for r in rows]) for k in range(2)] if cls is nn.LSTM \
        else [np.stack(rows)]
    for g, want in zip(got[1:], want_states):
        assert g.shape == (2 * directions, 3, 4)
        np.testing.assert_allclose(g, want, rtol=1e-4, atol=1e-5)


def test_lstm_initial_states_and_time_major():
    net = nn.LSTM(2, 3, num_layers=2, time_major=True)
    x = static.data("x", [4, None, 2], "float32")
    h0 = static.data("h0", [2, None, 3], "float32")
    c0 = static.data("c0", [2, None, 3], "float32")
    out, (h, c) = net(x, (h0, c0))
    assert out.shape == (4, -1, 3) and h.shape == (2, -1, 3)
    a = RNG.randn(4, 2, 2).astype("float32")
    init_h, init_c = RNG.randn(2, 2, 3).astype("float32"), RNG.randn(2, 2, 3).astype("float32")
    got = startup_executor().run(feed={"x": a, "h0": init_h, "c0": init_c}, fetch_list=[out, h, c])
    want_out, rows = _net_reference(net, a.transpose(1, 0, 2), None,
                                    lambda i: (init_h[i], init_c[i]))
    np.testing.assert_allclose(got[0], want_out.transpose(1, 0, 2), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[1], np.stack([r[0] for r in rows]), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[2], np.stack([r[1] for r in rows]), rtol=1e-4, atol=1e-5)


def test_dropout_between_layers_only_while_training():
    """Training: one rnn op per layer with dropout ops between them; evaluation: one fused
    rnn op over all layers, no dropout."""
    net = nn.GRU(2, 3, num_layers=3, dropout=0.5)
    x = static.data("x", [None, 2, 2], "float32")

    def ops():
        return [(op.type, op.attr("is_test")) + ((op.attr("num_layers"),)
                                                 if op.type == "rnn" else ())
                for op in static.default_main_program().global_block().ops
                if op.type in ("dropout", "rnn")]
    net(x)
    trained = [("rnn", False, 1), ("dropout", False), ("rnn", False, 1), ("dropout", False),
               ("rnn", False, 1)]
    assert ops() == trained
    net.eval()
    net(x)                                          # built again, now in evaluation mode
    assert ops() == trained + [("rnn", True, 3)]


# -- gradients
def test_lstm_gradient_matches_finite_differences():
    net = nn.LSTM(2, 3, direction="bidirect")
    x = static.data("x", [2, 3, 2], "float32")
    lengths = static.data("len", [2], "int64")
    out, (h, c) = net(x, sequence_length=lengths)
    loss = paddle.mean(out * out) + paddle.mean(c)
    weight = net.weight_hh_l0_reverse
    grad, = static.gradients([loss], [weight])
    exe = startup_executor()
    feed = {"x": RNG.randn(2, 3, 2).astype("float32"), "len": np.array([3, 2], "int64")}
    scope = static.global_scope()
    got, = exe.run(feed=feed, fetch_list=[grad])
    base = scope_value(weight)
    numeric = np.zeros_like(base)
    for idx in np.ndindex(*base.shape):
        values = []
        for sign in (1, -1):
            w = base.copy()
            w[idx] += sign * 1e-2
            scope.var(weight.name).get_tensor().set(w)
            values.append(exe.run(feed=feed, fetch_list=[loss])[0])
        numeric[idx] = (values[0].astype("float64") - values[1]).item() / 2e-2
    scope.var(weight.name).get_tensor().set(base)
    np.testing.assert_allclose(got, numeric, rtol=2e-3, atol=2e-5)
    assert np.abs(numeric).max() > 1e-3


def test_training_a_tiny_lstm_lowers_the_loss():
    paddle.seed(0)      # lr 0.5 diverges from some initial weights: not the global stream's
    net = nn.LSTM(2, 4)
    head = nn.Linear(4, 1)
    x = static.data("x", [8, 5, 2], "float32")
    y = static.data("y", [8, 1], "float32")
    out, (h, _) = net(x)
    loss = paddle.mean((head(paddle.squeeze(h, [0])) - y) ** 2)
    paddle.optimizer.SGD(learning_rate=0.5).minimize(loss)
    exe = startup_executor()
    a = RNG.randn(8, 5, 2).astype("float32")
    target = a.sum((1, 2))[:, None].astype("float32") * 0.3
    losses = [exe.run(feed={"x": a, "y": target}, fetch_list=[loss])[0].item()
              for _ in range(30)]
    assert losses[-1] < 0.5 * losses[0]


# -- errors
def test_unknown_time_dimension_is_a_clear_error_for_an_unrolled_cell():
    net = nn.RNN(nn.LSTMCell(3, 4))
    x = static.data("x", [None, None, 3], "float32")
    with pytest.raises(ValueError, match="RNN rnn_0: input 'x'.*unknown time dimension"):
        net(x)


def test_the_fused_rnn_op_takes_any_number_of_steps():
    """nn.LSTM is one rnn op stepping at run time: the time dimension may be unknown."""
    net = nn.LSTM(3, 4)
    x = static.data("x", [None, None, 3], "float32")
    out, (h, c) = net(x)
    exe = startup_executor()
    weights = _weights(net[0].cell)
    for steps in (2, 5):
        a = RNG.uniform(-1, 1, (2, steps, 3)).astype("float32")
        got_out, got_h = exe.run(feed={"x": a}, fetch_list=[out, h])
        state = (np.zeros((2, 4), "float32"),) * 2
        for t in range(steps):
            want, state = _lstm_step(a[:, t], state, weights)
            np.testing.assert_allclose(got_out[:, t], want, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got_h[0], state[0], rtol=1e-5, atol=1e-6)


def test_bad_settings_and_inputs_name_the_layer():
    with pytest.raises(ValueError, match="direction must be"):
        nn.GRU(3, 4, direction="backward")
    with pytest.raises(ValueError, match="activation must be 'tanh' or 'relu'"):
        nn.SimpleRNNCell(3, 4, activation="sigmoid")
    with pytest.raises(ValueError, match="hidden_size must be greater than 0"):
        nn.LSTMCell(3, 0)
    cell = nn.GRUCell(3, 4)
    with pytest.raises(ValueError, match="GRUCell gru_cell_0: input 'x' \\[-1, 5\\] has 5 at"
                                         " dim 1, expected input_size=3"):
        cell(static.data("x", [None, 5], "float32"))
    net = nn.LSTM(3, 4, num_layers=2)
    with pytest.raises(ValueError, match="has 1 at dim 0, expected num_layers"):
        net(static.data("x2", [None, 2, 3], "float32"),
            (static.data("h", [1, None, 4], "float32"), static.data("c", [1, None, 4],
                                                                    "float32")))


# -- Transformer
def _layer_norm(a, norm):
    mean, var = a.mean(-1, keepdims=True), a.var(-1, keepdims=True)
    return (a - mean) / np.sqrt(var + 1e-5) * scope_value(norm.weight) + scope_value(norm.bias)


def _linear(a, linear):
    return a @ scope_value(linear.weight) + scope_value(linear.bias)


def _attention(mha, q, kv, mask=None):
    """numpy multi-head attention; mask is added to the scores."""
    def heads(a, proj):
        return _linear(a, proj).reshape(a.shape[0], a.shape[1], mha.num_heads, -1) \
            .transpose(0, 2, 1, 3)
    scores = heads(q, mha.q_proj) @ heads(kv, mha.k_proj).transpose(0, 1, 3, 2)
    scores = scores / np.sqrt(mha.head_dim) + (0 if mask is None else mask)
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    weights /= weights.sum(-1, keepdims=True)
    context = (weights @ heads(kv, mha.v_proj)).transpose(0, 2, 1, 3)
    return _linear(context.reshape(q.shape[0], q.shape[1], -1), mha.out_proj)


def _residual(a, norm, block, before):
    if before:
        return a + block(_layer_norm(a, norm))
    return _layer_norm(a + block(a), norm)


def _feed_forward(layer):
    return lambda a: _linear(np.maximum(_linear(a, layer.linear1), 0), layer.linear2)


def _encoder_layer_reference(layer, a, mask=None):
    before = layer.normalize_before
    a = _residual(a, layer.norm1, lambda x: _attention(layer.self_attn, x, x, mask), before)
    return _residual(a, layer.norm2, _feed_forward(layer), before)


def _decoder_layer_reference(layer, a, memory, tgt_mask=None):
    before = layer.normalize_before
    a = _residual(a, layer.norm1, lambda x: _attention(layer.self_attn, x, x, tgt_mask),
                  before)
    a = _residual(a, layer.norm2, lambda x: _attention(layer.cross_attn, x, memory), before)
    return _residual(a, layer.norm3, _feed_forward(layer), before)


def _randomize(layer):
    """Non-trivial norm parameters (they start at 1 and 0)."""
    scope = static.global_scope()
    for p in layer.parameters():
        scope.var(p.name).get_tensor().set((RNG.randn(*p.shape) * 0.5).astype("float32")
                                           + scope_value(p))


@pytest.mark.parametrize("normalize_before", [False, True])
def test_encoder_layer_matches_attention_ffn_and_layer_norms(normalize_before):
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.1,
                                       normalize_before=normalize_before)
    assert [n for n, _ in layer.named_parameters()][8:12] == [
        "linear1.weight", "linear1.bias", "linear2.weight", "linear2.bias"]
    layer.eval()                                    # dropout off
    x = static.data("x", [None, 3, 8], "float32")
    mask = static.data("mask", [None, 1, 3, 3], "bool")
    y = layer(x, mask)
    exe = startup_executor()
    _randomize(layer)
    a = RNG.randn(2, 3, 8).astype("float32")
    m = RNG.rand(2, 1, 3, 3) > 0.4
    m[..., 0] = True
    got, = exe.run(feed={"x": a, "mask": m}, fetch_list=[y])
    want = _encoder_layer_reference(layer, a, np.where(m, 0.0, -1e9))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("normalize_before", [False, True])
def test_transformer_encoder_decoder_with_causal_mask(normalize_before):
    model = nn.Transformer(8, 2, num_encoder_layers=2, num_decoder_layers=2,
                           dim_feedforward=16, normalize_before=normalize_before)
    assert len(model.encoder.layers) == 2 and len(model.decoder.layers) == 2
    first, second = model.encoder.layers
    assert first.self_attn.q_proj.weight.name != second.self_attn.q_proj.weight.name
    model.eval()
    src = static.data("src", [None, 4, 8], "float32")
    tgt = static.data("tgt", [None, 3, 8], "float32")
    causal = model.generate_square_subsequent_mask(3)
    out = model(src, tgt, tgt_mask=causal)
    assert out.shape == (-1, 3, 8)
    exe = startup_executor()
    _randomize(model)
    a, b = RNG.randn(2, 4, 8).astype("float32"), RNG.randn(2, 3, 8).astype("float32")
    got, mask = exe.run(feed={"src": a, "tgt": b}, fetch_list=[out, causal])
    np.testing.assert_array_equal(mask, np.triu(np.full((3, 3), -np.inf), 1))
    memory = a
    for layer in model.encoder.layers:
        memory = _encoder_layer_reference(layer, memory)
    memory = _layer_norm(memory, model.encoder.norm)
    want = b
    for layer in model.decoder.layers:
        want = _decoder_layer_reference(layer, want, memory, np.triu(np.full((3, 3), -1e30), 1))
    want = _layer_norm(want, model.decoder.norm)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    # causality: changing the last target step leaves the earlier outputs as they were
    b2 = b.copy()
    b2[:, -1] += RNG.randn(2, 8).astype("float32")   # not a constant: norms remove those
    got2, = exe.run(feed={"src": a, "tgt": b2}, fetch_list=[out])
    np.testing.assert_allclose(got2[:, :2], got[:, :2], rtol=1e-5, atol=1e-5)
    assert np.abs(got2[:, 2] - got[:, 2]).max() > 1e-3


def test_transformer_attr_lists_and_errors():
    layer = nn.TransformerDecoderLayer(
        4, 2, 8, weight_attr=[None, paddle.ParamAttr(name="cross_w"), None], bias_attr=False)
    cross = layer.cross_attn
    assert cross.q_proj.weight.name == cross.v_proj.weight.name == "cross_w"   # as Paddle
    assert layer.self_attn.q_proj.weight.name != layer.self_attn.k_proj.weight.name
    assert layer.linear1.bias is None and layer.self_attn.out_proj.bias is None
    with pytest.raises(ValueError, match="must have 2 entries, got 3"):
        nn.TransformerEncoderLayer(4, 2, 8, weight_attr=[None, None, None])
    with pytest.raises(ValueError, match="embed_dim \\(4\\) must be a positive multiple"):
        nn.TransformerEncoderLayer(4, 3, 8)
    with pytest.raises(ValueError, match="unknown activation 'swishy'"):
        nn.TransformerEncoderLayer(4, 2, 8, activation="swishy")
    with pytest.raises(ValueError, match="length must be a positive int"):
        nn.Transformer(4, 2, 1, 1, 8).generate_square_subsequent_mask(0)
    with pytest.raises(ValueError, match="must hold one int32 / int64, got dtype float32"):
        nn.Transformer(4, 2, 1, 1, 8).generate_square_subsequent_mask(
            static.data("n", [1], "float32"))


def test_the_causal_mask_of_a_tensor_length_as_paddlenlp_passes_it(dygraph):
    """PaddleNLP 2.0's TransformerModel passes `paddle.shape(trg_word)[-1]`: the mask of that
    length, in dynamic mode and built into a static program (its length known at run)."""
    model = nn.Transformer(4, 2, 1, 1, 8)
    want = np.triu(np.full((5, 5), -np.inf, "float32"), 1)
    got = model.generate_square_subsequent_mask(paddle.shape(paddle.zeros([2, 5]))[-1])
    np.testing.assert_array_equal(got.numpy(), want)
    paddle.enable_static()
    words = static.data("words", [None, None], "int64")
    mask = model.generate_square_subsequent_mask(paddle.shape(words)[-1])
    got, = static.Executor().run(feed={"words": np.zeros([2, 3], "int64")}, fetch_list=[mask])
    np.testing.assert_array_equal(got, want[:3, :3])
