"""Paddle 1.8 fluid.layers RNN / decoding API: GRUCell and LSTMCell against numpy written
from 1.8's documented equations, rnn with sequence_length, StaticRNN unrolled, BasicDecoder
with TrainingHelper / GreedyEmbeddingHelper, the beam_search and beam_search_decode ops on
hand-worked cases."""
import numpy as np
import pytest

import refimpl.fluid as fluid
import refimpl.fluid.layers as layers
from refimpl import static, versions
from refimpl.ops.registry import get_op_def, round_float32_attrs
from helpers import central_differences

RNG = np.random.RandomState(5)


def _run(fetch, feed=None, return_numpy=True):
    exe = static.Executor()
    exe.run(static.default_startup_program())
    return exe.run(static.default_main_program(), feed=feed or {}, fetch_list=fetch,
                   return_numpy=return_numpy)


def _value(var):
    return np.array(static.global_scope().find_var(var.name).get_tensor())


def _sigmoid(a):
    return 1.0 / (1.0 + np.exp(-a))


def _gru_step(x, h, w_gate, b_gate, w_cand, b_cand):
    r, u = np.split(_sigmoid(np.concatenate([x, h], 1) @ w_gate + b_gate), 2, axis=1)
    c = np.tanh(np.concatenate([x, r * h], 1) @ w_cand + b_cand)
    return u * h + (1 - u) * c


def _lstm_step(x, h, c, w, b, forget_bias):
    i, j, f, o = np.split(np.concatenate([x, h], 1) @ w + b, 4, axis=1)
    c = c * _sigmoid(f + forget_bias) + _sigmoid(i) * np.tanh(j)
    return np.tanh(c) * _sigmoid(o), c


def _gru_weights(cell):
    return [_value(p) for p in (cell.gate_weight, cell.gate_bias, cell.candidate_weight,
                                cell.candidate_bias)]


def test_gru_cell_matches_1_8_equations_and_layout():
    x_np = RNG.randn(3, 4).astype("float32")
    h_np = RNG.randn(3, 5).astype("float32")
    x = static.data("x", [3, 4], "float32")
    h = static.data("h", [3, 5], "float32")
    cell = layers.GRUCell(5, bias_attr=fluid.ParamAttr(
        initializer=fluid.initializer.Uniform(-1, 1)))
    out, new_h = cell(x, h)
    assert out is new_h and cell.state_shape == [5]
    assert list(cell.gate_weight.shape) == [9, 10] and list(cell.candidate_weight.shape) == [9, 5]
    got, = _run([out], {"x": x_np, "h": h_np})
    np.testing.assert_allclose(got, _gru_step(x_np, h_np, *_gru_weights(cell)), rtol=1e-5,
                               atol=1e-6)


def test_lstm_cell_matches_1_8_equations_with_forget_bias():
    x_np = RNG.randn(2, 3).astype("float32")
    h_np, c_np = RNG.randn(2, 4).astype("float32"), RNG.randn(2, 4).astype("float32")
    x = static.data("x", [2, 3], "float32")
    h, c = static.data("h", [2, 4], "float32"), static.data("c", [2, 4], "float32")
    cell = layers.LSTMCell(4, forget_bias=0.5, bias_attr=fluid.ParamAttr(
        initializer=fluid.initializer.Uniform(-1, 1)))
    out, (new_h, new_c) = cell(x, [h, c])
    assert list(cell.weight.shape) == [7, 16]
    got_h, got_c = _run([new_h, new_c], {"x": x_np, "h": h_np, "c": c_np})
    want_h, want_c = _lstm_step(x_np, h_np, c_np, _value(cell.weight), _value(cell.bias), 0.5)
    np.testing.assert_allclose(got_h, want_h, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_c, want_c, rtol=1e-5, atol=1e-6)


def test_gru_cell_param_attr_name_gets_gate_and_candidate_suffixes():
    x = static.data("x", [2, 3], "float32")
    cell = layers.GRUCell(4, param_attr=fluid.ParamAttr(name="enc"))
    cell(x, cell.get_initial_states(x))
    assert (cell.gate_weight.name, cell.candidate_weight.name) == ("enc_gate", "enc_candidate")


