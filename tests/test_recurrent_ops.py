"""Whole-sequence recurrent layers, linear-chain CRF and the extra sequence layers
(specs/ops/sequence.md): values against step-by-step numpy references written here, on
the ragged batch of lengths [3, 1, 2]."""
import itertools

import numpy as np
import pytest

from refimpl import fluid
from refimpl.framework.program import Program, program_guard
from refimpl.framework.scope import Scope
from refimpl.ops.lstm import LSTM
from refimpl.ops.lstmp import ATTRS as LSTMP_ATTRS, LSTMP
from helpers import (build_and_run_rows, build_programs as _build, central_differences,
                     run_programs as _run)

LENS = [3, 1, 2]
RNG = np.random.RandomState(7)


def _lod(x, lens=LENS):
    return fluid.create_lod_tensor(x, [list(lens)], fluid.CPUPlace())


def _attr(value):
    return fluid.ParamAttr(initializer=fluid.initializer.NumpyArrayInitializer(value))


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def _sequences(x, lens=LENS):
    off = np.cumsum([0] + list(lens))
    return [x[a:b] for a, b in zip(off[:-1], off[1:])]


def _lstm_reference(x, w, b, lens, reverse, peepholes, h0=None, c0=None):
    """One sequence at a time, one step at a time; gates laid out (c, i, f, o)."""
    d = w.shape[0]
    hidden, cell = [], []
    for n, seq in enumerate(_sequences(x, lens)):
        h = np.zeros(d) if h0 is None else h0[n]
        c = np.zeros(d) if c0 is None else c0[n]
        hs, cs = [], []
        for row in (seq[::-1] if reverse else seq):
            g = row + h @ w + b[0, :4 * d]
            w_ic, w_fc, w_oc = (b[0, 4 * d:5 * d], b[0, 5 * d:6 * d], b[0, 6 * d:]) \
                if peepholes else (0, 0, 0)
            i = _sigmoid(g[d:2 * d] + w_ic * c)
            f = _sigmoid(g[2 * d:3 * d] + w_fc * c)
            c = f * c + i * np.tanh(g[:d])
            o = _sigmoid(g[3 * d:] + w_oc * c)
            h = o * np.tanh(c)
            hs.append(h)
            cs.append(c)
        if reverse:
            hs, cs = hs[::-1], cs[::-1]
        hidden += hs
        cell += cs
    return np.array(hidden), np.array(cell)


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("peepholes", [True, False])
def test_dynamic_lstm_matches_a_step_by_step_reference(reverse, peepholes):
    d = 3
    x = RNG.uniform(-1, 1, (6, 4 * d)).astype(np.float32)
    w = RNG.uniform(-1, 1, (d, 4 * d)).astype(np.float32)
    b = RNG.uniform(-1, 1, (1, (7 if peepholes else 4) * d)).astype(np.float32)
    h0, c0 = RNG.uniform(-1, 1, (2, 3, d)).astype(np.float32)

    def build():
        v = fluid.data("x", [-1, 4 * d], "float32", lod_level=1)
        init_h, init_c = fluid.data("h0", [3, d]), fluid.data("c0", [3, d])
        hidden, cell = fluid.layers.dynamic_lstm(v, 4 * d, init_h, init_c, param_attr=_attr(w),
                                                 bias_attr=_attr(b), use_peepholes=peepholes,
                                                 is_reverse=reverse)
        pooled = fluid.layers.sequence_last_step(hidden)  # the lengths travel along
        return [hidden, cell, pooled]
    hidden, cell, pooled = build_and_run_rows(build, {"x": _lod(x), "h0": h0, "c0": c0})
    ref_h, ref_c = _lstm_reference(x, w, b, LENS, reverse, peepholes, h0, c0)
    np.testing.assert_allclose(hidden, ref_h, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(cell, ref_c, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(pooled, [s[-1] for s in _sequences(ref_h)], rtol=1e-5, atol=1e-6)


def _gru_reference(x, w, b, lens, reverse, origin_mode):
    d = w.shape[0]
    w_ur, w_c = w.reshape(-1)[:2 * d * d].reshape(d, 2 * d), w.reshape(-1)[2 * d * d:].reshape(d, d)
    out = []
    for seq in _sequences(x, lens):
        h, hs = np.zeros(d), []
        for row in (seq[::-1] if reverse else seq):
            ur = _sigmoid(row[:2 * d] + b[0, :2 * d] + h @ w_ur)
            u, r = ur[:d], ur[d:]
            c = np.tanh(row[2 * d:] + b[0, 2 * d:] + (r * h) @ w_c)
            h = u * h + (1 - u) * c if origin_mode else (1 - u) * h + u * c
            hs.append(h)
        out += hs[::-1] if reverse else hs
    return np.array(out)


@pytest.mark.parametrize("reverse,origin_mode", [(False, False), (True, True)])
def test_dynamic_gru_matches_a_step_by_step_reference(reverse, origin_mode):
    d = 2
    x = RNG.uniform(-1, 1, (6, 3 * d)).astype(np.float32)
    w = RNG.uniform(-1, 1, (d, 3 * d)).astype(np.float32)
    b = RNG.uniform(-1, 1, (1, 3 * d)).astype(np.float32)

    def build():
        v = fluid.data("x", [-1, 3 * d], "float32", lod_level=1)
        return [fluid.layers.dynamic_gru(v, d, param_attr=_attr(w), bias_attr=_attr(b),
                                         is_reverse=reverse, origin_mode=origin_mode)]
    hidden, = build_and_run_rows(build, {"x": _lod(x)})
    np.testing.assert_allclose(hidden, _gru_reference(x, w, b, LENS, reverse, origin_mode),
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("reverse", [False, True])
def test_gru_batch_outputs_use_paddle_batch_layout(reverse):
    """BatchGate / BatchResetHiddenPrev / BatchHidden: step after step, the running
    sequences longest first (Paddle 1.8.5's test_gru_op checks them)."""
    from refimpl.ops.gru import GRU
    from refimpl.ops.gru_unit import GRUUnit
    rng, d = np.random.RandomState(8), 2
    lens = np.array([2, 4, 3])                      # rows 0-1, 2-5, 6-8
    x, w = rng.uniform(-1, 1, (9, 3 * d)), rng.uniform(-1, 1, (d, 3 * d))
    h0 = rng.uniform(-1, 1, (3, d))
    hidden, gate, reset_h, batch_h = GRU.forward(
        x, h0, w, None, lens, activation="tanh", gate_activation="sigmoid",
        is_reverse=reverse, origin_mode=False)
    # longest first at every step: sequences 1, 2, 0, then 1, 2, then 1
    step_rows = [[2, 6, 0], [3, 7, 1], [4, 8], [5]] if not reverse else \
        [[5, 8, 1], [4, 7, 0], [3, 6], [2]]
    np.testing.assert_array_equal(batch_h, hidden[sum(step_rows, [])])
    h_prev, start = h0[[1, 2, 0]], 0
    for rows in step_rows:
        g, r_h, h = GRUUnit.forward(x[rows], h_prev[:len(rows)], w)
        np.testing.assert_allclose(gate[start:start + len(rows)], g, rtol=1e-12)
        np.testing.assert_allclose(reset_h[start:start + len(rows)], r_h, rtol=1e-12)
        h_prev, start = h, start + len(rows)


def test_whole_sequence_kernels_clip_the_sigmoid_input_at_13_as_paddle():
    """gru / lstm gates saturate at sigmoid(13) (Paddle's math/detail activations; 1.8.5's
    test_gru_op sees the 2.3e-6 when a gate's input passes 13); gru_unit's does not."""
    from refimpl.ops.gru import GRU
    from refimpl.ops.gru_unit import GRUUnit
    d = 2
    x, w = np.zeros((1, 3 * d)), np.zeros((d, 3 * d))
    bias = np.array([[30.0] * (2 * d) + [0.5] * d])          # u, r inputs 30; c input 0.5
    hidden, gate, _, _ = GRU.forward(x, np.ones((1, d)), w, bias, np.array([1]),
                                     activation="tanh", gate_activation="sigmoid",
                                     is_reverse=False, origin_mode=False)
    u = 1 / (1 + np.exp(-13.0))
    np.testing.assert_allclose(gate[0, :2 * d], u, rtol=1e-15)
    np.testing.assert_allclose(hidden[0], u * (np.tanh(0.5) - 1) + 1, rtol=1e-15)
    plain_gate = GRUUnit.forward(x, np.ones((1, d)), w, bias)[0]
    np.testing.assert_allclose(plain_gate[0, :2 * d], 1 / (1 + np.exp(-30.0)), rtol=1e-15)
    lstm_bias = np.array([[0.0] * d + [30.0] * (3 * d)])    # candidate 0; i, f, o inputs 30
    _, cell, _, _ = LSTM.forward(np.zeros((1, 4 * d)), None, np.ones((1, d)),
                                 np.zeros((d, 4 * d)), lstm_bias, np.array([1]),
                                 use_peepholes=False, is_reverse=False,
                                 gate_activation="sigmoid", cell_activation="tanh",
                                 candidate_activation="tanh")
    np.testing.assert_allclose(cell[0], u * 1.0, rtol=1e-15)       # f * c0 + i * tanh(0)


def test_recurrent_layers_reject_bad_arguments():
    with program_guard(Program(), Program()):
        v = fluid.data("x", [-1, 8], "float32", lod_level=1)
        with pytest.raises(ValueError, match="dynamic_lstm: size must be a multiple of 4"):
            fluid.layers.dynamic_lstm(v, 6)
        with pytest.raises(ValueError, match="gate_activation must be one of"):
            fluid.layers.dynamic_gru(v, 2, gate_activation="softsign")
        with pytest.raises(Exception, match=r"Input .*expected packed rows \[total, 12\]"):
            fluid.layers.dynamic_lstm(v, 12)
    with pytest.raises(Exception, match="lstm.*input Input 'p' carries no LoD"):
        build_and_run_rows(lambda: fluid.layers.dynamic_lstm(
            fluid.data("p", [-1, 8], "float32"), 8), {"p": np.ones((3, 8), np.float32)})


def _crf_cost_by_enumeration(x, y, trans):
    """-log p(y | x) with the partition function summed over every tag path."""
    def score(path):
        return (trans[0, path[0]] + trans[1, path[-1]] + sum(x[k, t] for k, t in enumerate(path))
                + sum(trans[2 + a, b] for a, b in zip(path[:-1], path[1:])))
    log_z = np.log(sum(np.exp(score(p)) for p in itertools.product(range(x.shape[1]),
                                                                    repeat=len(x))))
    return log_z - score(y)


def _crf_program(x, labels, trans, lens, padded):
    tags = x.shape[-1]

    def build():
        if padded:
            e = fluid.data("e", [-1, max(lens), tags], "float64")
            lab = fluid.data("y", [-1, max(lens), 1], "int64")
            n = fluid.data("n", [-1], "int64")
            cost = fluid.layers.linear_chain_crf(e, lab, _attr(trans), length=n)
        else:
            e = fluid.data("e", [-1, tags], "float64", lod_level=1)
            e.stop_gradient = False
            lab = fluid.data("y", [-1, 1], "int64", lod_level=1)
            cost = fluid.layers.linear_chain_crf(e, lab, _attr(trans))
        if padded:
            return [cost]
        loss = fluid.layers.reduce_sum(cost)
        (_, dtrans), = fluid.backward.append_backward(loss)
        return [cost, dtrans, loss.block.var(e.name + "@GRAD")]
    return build


def test_linear_chain_crf_matches_brute_force_enumeration():
    tags, lens = 3, [3, 1, 2]
    x = RNG.uniform(-1, 1, (6, tags))
    labels = RNG.randint(0, tags, (6, 1)).astype(np.int64)
    trans = RNG.uniform(-1, 1, (tags + 2, tags))
    expect = [_crf_cost_by_enumeration(xs, ys[:, 0], trans)
              for xs, ys in zip(_sequences(x, lens), _sequences(labels, lens))]
    cost, *_ = build_and_run_rows(_crf_program(x, labels, trans, lens, False),
                    {"e": _lod(x, lens), "y": _lod(labels, lens)})
    np.testing.assert_allclose(cost[:, 0], expect, rtol=1e-10)
    # Paddle's padded form gives the same costs
    pad_x, pad_y = np.zeros((3, 3, tags)), np.zeros((3, 3, 1), np.int64)
    for i, (xs, ys) in enumerate(zip(_sequences(x, lens), _sequences(labels, lens))):
        pad_x[i, :len(xs)], pad_y[i, :len(ys)] = xs, ys
    padded, = build_and_run_rows(_crf_program(x, labels, trans, lens, True),
                   {"e": pad_x, "y": pad_y, "n": np.array(lens, np.int64)})
    np.testing.assert_allclose(padded[:, 0], expect, rtol=1e-10)


def test_linear_chain_crf_gradients_match_finite_differences_of_the_enumeration():
    tags, lens = 2, [3, 1, 2]
    x = RNG.uniform(-1, 1, (6, tags))
    labels = RNG.randint(0, tags, (6, 1)).astype(np.int64)
    trans = RNG.uniform(-1, 1, (tags + 2, tags))

    def total(xv, tv):
        return sum(_crf_cost_by_enumeration(xs, ys[:, 0], tv)
                   for xs, ys in zip(_sequences(xv, lens), _sequences(labels, lens)))

    _, dtrans, dx = build_and_run_rows(_crf_program(x, labels, trans, lens, False),
                         {"e": _lod(x, lens), "y": _lod(labels, lens)})
    np.testing.assert_allclose(dx, central_differences(lambda v: total(v, trans), x), atol=1e-7)
    np.testing.assert_allclose(dtrans, central_differences(lambda v: total(x, v), trans), atol=1e-7)


def _pool_sums(build_seq, feed):
    """Run the sequence build_seq() makes and its per-sequence sums (its lengths at work)."""
    def build():
        seq = build_seq()
        return [seq, fluid.layers.sequence_pool(seq, "sum")]
    return build_and_run_rows(build, feed)


def test_sequence_conv_matches_windows_within_each_sequence():
    x = RNG.uniform(-1, 1, (6, 2)).astype(np.float32)
    w = RNG.uniform(-1, 1, (6, 4)).astype(np.float32)
    b = RNG.uniform(-1, 1, (4,)).astype(np.float32)

    def build():
        v = fluid.data("x", [-1, 2], "float32", lod_level=1)
        return [fluid.layers.sequence_conv(v, 4, 3, param_attr=_attr(w), bias_attr=_attr(b),
                                           act="tanh")]
    out, = build_and_run_rows(build, {"x": _lod(x)})
    expect = []
    for seq in _sequences(x):
        padded = np.concatenate([np.zeros((1, 2)), seq, np.zeros((1, 2))])
        expect += [np.tanh(padded[k:k + 3].reshape(-1) @ w + b) for k in range(len(seq))]
    np.testing.assert_allclose(out, expect, rtol=1e-5, atol=1e-6)


def test_sequence_enumerate_reshape_and_scatter():
    ids = np.array([[1], [2], [3], [4], [5], [6]], np.int64)

    def build():
        v = fluid.data("ids", [-1, 1], "int64", lod_level=1)
        return [fluid.layers.sequence_enumerate(v, 2, pad_value=0)]
    windows, = build_and_run_rows(build, {"ids": _lod(ids)})
    np.testing.assert_array_equal(windows, [[1, 2], [2, 3], [3, 0], [4, 0], [5, 6], [6, 0]])

    x = np.arange(24, dtype=np.float32).reshape(6, 4)
    rows, sums = _pool_sums(lambda: fluid.layers.sequence_reshape(
        fluid.data("x", [-1, 4], "float32", lod_level=1), 2), {"x": _lod(x)})
    np.testing.assert_array_equal(rows, x.reshape(12, 2))
    np.testing.assert_array_equal(sums, [x[:3].reshape(6, 2).sum(0), x[3].reshape(2, 2).sum(0),
                                         x[4:].reshape(4, 2).sum(0)])

    base = np.ones((3, 5), np.float32)
    upd = np.array([[0.5], [1.0], [2.0], [3.0], [4.0], [5.0]], np.float32)
    ids = np.array([[0], [4], [0], [2], [1], [1]], np.int64)

    def build_scatter():
        index = fluid.data("i", [-1, 1], "int64", lod_level=1)
        updates = fluid.data("u", [-1, 1], "float32")
        return [fluid.layers.sequence_scatter(fluid.data("b", [3, 5]), index, updates)]
    out, = build_and_run_rows(build_scatter, {"b": base, "i": _lod(ids), "u": upd})
    expect = base.copy()
    expect[0, 0] += 0.5 + 2.0
    expect[0, 4] += 1.0
    expect[1, 2] += 3.0
    expect[2, 1] += 4.0 + 5.0
    np.testing.assert_array_equal(out, expect)


def test_lod_reset_append_and_reorder_by_rank():
    x = np.arange(6, dtype=np.float32).reshape(6, 1)
    data = lambda: fluid.data("x", [-1, 1], "float32", lod_level=1)  # noqa: E731
    _, sums = _pool_sums(lambda: fluid.layers.lod_reset(data(), target_lod=[0, 4, 6]),
                         {"x": _lod(x)})
    np.testing.assert_array_equal(sums[:, 0], [6, 9])
    _, sums = _pool_sums(lambda: fluid.layers.lod_append(data(), [0, 1, 1, 6]),
                         {"x": _lod(x)})
    np.testing.assert_array_equal(sums[:, 0], [0, 0, 15])
    _, sums = _pool_sums(lambda: fluid.layers.lod_reset(
        data(), fluid.data("y", [-1, 1], "float32", lod_level=1)),
        {"x": _lod(x), "y": _lod(np.zeros((6, 1), np.float32), [2, 2, 2])})
    np.testing.assert_array_equal(sums[:, 0], [1, 5, 9])

    def reorder():
        ranked = fluid.data("r", [-1, 1], "float32", lod_level=1)
        return fluid.layers.reorder_lod_tensor_by_rank(data(), fluid.layers.lod_rank_table(ranked))
    rows, sums = _pool_sums(reorder, {"x": _lod(x), "r": _lod(np.zeros((6, 1), np.float32))})
    # ranked longest first: sequences 0 (3 rows), 2 (2 rows), 1 (1 row)
    np.testing.assert_array_equal(rows[:, 0], [0, 1, 2, 4, 5, 3])
    np.testing.assert_array_equal(sums[:, 0], [3, 9, 3])
    with program_guard(Program(), Program()):
        with pytest.raises(ValueError, match="lod_reset: give y or target_lod"):
            fluid.layers.lod_reset(fluid.data("x", [-1, 1]))
    with pytest.raises(Exception, match="offsets starting at 0"):
        build_and_run_rows(lambda: [fluid.layers.lod_reset(data(), target_lod=[0, 4])], {"x": _lod(x)})


def test_im2sequence_makes_one_sequence_of_patches_per_image():
    img = RNG.uniform(-1, 1, (2, 2, 3, 4)).astype(np.float32)
    rows, sums = _pool_sums(lambda: fluid.layers.im2sequence(
        fluid.data("img", [-1, 2, 3, 4]), filter_size=[2, 2], stride=[1, 2]), {"img": img})
    expect = [img[n, :, i:i + 2, j:j + 2].reshape(-1)
              for n in range(2) for i in range(2) for j in (0, 2)]
    np.testing.assert_allclose(rows, expect, rtol=1e-6)
    np.testing.assert_allclose(sums, [np.sum(expect[:4], 0), np.sum(expect[4:], 0)], rtol=1e-5)


def _im2sequence_with_real_sizes(n, sizes):
    main, startup = Program(), Program()
    with program_guard(main, startup):
        x = fluid.data("x", [None, 1, 3, 4], "float32")
        x.stop_gradient = False
        y = fluid.data("y", [None, 2], "float32")
        out = fluid.layers.im2sequence(x, filter_size=[2, 2], input_image_size=y, out_stride=1)
        grad = fluid.gradients([fluid.layers.reduce_sum(out * out)], [x])[0]
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    xv = np.arange(n * 12, dtype="float32").reshape(n, 1, 3, 4) + 1
    rows, dx = exe.run(main, feed={"x": xv, "y": np.array(sizes, "float32")},
                       fetch_list=[out, grad], return_numpy=False)
    return np.array(rows), rows.lod(), np.array(dx)


def test_im2sequence_real_sizes_as_paddle_1_8():
    """input_image_size: Paddle 1.8.5's rows (measured). One image ignores it; with two,
    image 0 (real 2 x 3) has 1 x 2 windows, image 1 (5 x 4) 4 x 3 windows reading zeros
    past X's 3 x 4."""
    rows, lod, dx = _im2sequence_with_real_sizes(1, [[2, 3]])
    assert lod == [[0, 6]]
    np.testing.assert_array_equal(rows[:3], [[1, 2, 5, 6], [2, 3, 6, 7], [3, 4, 7, 8]])
    # the gradient of sum(out^2): 2 x each pixel's value x the windows holding it
    np.testing.assert_array_equal(dx, [[[[2, 8, 12, 8], [20, 48, 56, 32], [18, 40, 44, 24]]]])
    rows, lod, dx = _im2sequence_with_real_sizes(2, [[2, 3], [5, 4]])
    assert lod == [[0, 2, 14]]
    np.testing.assert_array_equal(rows, [
        [1, 2, 5, 6], [2, 3, 6, 7], [13, 14, 17, 18], [14, 15, 18, 19], [15, 16, 19, 20],
        [17, 18, 21, 22], [18, 19, 22, 23], [19, 20, 23, 24], [21, 22, 0, 0], [22, 23, 0, 0],
        [23, 24, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]])
    # the adjoint of these rows (Paddle 1.8.5's grad kernel reads Out@GRAD as if every
    # image had X's 2 x 3 windows, which these rows are not: specs/ops/sequence.md)
    x = np.arange(24.0).reshape(2, 1, 3, 4) + 1
    np.testing.assert_array_equal(dx[0, 0], 2 * x[0, 0] * [[1, 2, 1, 0], [1, 2, 1, 0],
                                                           [0, 0, 0, 0]])
    np.testing.assert_array_equal(dx[1, 0], 2 * x[1, 0] * [[1, 2, 2, 1], [2, 4, 4, 2],
                                                           [2, 4, 4, 2]])


def test_cudnn_style_lstm_matches_the_reference_in_both_directions():
    seq_len, batch, size, hid = 3, 2, 2, 3
    x = RNG.uniform(-1, 1, (seq_len, batch, size)).astype(np.float32)
    h0, c0 = RNG.uniform(-1, 1, (2, 2, batch, hid)).astype(np.float32)
    main, startup = Program(), Program()
    with program_guard(main, startup):
        out, last_h, last_c = fluid.layers.lstm(
            fluid.data("x", [seq_len, -1, size]), fluid.data("h0", [2, -1, hid]),
            fluid.data("c0", [2, -1, hid]), seq_len, hid, 1, is_bidirec=True)
    params = main.global_block().all_parameters()
    exe, scope = fluid.Executor(fluid.CPUPlace()), Scope()
    exe.run(startup, scope=scope)
    got = exe.run(main, feed={"x": x, "h0": h0, "c0": c0},
                  fetch_list=[out, last_h, last_c] + params, scope=scope)
    out_v, last_h_v, last_c_v, values = got[0], got[1], got[2], got[3:]
    rows = x.transpose(1, 0, 2).reshape(-1, size)
    for d in range(2):
        proj_w, w, b = values[3 * d:3 * d + 3]
        ref_h, ref_c = _lstm_reference(rows @ proj_w, w, b, [seq_len] * batch, d == 1, False,
                                       h0[d], c0[d])
        ref_h, ref_c = ref_h.reshape(batch, seq_len, hid), ref_c.reshape(batch, seq_len, hid)
        np.testing.assert_allclose(out_v[:, :, d * hid:(d + 1) * hid],
                                   ref_h.transpose(1, 0, 2), rtol=1e-5, atol=1e-6)
        end = 0 if d == 1 else -1
        np.testing.assert_allclose(last_h_v[d], ref_h[:, end], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(last_c_v[d], ref_c[:, end], rtol=1e-5, atol=1e-6)


def test_cudnn_style_lstm_stacks_layers_and_uses_default_initializer():
    x = RNG.uniform(-1, 1, (4, 2, 3)).astype(np.float32)
    zeros = np.zeros((2, 2, 5), np.float32)

    def build(init):
        out, last_h, last_c = fluid.layers.lstm(
            fluid.data("x", [4, -1, 3]), fluid.data("h0", [2, -1, 5]),
            fluid.data("c0", [2, -1, 5]), 4, 5, 2, dropout_prob=0.5, is_test=True,
            default_initializer=init)
        return [out, last_h, last_c]
    feed = {"x": x, "h0": zeros, "c0": zeros}
    out, last_h, last_c = build_and_run_rows(lambda: build(None), feed)
    assert out.shape == (4, 2, 5) and last_h.shape == last_c.shape == (2, 2, 5)
    np.testing.assert_allclose(last_h[1], out[-1], rtol=1e-6)  # the top layer's last step
    assert np.abs(out).max() > 1e-3
    # zero weights and states: every cell stays 0, so every output is 0
    out, _, _ = build_and_run_rows(lambda: build(fluid.initializer.Constant(0.0)), feed)
    np.testing.assert_array_equal(out, np.zeros_like(out))


# -- dynamic_lstmp
def test_lstmp_with_identity_projection_is_lstm():
    rng = np.random.RandomState(5)
    lens = np.array([3, 1, 2], np.int64)
    width = 3
    x = rng.uniform(-1, 1, (6, 4 * width))
    weight = rng.uniform(-1, 1, (width, 4 * width))
    bias = rng.uniform(-1, 1, (1, 7 * width))
    c0 = rng.uniform(-1, 1, (3, width))
    attrs = dict(LSTMP_ATTRS, proj_activation="identity")
    proj, cell, _, _, _ = LSTMP.forward(x, None, c0, weight, np.eye(width), bias, lens, **attrs)
    hidden, lstm_cell, _, _ = LSTM.forward(x, None, c0, weight, bias, lens, use_peepholes=True,
                                     is_reverse=False, gate_activation="sigmoid",
                                     cell_activation="tanh", candidate_activation="tanh")
    np.testing.assert_allclose(proj, hidden, rtol=1e-12)
    np.testing.assert_allclose(cell, lstm_cell, rtol=1e-12)


def test_lstmp_one_step_by_hand_with_h0_and_clips():
    """H0 [N, P] is the initial projection itself (Paddle 1.8.5)."""
    rng = np.random.RandomState(6)
    width, proj_width = 2, 3
    x = rng.uniform(-3, 3, (1, 4 * width))
    weight = rng.uniform(-1, 1, (proj_width, 4 * width))
    proj_w = rng.uniform(-2, 2, (width, proj_width))
    bias = rng.uniform(-1, 1, (1, 4 * width))
    h0, c0 = rng.uniform(-1, 1, (1, proj_width)), rng.uniform(-2, 2, (1, width))
    attrs = dict(LSTMP_ATTRS, use_peepholes=False, cell_clip=0.4, proj_clip=0.2)
    proj, cell, _, _, _ = LSTMP.forward(x, h0, c0, weight, proj_w, bias, np.array([1]), **attrs)
    pre = x + h0 @ weight + bias
    cand, i, f, o = (pre[:, k * width:(k + 1) * width] for k in range(4))
    c = np.clip(_sigmoid(f) * c0 + _sigmoid(i) * np.tanh(cand), -0.4, 0.4)
    r = np.clip(np.tanh((_sigmoid(o) * np.tanh(c)) @ proj_w), -0.2, 0.2)
    np.testing.assert_allclose(cell, c, rtol=1e-12)
    np.testing.assert_allclose(proj, r, rtol=1e-12)


def test_dynamic_lstmp_h0_is_the_initial_projection_as_paddle_1_8():
    """fluid.layers.dynamic_lstmp(h_0 [N, P]) with constant 0.1 weights, zero bias: the
    values Paddle 1.8.5 gives (its H0 goes into the recurrence as it is)."""
    def net():
        x = fluid.data("x", [None, 8], "float64", lod_level=1)
        h0, c0 = fluid.data("h0", [None, 3], "float64"), fluid.data("c0", [None, 2], "float64")
        return fluid.layers.dynamic_lstmp(
            x, 8, 3, h_0=h0, c_0=c0, use_peepholes=False, dtype="float64",
            param_attr=fluid.ParamAttr(initializer=fluid.initializer.Constant(0.1)),
            bias_attr=fluid.ParamAttr(initializer=fluid.initializer.Constant(0.0)))
    main, startup, (proj, cell) = _build(net)
    feed = {"x": (np.arange(8.0).reshape(1, 8) / 10, [[1]]), "h0": np.array([[1.0, -2.0, 0.5]]),
            "c0": np.array([[0.3, -0.1]])}
    (p, c), _ = _run(main, startup, feed, [proj, cell])
    # (rtol: Paddle's Constant(0.1) holds the value as a float32 attribute)
    np.testing.assert_allclose(p, [[0.007221695380604132] * 3], rtol=1e-6)
    np.testing.assert_allclose(c, [[0.14913615150359433, -0.03297849938041648]], rtol=1e-6)


def test_lstmp_projection_takes_the_cell_activation_as_paddle_1_8():
    """cell_activation sigmoid, proj_activation tanh: Paddle 1.8.5's kernel activates the
    projection with sigmoid (its values below, one sequence of 3 steps); tanh would give
    negative projections here. proj_activation identity still leaves it unactivated."""
    x = (np.arange(24).reshape(3, 8) % 5 - 2) * 0.25
    weight = np.array([[0.5, -0.25, 0.25, 0.5, -0.5, 0.25, 0.5, -0.25]])
    proj_weight = np.array([[1.5], [-2.0]])
    bias = (np.arange(14) % 3 - 1).reshape(1, 14) * 0.125
    lens = np.array([3], np.int64)
    attrs = dict(LSTMP_ATTRS, cell_activation="sigmoid", proj_activation="tanh")
    proj, cell = LSTMP.forward(x, None, None, weight, proj_weight, bias, lens, **attrs)[:2]
    np.testing.assert_allclose(proj.ravel(), [0.4499216377735138, 0.5297855734825134,
                                              0.46773362159729004], rtol=1e-6)
    np.testing.assert_allclose(cell.ravel(), [-0.29460853338241577, -0.13010308146476746,
                                              0.012381196022033691, 0.0921793282032013,
                                              -0.06456107646226883, -0.03934261575341225],
                               rtol=1e-5)
    unactivated = LSTMP.forward(x, None, None, weight, proj_weight, bias, lens,
                                **dict(attrs, proj_activation="identity"))[0]
    assert unactivated.min() < 0


def test_dynamic_lstmp_layer_runs_the_op_with_its_parameters():
    rng = np.random.RandomState(7)
    x = rng.uniform(-1, 1, (5, 8)).astype("float32")
    lens = np.array([2, 3], np.int64)

    def net():
        return fluid.layers.dynamic_lstmp(fluid.data("x", [-1, 8], lod_level=1), size=8,
                                          proj_size=3)

    main, startup, (proj, cell) = _build(net)
    assert proj.shape == (-1, 3) and cell.shape == (-1, 2)
    (p, c), params = _run(main, startup, {"x": (x, [lens.tolist()])}, [proj, cell])
    op = main.global_block().ops[-1]
    assert op.type == "lstmp"
    want = LSTMP.forward(x, None, None, *(params[op.input(s)[0]] for s in
                                          ("Weight", "ProjWeight", "Bias")), lens,
                         **LSTMP_ATTRS)
    np.testing.assert_allclose(p, want[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(c, want[1], rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="proj_activation must be one of"):
        _build(lambda: fluid.layers.dynamic_lstmp(fluid.data("y", [-1, 8]), 8, 3,
                                                  proj_activation="softsign"))