@pytest.mark.parametrize("time_dim", [4, -1], ids=["built", "run_time"])
@pytest.mark.parametrize("is_reverse", [False, True])
def test_rnn_with_sequence_length_keeps_states_past_the_end(time_dim, is_reverse):
    """With T = -1 rnn() runs a while op over T found at run time (1.8's StaticRNN)."""
    batch, steps, size, hidden = 3, 4, 2, 3
    x_np = RNG.randn(batch, steps, size).astype("float32")
    lengths = np.array([4, 2, 1], "int64")
    x = static.data("x", [batch, time_dim, size], "float32")
    seq = static.data("len", [batch], "int64")
    cell = layers.GRUCell(hidden)
    outputs, final = layers.rnn(cell, x, sequence_length=seq, is_reverse=is_reverse)
    assert list(outputs.shape) == [batch, time_dim, hidden]
    got_out, got_final = _run([outputs, final], {"x": x_np, "len": lengths})
    weights = _gru_weights(cell)
    h = np.zeros((batch, hidden), "float32")
    for t in reversed(range(steps)) if is_reverse else range(steps):
        new_h = _gru_step(x_np[:, t], h, *weights)
        np.testing.assert_allclose(got_out[:, t], new_h, rtol=1e-5, atol=1e-6)
        alive = (lengths > t)[:, None]
        h = np.where(alive, new_h, h)
    np.testing.assert_allclose(got_final, h, rtol=1e-5, atol=1e-6)


def test_rnn_over_run_time_steps_with_nested_lstm_states():
    batch, steps, size, hidden = 2, 3, 2, 3
    x_np = RNG.randn(steps, batch, size).astype("float32")
    x = static.data("x", [-1, batch, size], "float32")
    cell = layers.LSTMCell(hidden)
    outputs, (final_h, final_c) = layers.rnn(cell, x, time_major=True)
    got_out, got_h, got_c = _run([outputs, final_h, final_c], {"x": x_np})
    h = c = np.zeros((batch, hidden), "float32")
    for t in range(steps):
        h, c = _lstm_step(x_np[t], h, c, _value(cell.weight), _value(cell.bias), 1.0)
        np.testing.assert_allclose(got_out[t], h, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_h, h, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_c, c, rtol=1e-5, atol=1e-6)


def test_static_rnn_accumulating_recurrence():
    steps, batch, size = 4, 2, 3
    x_np = RNG.randn(steps, batch, size).astype("float32")
    x = static.data("x", [steps, batch, size], "float32")
    rnn = layers.StaticRNN()
    with rnn.step():
        word = rnn.step_input(x)
        prev = rnn.memory(shape=[-1, size], batch_ref=word, init_value=1.0)
        total = prev * 0.5 + word
        rnn.update_memory(prev, total)
        rnn.step_output(total)
        rnn.step_output(word * 2.0)
    summed, doubled = rnn()
    assert list(summed.shape) == [steps, batch, size]
    got, got_doubled = _run([summed, doubled], {"x": x_np})
    acc = np.ones((batch, size), "float32")
    for t in range(steps):
        acc = acc * 0.5 + x_np[t]
        np.testing.assert_allclose(got[t], acc, rtol=1e-6)
    np.testing.assert_allclose(got_doubled, x_np * 2.0, rtol=1e-6)


def test_static_rnn_with_an_init_memory_and_a_cell():
    steps, batch, size, hidden = 3, 2, 3, 4
    x_np = RNG.randn(steps, batch, size).astype("float32")
    h0_np = RNG.randn(batch, hidden).astype("float32")
    x = static.data("x", [steps, batch, size], "float32")
    h0 = static.data("h0", [batch, hidden], "float32")
    cell = layers.GRUCell(hidden)
    rnn = layers.StaticRNN()
    with rnn.step():
        word = rnn.step_input(x)
        prev = rnn.memory(init=h0)
        hidden_var, _ = cell(word, prev)
        rnn.update_memory(prev, hidden_var)
        rnn.output(hidden_var)
    got, = _run([rnn()], {"x": x_np, "h0": h0_np})
    h = h0_np
    for t in range(steps):
        h = _gru_step(x_np[t], h, *_gru_weights(cell))
        np.testing.assert_allclose(got[t], h, rtol=1e-5, atol=1e-6)


def test_static_rnn_errors():
    x = static.data("x", [-1, 2], "float32")
    rnn = layers.StaticRNN()
    with pytest.raises(ValueError, match="inside `with rnn.step"):
        rnn.step_input(x)
    with pytest.raises(ValueError, match="never given a next value"):
        with rnn.step():
            rnn.memory(init=rnn.step_input(x))


def _accumulate_over_runtime_steps(x, h0, w):
    """StaticRNN over x [-1, batch, size]: h = tanh(x_t W + 0.5 h) from h0; outputs h and
    the step input doubled."""
    rnn = layers.StaticRNN()
    with rnn.step():
        word = rnn.step_input(x)
        prev = rnn.memory(init=h0)
        hidden = layers.tanh(layers.matmul(word, w) + prev * 0.5)
        rnn.update_memory(prev, hidden)
        rnn.step_output(hidden)
        rnn.step_output(word * 2.0)
    return rnn()


def _accumulate_numpy(x, h0, w):
    h, hs = h0, []
    for x_t in x:
        h = np.tanh(x_t @ w + 0.5 * h)
        hs.append(h)
    return np.stack(hs)


@pytest.mark.parametrize("steps", [1, 4])
def test_static_rnn_over_a_run_time_number_of_steps(steps):
    batch, size = 3, 2
    x = static.data("x", [-1, -1, size], "float32")
    h0 = static.data("h0", [-1, size], "float32")
    w = static.create_parameter([size, size], "float32", name="w")
    hidden, doubled = _accumulate_over_runtime_steps(x, h0, w)
    assert static.default_main_program().global_block().ops[-1].type == "while"
    x_np = RNG.randn(steps, batch, size).astype("float32")
    h0_np = RNG.randn(batch, size).astype("float32")
    got, got_doubled = _run([hidden, doubled], {"x": x_np, "h0": h0_np})
    np.testing.assert_allclose(got, _accumulate_numpy(x_np, h0_np, _value(w)), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(got_doubled, 2 * x_np, rtol=1e-6)


def test_static_rnn_run_time_steps_gradients_match_finite_differences():
    steps, batch, size = 3, 2, 2
    x = static.data("x", [-1, batch, size], "float32")
    h0 = static.data("h0", [batch, size], "float32")
    for v in (x, h0):
        v.stop_gradient = False
    w = static.create_parameter([size, size], "float32", name="w")
    hidden, _ = _accumulate_over_runtime_steps(x, h0, w)
    loss = layers.reduce_sum(hidden * hidden)
    grads = fluid.backward.gradients([loss], [x, h0, w])
    x_np = RNG.randn(steps, batch, size).astype("float32")
    h0_np = RNG.randn(batch, size).astype("float32")
    got = _run(grads, {"x": x_np, "h0": h0_np})
    w_np = _value(w).astype("float64")

    def loss_of(values):
        return float((_accumulate_numpy(*values) ** 2).sum())

    values = [x_np.astype("float64"), h0_np.astype("float64"), w_np]
    for which, grad in enumerate(got):
        numeric = np.zeros_like(values[which])
        for i in np.ndindex(numeric.shape):
            up = [v.copy() for v in values]
            down = [v.copy() for v in values]
            up[which][i] += 1e-5
            down[which][i] -= 1e-5
            numeric[i] = (loss_of(up) - loss_of(down)) / 2e-5
        np.testing.assert_allclose(grad, numeric, rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("impute_finished", [False, True])
def test_basic_decoder_with_training_helper(impute_finished):
    """With impute_finished a batch entry finished before a step keeps its state."""
    batch, steps, size, hidden = 2, 3, 2, 3
    x_np = RNG.randn(batch, steps, size).astype("float32")
    lengths = np.array([3, 1], "int64")
    x = static.data("x", [batch, steps, size], "float32")
    seq = static.data("len", [batch], "int64")
    cell = layers.GRUCell(hidden)
    decoder = layers.BasicDecoder(cell, layers.TrainingHelper(x, seq))
    outputs, final = layers.dynamic_decode(decoder, inits=cell.get_initial_states(x),
                                           max_step_num=steps - 1,
                                           impute_finished=impute_finished)
    got_out, got_ids, got_final = _run([outputs.cell_outputs, outputs.sample_ids, final],
                                       {"x": x_np, "len": lengths})
    h = np.zeros((batch, hidden), "float32")
    finished = lengths == 0
    for t in range(steps):
        new_h = _gru_step(x_np[:, t], h, *_gru_weights(cell))
        np.testing.assert_allclose(got_out[:, t], new_h, rtol=1e-5, atol=1e-6)
        np.testing.assert_array_equal(got_ids[:, t], new_h.argmax(-1))
        h = np.where(finished[:, None], h, new_h) if impute_finished else new_h
        finished |= lengths <= t + 1
    np.testing.assert_allclose(got_final, h, rtol=1e-5, atol=1e-6)


def test_tile_beam_merge_with_batch_with_dims_unknown_when_built():
    x = static.data("x", [-1, -1, 2], "float32")
    tiled = layers.BeamSearchDecoder.tile_beam_merge_with_batch(x, 3)
    x_np = RNG.randn(2, 4, 2).astype("float32")
    got, = _run([tiled], {"x": x_np})
    np.testing.assert_array_equal(got, np.repeat(x_np, 3, axis=0))


class _CountingCell(layers.RNNCell):
    """outputs = one-hot-ish logits favouring token (input + 1) % 4; state counts steps."""

    def call(self, inputs, states):
        logits = layers.one_hot(layers.unsqueeze(inputs, [1]), 4)
        first, last = layers.split(logits, [3, 1], dim=1)
        shifted = layers.concat([last, first], axis=1)
        return shifted, states + 1.0

    @property
    def state_shape(self):
        return [1]


def test_greedy_embedding_helper_decodes_and_finishes_at_end_token():
    start = static.data("start", [2], "int64")
    helper = layers.GreedyEmbeddingHelper(lambda ids: ids, start, end_token=3)
    cell = _CountingCell()
    decoder = layers.BasicDecoder(cell, helper)
    outputs, states, lengths = layers.dynamic_decode(
        decoder, inits=cell.get_initial_states(start, dtype="float32"), max_step_num=3,
        return_length=True)
    ids, got_lengths = _run([outputs.sample_ids, lengths],
                            {"start": np.array([0, 2], "int64")})
    np.testing.assert_array_equal(ids, [[1, 2, 3, 0], [3, 0, 1, 2]])
    np.testing.assert_array_equal(got_lengths, [3, 1])


def _beam_search(pre_ids, pre_scores, ids, scores, beam, accumulated=True):
    feeds = {"pre_ids": pre_ids, "pre_scores": pre_scores, "scores": scores}
    pi = static.data("pre_ids", list(pre_ids.shape), "int64")
    ps = static.data("pre_scores", list(pre_scores.shape), "float32")
    sc = static.data("scores", list(scores.shape), "float32")
    id_var = None
    if ids is not None:
        id_var = static.data("ids", list(ids.shape), "int64")
        feeds["ids"] = ids
    outs = layers.beam_search(pi, ps, id_var, sc, beam_size=beam, end_id=0,
                              is_accumulated=accumulated, return_parent_idx=True)
    return _run(list(outs), feeds)


def test_beam_search_hand_worked():
    # one batch entry, beam 2: row 0 is live, row 1 has finished (pre_id 0 = end_id)
    pre_ids = np.array([[5], [0]], "int64")
    pre_scores = np.array([[-1.0], [-1.5]], "float32")
    ids = np.array([[7, 8, 9], [4, 4, 4]], "int64")
    scores = np.array([[-2.0, -1.2, -3.0], [-0.1, -0.1, -0.1]], "float32")
    sel_ids, sel_scores, parents = _beam_search(pre_ids, pre_scores, ids, scores, 2)
    # candidates: (7,-2.0) (8,-1.2) (9,-3.0) from row 0, (end 0, -1.5) from row 1
    np.testing.assert_array_equal(sel_ids[:, 0], [8, 0])
    np.testing.assert_allclose(sel_scores[:, 0], [-1.2, -1.5])
    np.testing.assert_array_equal(parents, [0, 1])


def test_beam_search_probabilities_without_ids_two_entries():
    pre_ids = np.array([[1], [2], [3], [4]], "int64")
    pre_scores = np.log(np.array([[0.5], [0.25], [1.0], [1e-9]], "float32"))
    probs = np.array([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7], [0.6, 0.4]], "float32")
    sel_ids, sel_scores, parents = _beam_search(pre_ids, pre_scores, None, probs, 2,
                                                accumulated=False)
    # entry 0: 0.5*0.9=.45 (row 0, id 1), 0.25*0.8=.2 (row 1, id 0); entry 1: row 2 ids 1, 0
    np.testing.assert_array_equal(sel_ids[:, 0], [1, 0, 1, 0])
    np.testing.assert_array_equal(parents, [0, 1, 2, 2])
    np.testing.assert_allclose(np.exp(sel_scores[:, 0]), [0.45, 0.2, 0.7, 0.3], rtol=1e-5)


@pytest.mark.paddle("3")      # refimpl's own checks: 1.8 / 2.0 check fluid.layers as Paddle
def test_beam_search_decode_backtracks_and_sorts():
    steps_ids = [np.array([[3], [4]]), np.array([[0], [5]]), np.array([[0], [6]])]
    steps_scores = [np.array([[-1.0], [-2.0]]), np.array([[-1.5], [-2.2]]),
                    np.array([[-1.5], [-2.4]])]
    steps_parents = [np.array([0, 0]), np.array([0, 1]), np.array([0, 1])]
    datas = {}

    def feed(prefix, arrays, dtype):
        out = []
        for t, a in enumerate(arrays):
            name = "%s%d" % (prefix, t)
            datas[name] = a.astype(dtype)
            out.append(static.data(name, list(a.shape), dtype))
        return out
    ids = feed("i", steps_ids, "int64")
    scores = feed("s", steps_scores, "float32")
    parents = feed("p", steps_parents, "int32")
    sentence_ids, sentence_scores = layers.beam_search_decode(ids, scores, 2, 0,
                                                              parent_idx=parents)
    got_ids, got_scores = _run([sentence_ids, sentence_scores], datas)
    np.testing.assert_array_equal(got_ids, [[3, 0, 0], [4, 5, 6]])
    np.testing.assert_allclose(got_scores, [[-1.0, -1.5, 0.0], [-2.0, -2.2, -2.4]])


@pytest.mark.paddle("3")      # refimpl's own checks: 1.8 / 2.0 check fluid.layers as Paddle
def test_beam_search_decode_needs_lod_steps_or_parents():
    ids = static.data("ids", [2, 4], "int64")
    with pytest.raises(TypeError, match="tensor array .* give parent_idx"):
        layers.beam_search_decode(ids, ids, 2, 0)


def test_beam_search_rejects_rows_not_a_multiple_of_beam_size():
    pi = static.data("pre_ids", [3, 1], "int64")
    ps = static.data("pre_scores", [3, 1], "float32")
    sc = static.data("scores", [3, 4], "float32")
    with pytest.raises(Exception, match="batch \\* beam_size"):
        layers.beam_search(pi, ps, None, sc, beam_size=2, end_id=0)


# -- DynamicRNN
LENS = [3, 1, 2]


def _numpy_drnn(x, boot):
    """h_t = tanh(x_t + 0.5 h_{t-1}) per sequence; outputs (h_t, h_{t-1}) packed."""
    hs, prevs, start = [], [], 0
    for i, n in enumerate(LENS):
        h = boot[i]
        for row in x[start:start + n]:
            prevs.append(h)
            h = np.tanh(row + 0.5 * h)
            hs.append(h)
        start += n
    return np.array(hs), np.array(prevs)


def _build_drnn(x, init=None, max_len=3, need_reorder=False):
    drnn = layers.DynamicRNN(max_len=max_len)
    with drnn.block():
        word = drnn.step_input(x)
        prev = drnn.memory(init=init, need_reorder=need_reorder) if init is not None else \
            drnn.memory(shape=[2], value=0.3, dtype=x.dtype)
        hidden = layers.tanh(word + prev * 0.5)
        drnn.update_memory(prev, hidden)
        drnn.output(hidden, prev)
    return drnn()


def test_dynamic_rnn_methods_only_inside_its_one_block():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = fluid.data("x", [None, 2], "float32", lod_level=1)
        drnn = layers.DynamicRNN()
        with pytest.raises(ValueError, match="step_input can only be invoked inside"):
            drnn.step_input(x)              # before the block
        with pytest.raises(ValueError, match="after its `with drnn.block"):
            drnn()
        with drnn.block():
            drnn.output(layers.scale(drnn.step_input(x), 2.0))
        with pytest.raises(ValueError, match="output can only be invoked inside"):
            drnn.output(x)                  # after it
        with pytest.raises(ValueError, match="exactly one block"):
            with drnn.block():
                pass
        assert drnn().lod_level == 1


# Paddle orders the steps' sequences by length (longest first): with need_reorder=False
# the init rows go to the sequences in that order, so sequence i starts from row RANK[i]
RANK = [0, 2, 1]


@pytest.mark.parametrize("max_len", [None, 3])
@pytest.mark.parametrize("init", ["none", "ranked", "reordered"])
def test_dynamic_rnn_matches_a_numpy_recurrence(init, max_len):
    """Without max_len the steps run in a while op, with it they are unrolled: the same."""
    x = static.data("x", [-1, 2], "float64", lod_level=1)
    boot = static.data("boot", [3, 2], "float64") if init != "none" else None
    out, prev = _build_drnn(x, boot, max_len=max_len, need_reorder=init == "reordered")
    rows = RNG.randn(6, 2)
    # memory(value=0.3): a fill_constant_batch_size_like, whose value is a 32-bit FLOAT (a
    # double under Paddle 3's PIR: specs/ops/README.md "FLOAT attributes")
    value = round_float32_attrs(get_op_def("fill_constant_batch_size_like"), {"value": 0.3})
    boot_value = RNG.randn(3, 2) if boot is not None else np.full((3, 2), value["value"])
    feed = {"x": (rows, [LENS])}
    if boot is not None:
        feed["boot"] = boot_value
    got_out, got_prev = _run([out, prev], feed, return_numpy=False)
    want_out, want_prev = _numpy_drnn(rows, boot_value[RANK] if init == "ranked"
                                      else boot_value)
    np.testing.assert_allclose(np.array(got_out), want_out, rtol=1e-12)
    np.testing.assert_allclose(np.array(got_prev), want_prev, rtol=1e-12)
    assert got_out.recursive_sequence_lengths() == [LENS]


@pytest.mark.parametrize("max_len", [None, 3])
def test_dynamic_rnn_gradient_reaches_the_input(max_len):
    x = static.data("x", [-1, 2], "float64", lod_level=1)
    x.stop_gradient = False
    out, _ = _build_drnn(x, max_len=max_len)
    (dx,) = static.gradients([layers.reduce_sum(out)], [x])
    rows = RNG.randn(6, 2)
    (got,) = _run([dx], {"x": (rows, [LENS])}, return_numpy=False)
    got = np.array(got)
    eps, numeric = 1e-6, np.zeros_like(rows)
    for idx in np.ndindex(*rows.shape):
        bumped = rows.copy()
        bumped[idx] += eps
        numeric[idx] = (_numpy_drnn(bumped, np.full((3, 2), 0.3))[0].sum()
                        - _numpy_drnn(rows, np.full((3, 2), 0.3))[0].sum()) / eps
    np.testing.assert_allclose(got, numeric, rtol=1e-4, atol=1e-6)


def test_dynamic_rnn_sequences_longer_than_max_len_fail_at_run_time():
    x = static.data("x", [-1, 2], "float64", lod_level=1)
    out, _ = _build_drnn(x, max_len=2)
    with pytest.raises(Exception, match="padded_length 2 is shorter"):
        _run([out], {"x": (RNG.randn(6, 2), [LENS])})


@pytest.mark.parametrize("max_len", [None, 3])
def test_dynamic_rnn_static_input_only_inside_its_block(max_len):
    # Paddle 1.8.5: ValueError "static_input can only be invoked inside rnn block." before
    # and after the block, as for its other methods; the unrolled (max_len) steps too
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = fluid.data("x", [None, 2], "float32", lod_level=1)
        drnn = layers.DynamicRNN(max_len=max_len)
        for method, args in (("static_input", (x,)), ("step_input", (x,)), ("memory", ()),
                             ("output", (x,))):
            with pytest.raises(ValueError, match="DynamicRNN.%s can only be invoked inside"
                                                 % method):
                getattr(drnn, method)(*args)
        with drnn.block():
            word = drnn.step_input(x)
            drnn.output(word + drnn.static_input(x))
        with pytest.raises(ValueError, match="static_input can only be invoked inside"):
            drnn.static_input(x)
        assert drnn().lod_level == 1


def test_beam_search_reads_pre_ids_flat_as_paddle_18():
    """Paddle 1.8.5 (its test_beam_search_op, run through fluid.op.Operator): pre_ids and
    pre_scores given as [1, 4], scores [4, 3] with LoD [[0, 2, 4], [0, 1, 2, 3, 4]]."""
    from refimpl.fluid import core
    from refimpl.fluid.op import Operator
    scope, place = core.Scope(), core.CPUPlace()
    lod = [[0, 2, 4], [0, 1, 2, 3, 4]]
    for name, value, with_lod in (
            ("pre_ids", np.array([[1, 2, 3, 4]], "int64"), False),
            ("pre_scores", np.array([[0.1, 0.2, 0.3, 0.4]], "float32"), False),
            ("ids", np.array([[4, 2, 5], [2, 1, 3], [3, 5, 2], [8, 2, 1]], "int64"), True),
            ("scores", np.array([[0.5, 0.3, 0.2], [0.6, 0.3, 0.1], [0.9, 0.5, 0.1],
                                 [0.7, 0.5, 0.1]], "float32"), True)):
        t = scope.var(name).get_tensor()
        t.set(value, place)
        if with_lod:
            t.set_lod(lod)
    Operator("beam_search", pre_ids="pre_ids", pre_scores="pre_scores", ids="ids",
             scores="scores", selected_ids="selected_ids",
             selected_scores="selected_scores", parent_idx="parent_idx", level=0,
             beam_size=2, end_id=0).run(scope, place)
    selected = scope.find_var("selected_ids").get_tensor()
    np.testing.assert_array_equal(np.array(selected)[:, 0], [4, 2, 3, 8])
    np.testing.assert_allclose(
        np.array(scope.find_var("selected_scores").get_tensor())[:, 0], [0.5, 0.6, 0.9, 0.7])
    np.testing.assert_array_equal(np.array(scope.find_var("parent_idx").get_tensor()),
                                  [0, 1, 2, 3])
    assert selected.lod() == [[0, 2, 4], [0, 1, 2, 3, 4]]
    with pytest.raises(TypeError, match="core has no DynamicRecurrentOp"):
        from refimpl.fluid.op import DynamicRecurrentOp
        DynamicRecurrentOp()


@pytest.mark.skipif(versions.switch("fluid_layer_checks") == "1.8",
                    reason="float64 for the finite differences: Paddle 1.8.5's sequence_pool "
                           "takes float32 only (switch fluid_layer_checks)")
def test_dynamic_rnn_static_input_gradient_keeps_its_lod():
    """A LoD tensor read in every step (static_input, a while op's outer input): its
    gradient is the per-step gradients summed (finite differences) and carries its LoD,
    as in Paddle 1.8.5 (test_dynrnn_static_input)."""
    x = static.data("x", [-1, 2], "float64", lod_level=1)
    memo = static.data("memo", [-1, 2], "float64", lod_level=1)
    memo.stop_gradient = False
    drnn = layers.DynamicRNN()
    with drnn.block():
        word = drnn.step_input(x)
        last = layers.sequence_pool(drnn.static_input(memo), "last")
        drnn.output(layers.tanh(word * last))
    loss = layers.reduce_sum(drnn())
    (dmemo,) = static.gradients([loss], [memo])
    rows, memo_rows = RNG.randn(6, 2), RNG.randn(5, 2)
    memo_lens = [2, 1, 2]

    def run(m):
        return _run([loss, dmemo], {"x": (rows, [LENS]), "memo": (m, [memo_lens])},
                    return_numpy=False)
    value, grad = run(memo_rows)
    assert grad.recursive_sequence_lengths() == [memo_lens]
    numeric = central_differences(lambda m: np.array(run(m)[0]).sum(), memo_rows)
    np.testing.assert_allclose(np.array(grad), numeric, rtol=1e-5, atol=1e-8)


def test_dynamic_rnn_steps_shrink_to_the_running_sequences_as_paddle_18():
    """Paddle 1.8.5's DynamicRNN (its values, recorded): step t sees the sequences longer
    than t, longest first (a static input reordered and shrunk with them, its LoD per
    step), memories from init (need_reorder) and from a value, outputs and gradients
    back in batch order with the step input's LoD."""
    rng = np.random.RandomState(7)
    xv, sv = rng.uniform(-1, 1, (6, 2)), rng.uniform(-1, 1, (6, 2))
    bv = rng.uniform(-1, 1, (3, 2))
    x = layers.data("x", [2], dtype="float32", lod_level=1)
    s = layers.data("s", [2], dtype="float32", lod_level=1)
    boot = layers.data("boot", [2], dtype="float32")
    for v in (x, s, boot):
        v.stop_gradient = False
    steps = layers.create_array("float32")
    drnn = layers.DynamicRNN()
    with drnn.block():
        word = drnn.step_input(x)
        memo = drnn.static_input(s)
        layers.array_write(memo, drnn.step_idx, steps)
        mem = drnn.memory(init=boot, need_reorder=True)
        mem2 = drnn.memory(shape=[2], value=0.5)
        h = layers.tanh(word + mem * 0.5 + layers.sequence_pool(memo, "last") * mem2)
        drnn.update_memory(mem, h)
        drnn.update_memory(mem2, h * 0.3 + mem2)
        drnn.output(h, mem2)
    out, kept = drnn()
    assert (word.lod_level, memo.lod_level, out.lod_level) == (0, 1, 1)
    weights = layers.assign(np.arange(12, dtype="float32").reshape(6, 2) / 10.0)
    loss = layers.reduce_sum(out * weights) + layers.reduce_sum(kept)
    grads = fluid.gradients([loss], [x, s, boot])
    step_memos = [layers.array_read(steps, layers.fill_constant([1], "int64", t))
                  for t in range(3)]
    got = _run([out, kept, loss] + grads + step_memos,
               {"x": (xv.astype("float32"), [[2, 1, 3]]),
                "s": (sv.astype("float32"), [[1, 2, 3]]), "boot": bv.astype("float32")},
               return_numpy=False)
    want = {
        "out": [[-0.5059818, -0.23649353], [-0.42933926, -0.04376014],
                [0.59976304, 0.27246594], [-0.09812617, -0.6856262],
                [-0.6445996, -0.30453056], [-0.11286737, 0.442146]],
        "kept": [[0.5, 0.5], [0.34820545, 0.42905194], [0.5, 0.5], [0.5, 0.5],
                 [0.47056216, 0.29431212], [0.27718228, 0.20295295]],
        "loss": [4.3206816],
        "dx": [[0.27520898, 0.44534743], [0.16313356, 0.2994255], [0.25611374, 0.46288115],
               [1.3109236, 1.1268886], [0.8380868, 1.5135163], [0.98726094, 0.8849576]],
        "ds": [[0.19440848, 0.35114282], [0, 0], [0.12805687, 0.23144057], [0, 0], [0, 0],
               [1.3234849, 1.1884953]],
        "dboot": [[0.13760449, 0.22267371], [0.12805687, 0.23144057],
                  [0.6554618, 0.5634443]]}
    for (name, value), result in zip(want.items(), got):
        np.testing.assert_allclose(np.array(result), value, rtol=1e-5, atol=1e-6,
                                   err_msg=name)
    lods = [r.recursive_sequence_lengths() for r in got]
    assert lods[:2] == [[[2, 1, 3]]] * 2 and lods[3:5] == [[[2, 1, 3]], [[1, 2, 3]]]
    # the static input per step: sequences 2, 0, 1 (longest first), then the running ones
    ranked = np.concatenate([sv[3:6], sv[0:1], sv[1:3]])
    for t, (rows, lod) in enumerate([(6, [3, 1, 2]), (4, [3, 1]), (3, [3])]):
        np.testing.assert_allclose(np.array(got[6 + t]), ranked[:rows], rtol=1e-6)
        assert lods[6 + t] == [lod]


def test_dynamic_rnn_steps_of_a_two_level_lod_carry_the_lower_level():
    """A step input of a 2-level LoD input is each sequence's t-th sub-sequence, with its
    LoD (Paddle 1.8.5: rows [0, 1, 4, 5], LoD [[2, 2]] at step 0; lod_level 1)."""
    x = layers.data("x", [1], dtype="int64", lod_level=2)
    firsts = layers.create_array("int64")
    drnn = layers.DynamicRNN()
    with drnn.block():
        word = drnn.step_input(x)
        layers.array_write(word, drnn.step_idx, firsts)
        drnn.output(layers.sequence_pool(layers.cast(word, "float32"), "sum"))
    assert word.lod_level == 1
    first = layers.array_read(firsts, layers.fill_constant([1], "int64", 0))
    step0, sums = _run([first, drnn()], {"x": (np.arange(8).reshape(8, 1),
                                               [[2, 2], [2, 2, 2, 2]])},
                       return_numpy=False)
    np.testing.assert_array_equal(np.array(step0).ravel(), [0, 1, 4, 5])
    assert step0.recursive_sequence_lengths() == [[2, 2]]
    np.testing.assert_allclose(np.array(sums).ravel(), [1, 5, 9, 13])
    assert sums.recursive_sequence_lengths() == [[2, 2]]
