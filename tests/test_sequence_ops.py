"""Sequence ops on LoD tensors (specs/ops/sequence.md, specs/lod.md): values and the LoD
they carry against numpy references written here, on the ragged batch of lengths [3, 1, 2]."""
import numpy as np
import pytest

import refimpl.fluid.layers as layers
from refimpl import fluid, static
from refimpl.framework.program import Program, program_guard
from helpers import build_and_run, central_differences, lengths, run_default_programs

LENS = [3, 1, 2]
RNG = np.random.RandomState(7)
ROWS = np.arange(12, dtype=np.float32).reshape(6, 2) * np.array([1, -1], np.float32)


def _seqs(x=ROWS, lens=LENS):
    off = np.cumsum([0] + list(lens))
    return [x[a:b] for a, b in zip(off[:-1], off[1:])]


def _lod(x=ROWS, lens=LENS):
    return fluid.create_lod_tensor(x, [list(lens)], fluid.CPUPlace())


def _seq_input(name="x", width=2):
    return fluid.data(name, [-1, width], "float32", lod_level=1)


@pytest.mark.parametrize("pool_type,reference", [
    ("sum", lambda s: s.sum(0)), ("average", lambda s: s.mean(0)),
    ("sqrt", lambda s: s.sum(0) / np.sqrt(len(s))), ("max", lambda s: s.max(0)),
    ("first", lambda s: s[0]), ("last", lambda s: s[-1])])


def test_sequence_pool_from_a_fed_lod_tensor(pool_type, reference):
    out, = build_and_run(lambda: [fluid.layers.sequence_pool(_seq_input(), pool_type)],
                {"x": _lod()})
    np.testing.assert_allclose(out, [reference(s) for s in _seqs()], rtol=1e-6)


def test_first_last_step_and_empty_sequence_pad_value():
    lens = np.array([2, 0, 4], np.int64)
    x = np.random.RandomState(0).rand(6, 3).astype(np.float32)

    def build():
        v = _seq_input(width=3)
        return [fluid.layers.sequence_first_step(v), fluid.layers.sequence_last_step(v),
                fluid.layers.sequence_pool(v, "sum", pad_value=7.0)]
    first, last, total = build_and_run(build, {"x": _lod(x, lens)})
    np.testing.assert_allclose(first, [x[0], np.zeros(3), x[2]])
    np.testing.assert_allclose(last, [x[1], np.zeros(3), x[5]])
    np.testing.assert_allclose(total, [x[:2].sum(0), np.full(3, 7.0), x[2:].sum(0)], rtol=1e-6)


def test_pad_then_unpad_round_trips():
    def build():
        x = _seq_input()
        pad = fluid.layers.fill_constant([1], "float32", -1.0)
        padded, length = fluid.layers.sequence_pad(x, pad, maxlen=4)
        return [padded, length, fluid.layers.sequence_unpad(padded, length)]
    padded, length, back = build_and_run(build, {"x": _lod()}, return_numpy=False)
    assert lengths(back) == [LENS] and lengths(padded) == []
    padded, length, back = map(np.array, (padded, length, back))
    expect = np.full((3, 4, 2), -1.0, np.float32)
    for i, s in enumerate(_seqs()):
        expect[i, :len(s)] = s
    np.testing.assert_array_equal(padded, expect)
    np.testing.assert_array_equal(length, LENS)
    np.testing.assert_array_equal(back, ROWS)


def test_softmax_reverse_keep_the_lod_for_the_next_op():
    x = ROWS[:, :1] / 10

    def build():
        v = _seq_input(width=1)
        soft = fluid.layers.sequence_softmax(v)
        return [soft, fluid.layers.sequence_reverse(soft),
                fluid.layers.sequence_pool(fluid.layers.sequence_reverse(v), "first")]
    soft, rev, first = build_and_run(build, {"x": _lod(x)}, return_numpy=False)
    assert lengths(soft) == lengths(rev) == [LENS] and lengths(first) == []
    soft, rev, first = map(np.array, (soft, rev, first))
    expect = np.concatenate([np.exp(s) / np.exp(s).sum() for s in _seqs(x)])
    np.testing.assert_allclose(soft, expect, rtol=1e-6)
    np.testing.assert_allclose(rev, np.concatenate([s[::-1] for s in _seqs(expect)]), rtol=1e-6)
    np.testing.assert_allclose(first, [s[-1] for s in _seqs(x)])


def test_expand_expand_as_concat_slice():
    y = np.zeros((5, 1), np.float32)
    y_lens = [2, 0, 3]

    def build():
        x, yv = _seq_input(), fluid.data("y", [-1, 1], "float32", lod_level=1)
        rows = fluid.data("r", [3, 2], "float32")
        off = fluid.data("off", [3, 1], "int64")
        size = fluid.data("size", [3, 1], "int64")
        expanded = fluid.layers.sequence_expand(x, yv)
        concat = fluid.layers.sequence_concat([x, x])
        sliced = fluid.layers.sequence_slice(x, off, size)
        return [expanded, fluid.layers.sequence_expand(rows, yv),
                fluid.layers.sequence_expand_as(rows, yv), concat, sliced,
                fluid.layers.sequence_pool(sliced, "sum")]
    r = np.array([[1, 2], [3, 4], [5, 6]], np.float32)
    outs = build_and_run(build, {"x": _lod(), "y": _lod(y, y_lens), "r": r,
                                 "off": np.array([[1], [0], [1]]),
                                 "size": np.array([[2], [1], [0]])}, return_numpy=False)
    expanded_len, rows_len, rows_as_len, concat_len, sliced_len, _ = map(lengths, outs)
    assert expanded_len == [[3, 3, 2, 2, 2]] and concat_len == [[6, 2, 4]]
    # Paddle 1.8.5: a dense x expanded keeps no LoD; expand_as gives y's
    assert rows_len == [] and rows_as_len == [y_lens] and sliced_len == [[2, 1, 0]]
    expanded, rows_expanded, rows_as, concat, sliced, sliced_sum = map(np.array, outs)
    s = _seqs()
    np.testing.assert_array_equal(expanded, np.concatenate([s[0], s[0], s[2], s[2], s[2]]))
    np.testing.assert_array_equal(rows_expanded, r[[0, 0, 2, 2, 2]])
    np.testing.assert_array_equal(rows_as, r[[0, 0, 2, 2, 2]])
    np.testing.assert_array_equal(concat, np.concatenate([np.concatenate([q, q]) for q in s]))
    np.testing.assert_array_equal(sliced, np.concatenate([s[0][1:3], s[1][0:1]]))
    np.testing.assert_array_equal(sliced_sum, [s[0][1:3].sum(0), s[1][0], [0, 0]])


def test_sequence_mask():
    def build():
        n = fluid.data("n", [-1], "int64")
        return [fluid.layers.sequence_mask(n), fluid.layers.sequence_mask(n, 4, "float32")]
    mask, mask4 = build_and_run(build, {"n": np.array(LENS)})
    np.testing.assert_array_equal(mask, [[1, 1, 1], [1, 0, 0], [1, 1, 0]])
    np.testing.assert_array_equal(mask4, [[1, 1, 1, 0], [1, 0, 0, 0], [1, 1, 0, 0]])
    assert mask4.dtype == np.float32


def test_sequence_mask_out_dtype_as_a_dtype_code():
    # Paddle 1.8 code (OpTest) sets out_dtype to a VarType code, not a name
    main, startup = Program(), Program()
    with program_guard(main, startup):
        n = fluid.data("n", [-1], "int64")
        y = main.global_block().create_var(name="y", dtype="bool")
        main.global_block().append_op(
            type="sequence_mask", inputs={"X": n}, outputs={"Y": y},
            attrs={"maxlen": 3, "out_dtype": fluid.framework.convert_np_dtype_to_dtype_(bool)})
    mask, = static.Executor().run(main, feed={"n": np.array([2, 0])}, fetch_list=[y])
    np.testing.assert_array_equal(mask, [[True, True, False], [False, False, False]])


def test_sequence_expand_gradient_skips_y_read_only_for_its_lod():
    # Paddle's sequence_expand(_as)_grad has X@GRAD only, even when Y wants a gradient
    def build():
        x, y = _seq_input(), fluid.data("y", [-1, 1], "float32", lod_level=1)
        x.stop_gradient = y.stop_gradient = False
        loss = fluid.layers.reduce_sum(fluid.layers.sequence_expand(x, y))
        return fluid.gradients([loss], [x])
    grad, = build_and_run(build, {"x": _lod(), "y": _lod(np.zeros((5, 1), np.float32),
                                                            [2, 0, 3])}, return_numpy=False)
    np.testing.assert_array_equal(np.array(grad), np.repeat([2., 0., 3.], LENS)[:, None] * [1, 1])


def _conv_with_padding(x, lens, pad, filt, context_length, context_start):
    """Paddle 1.8's sequence_conv with trainable padding, window by window: position r of a
    sequence of length n reads x, or PaddingData row up + r (r < 0) / up + r - n (r >= n)."""
    up = max(0, -context_start)
    rows = []
    for seq in _seqs(x, lens):
        n = len(seq)
        for k in range(n):
            window = []
            for j in range(context_length):
                r = k + context_start + j
                window.append(seq[r] if 0 <= r < n else pad[up + (r if r < 0 else r - n)])
            rows.append(np.concatenate(window))
    return np.array(rows) @ filt


def test_sequence_conv_trainable_padding_and_its_gradient():
    lens, cl, cs = [3, 1, 2], 4, -2
    x, pad = RNG.uniform(-1, 1, (6, 2)), RNG.uniform(-1, 1, (3, 2))
    filt = RNG.uniform(-1, 1, (8, 2))
    main, startup = Program(), Program()
    with program_guard(main, startup):
        xv = fluid.data("x", [-1, 2], "float64", lod_level=1)
        pv, fv = fluid.data("pad", [3, 2], "float64"), fluid.data("filt", [8, 2], "float64")
        for v in (xv, pv, fv):
            v.stop_gradient = False
        out = main.global_block().create_var(name="out", dtype="float64")
        main.global_block().append_op(
            type="sequence_conv", inputs={"X": xv, "PaddingData": pv, "Filter": fv},
            outputs={"Out": out}, attrs={"contextLength": cl, "contextStart": cs,
                                         "paddingTrainable": True})
        grads = fluid.gradients([fluid.layers.reduce_sum(out * out)], [pv])
    got, dpad = static.Executor().run(main, feed={"x": _lod(x, lens), "pad": pad,
                                                  "filt": filt},
                                      fetch_list=[out] + grads, return_numpy=False)
    ref = _conv_with_padding(x, lens, pad, filt, cl, cs)
    np.testing.assert_allclose(np.array(got), ref, rtol=1e-12)
    numeric = central_differences(
        lambda p: (_conv_with_padding(x, lens, p, filt, cl, cs) ** 2).sum(), pad)
    np.testing.assert_allclose(np.array(dpad), numeric, rtol=1e-6)


@pytest.mark.paddle("3")      # refimpl's own checks: 1.8 / 2.0 check fluid.layers as Paddle
def test_sequence_concat_input_types():
    # Paddle 1.8: a list of int64 / float32 / float64 Variables, else TypeError
    with program_guard(Program(), Program()):
        x = fluid.data("x", [-1, 2], "float32", lod_level=1)
        with pytest.raises(TypeError, match="must be a list"):
            fluid.layers.sequence_concat(x)
        with pytest.raises(TypeError, match="input\\[1\\] must have dtype"):
            fluid.layers.sequence_concat([x, fluid.data("i", [-1, 2], "int32")])


def test_sequence_pool_gradient_through_the_program():
    def build():
        x = fluid.data("x", [-1, 2], "float32", lod_level=1)
        x.stop_gradient = False
        loss = fluid.layers.reduce_sum(fluid.layers.sequence_pool(x, "average"))
        return fluid.gradients([loss], [x])
    grad, = build_and_run(build, {"x": _lod()}, return_numpy=False)
    assert lengths(grad) == [LENS]      # x@GRAD has x's LoD, as in Paddle
    np.testing.assert_allclose(np.array(grad), np.repeat(1.0 / np.array(LENS), LENS)[:, None]
                               * np.ones((1, 2)), rtol=1e-6)


def test_errors_name_the_op_the_variable_and_the_problem():
    def pool_dense():
        return [fluid.layers.sequence_pool(fluid.data("d", [-1, 2], "float32"), "sum")]
    with pytest.raises(Exception, match="sequence_pool.*input X 'd' carries no LoD"):
        build_and_run(pool_dense, {"d": ROWS})
    with pytest.raises(Exception, match="feed 'x': its LoD \\[\\[0, 3, 4, 6\\]\\].*does not "
                                        "fit the data of shape \\[5, 2\\]"):
        build_and_run(lambda: [fluid.layers.sequence_pool(_seq_input(), "sum")],
                      {"x": (ROWS[:5], [LENS])})
    with pytest.raises(RuntimeError, match="hold LoD information"):
        build_and_run(lambda: [fluid.layers.sequence_softmax(_seq_input(width=1))],
                      {"x": _lod(ROWS[:, :1])})


def _levenshtein(a, b):
    """Plain recursive-table edit distance, written independently of the op's."""
    table = [[i + j if i * j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1,
                              table[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
    return table[-1][-1]


def test_edit_distance_on_strings_packed_and_padded():
    hyps, refs = ["kitten", "flaw", ""], ["sitting", "lawn", "abc"]
    codes = lambda words: np.array([ord(c) for w in words for c in w], np.int64)[:, None]
    lens = lambda words: np.array([len(w) for w in words], np.int64)
    expect = [3, 2, 3]
    assert [_levenshtein(h, r) for h, r in zip(hyps, refs)] == expect

    def build():
        h = fluid.data("h", [-1, 1], "int64", lod_level=1)
        r = fluid.data("r", [-1, 1], "int64", lod_level=1)
        hp, rp = fluid.data("hp", [3, 7], "int64"), fluid.data("rp", [3, 7], "int64")
        hl, rl = fluid.data("hl", [3], "int64"), fluid.data("rl", [3], "int64")
        return list(fluid.layers.edit_distance(h, r, normalized=False)) + \
            [fluid.layers.edit_distance(hp, rp, input_length=hl, label_length=rl)[0]]

    def padded(words):
        out = np.zeros((3, 7), np.int64)
        for i, w in enumerate(words):
            out[i, :len(w)] = [ord(c) for c in w]
        return out
    dist, count, normalized = build_and_run(build, {
        "h": _lod(codes(hyps), lens(hyps)), "r": _lod(codes(refs), lens(refs)),
        "hp": padded(hyps), "rp": padded(refs), "hl": lens(hyps), "rl": lens(refs)})
    np.testing.assert_array_equal(dist, np.array(expect, np.float32)[:, None])
    np.testing.assert_array_equal(count, [3])
    np.testing.assert_allclose(normalized, (np.array(expect) / lens(refs))[:, None], rtol=1e-6)


def test_sequence_erase_and_edit_distance_ignored_tokens():
    hyps, refs = ["kitten", "flaw", ""], ["sitting", "lawn", "abc"]
    codes = lambda words: np.array([ord(c) for w in words for c in w], np.int64)[:, None]
    lens = lambda words: np.array([len(w) for w in words], np.int64)
    drop = [ord("f"), ord("n")]
    stripped = lambda words: [w.replace("f", "").replace("n", "") for w in words]

    def build():
        h = fluid.data("h", [-1, 1], "int64", lod_level=1)
        r = fluid.data("r", [-1, 1], "int64", lod_level=1)
        block = fluid.default_main_program().global_block()
        erased = block.create_var(name="erased", dtype="int64")
        block.append_op(type="sequence_erase", inputs={"X": h}, outputs={"Out": erased},
                        attrs={"tokens": drop})
        return [erased, fluid.layers.edit_distance(h, r, normalized=False,
                                                   ignored_tokens=drop)[0]]
    erased, dist = build_and_run(build, {"h": _lod(codes(hyps), lens(hyps)),
                                         "r": _lod(codes(refs), lens(refs))},
                                 return_numpy=False)
    assert lengths(erased) == [[5, 3, 0]]
    np.testing.assert_array_equal(np.array(erased), codes(stripped(hyps)))
    expect = [_levenshtein(h, r) for h, r in zip(stripped(hyps), stripped(refs))]
    assert expect == [3, 0, 3]      # "law" == "law" once f and n are gone
    np.testing.assert_array_equal(np.array(dist), np.array(expect, np.float32)[:, None])


def test_ctc_loss_by_hand_and_its_gradient():
    # T=2, classes {blank=0, a=1}, label "a": paths (a,a) (a,0) (0,a) -> p = y0a*y1a +
    # y0a*y1b + y0b*y1a with y the per-step softmax.
    logits = np.array([[0.3, -0.2], [1.0, 0.5]], np.float32)
    y = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    p = y[0, 1] * y[1, 1] + y[0, 1] * y[1, 0] + y[0, 0] * y[1, 1]

    def loss_of(values):
        return build_and_run(lambda: [fluid.layers.warpctc(
            fluid.data("x", [-1, 2], "float32", lod_level=1),
            fluid.data("l", [-1, 1], "int32", lod_level=1))],
            {"x": _lod(values.astype(np.float32), [2]),
             "l": _lod(np.array([[1]], np.int32), [1])})[0]
    np.testing.assert_allclose(loss_of(logits), [[-np.log(p)]], rtol=1e-5)

    def build_grad():
        x = fluid.data("x", [-1, 2], "float32", lod_level=1)
        x.stop_gradient = False
        loss = fluid.layers.warpctc(x, fluid.data("l", [-1, 1], "int32", lod_level=1))
        return fluid.gradients([fluid.layers.reduce_sum(loss)], [x])
    grad, = build_and_run(build_grad, {"x": _lod(logits, [2]),
                                       "l": _lod(np.array([[1]], np.int32), [1])},
                          return_numpy=False)
    grad = np.array(grad)
    numeric = central_differences(lambda v: loss_of(v)[0, 0], logits, eps=1e-2)
    np.testing.assert_allclose(grad, numeric, rtol=2e-3, atol=1e-4)


def test_ctc_loss_padded_matches_packed_and_greedy_decoder():
    rng = np.random.RandomState(1)
    logits = rng.randn(4, 2, 3).astype(np.float32)          # [max_time, batch, classes]
    labels = np.array([[1, 2], [2, 0]], np.int32)
    t_len, l_len = np.array([4, 3], np.int64), np.array([2, 1], np.int64)
    packed = np.concatenate([logits[:4, 0], logits[:3, 1]])

    def build():
        x = fluid.data("x", [4, 2, 3], "float32")
        lab = fluid.data("lab", [2, 2], "int32")
        tl, ll = fluid.data("tl", [2], "int64"), fluid.data("ll", [2], "int64")
        xp = fluid.data("xp", [-1, 3], "float32", lod_level=1)
        lp = fluid.data("lp", [-1, 1], "int32", lod_level=1)
        return [fluid.layers.warpctc(x, lab, input_length=tl, label_length=ll),
                fluid.layers.warpctc(xp, lp)]
    padded, pack = build_and_run(build, {"x": logits, "lab": labels, "tl": t_len, "ll": l_len,
                                "xp": _lod(packed, t_len),
                                "lp": _lod(np.array([[1], [2], [2]], np.int32), l_len)})
    np.testing.assert_allclose(padded, pack, rtol=1e-6)

    probs = np.array([[.1, .8, .1], [.1, .8, .1], [.7, .2, .1], [.1, .8, .1], [.1, .1, .8],
                      [.9, .05, .05]], np.float32)
    decoded, = build_and_run(lambda: [fluid.layers.ctc_greedy_decoder(
        fluid.data("p", [-1, 3], "float32", lod_level=1), blank=0)],
        {"p": _lod(probs, [4, 2])}, return_numpy=False)
    # "a a _ a" -> "aa", "b _" -> "b"
    np.testing.assert_array_equal(np.array(decoded), [[1], [1], [2]])
    assert lengths(decoded) == [[2, 1]]


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def test_lstm_unit_cell_equations():
    rng = np.random.RandomState(2)
    x, h, c = rng.randn(2, 3), rng.randn(2, 4), rng.randn(2, 4)
    w, b = rng.randn(7, 16) * 0.3, rng.randn(16) * 0.1

    def build():
        xv, hv, cv = (fluid.data(n, [2, k], "float64") for n, k in (("x", 3), ("h", 4),
                                                                      ("c", 4)))
        return fluid.layers.lstm_unit(
            xv, hv, cv, forget_bias=1.0,
            param_attr=fluid.ParamAttr(initializer=fluid.initializer.NumpyArrayInitializer(w)),
            bias_attr=fluid.ParamAttr(initializer=fluid.initializer.NumpyArrayInitializer(b)))
    hidden, cell = build_and_run(build, {"x": x, "h": h, "c": c})
    z = np.concatenate([x, h], 1) @ w + b
    i, f, o, g = _sigmoid(z[:, :4]), _sigmoid(z[:, 4:8] + 1), _sigmoid(z[:, 8:12]), \
        np.tanh(z[:, 12:])
    expect_c = f * c + i * g
    np.testing.assert_allclose(cell, expect_c, rtol=1e-10)
    np.testing.assert_allclose(hidden, o * np.tanh(expect_c), rtol=1e-10)


@pytest.mark.parametrize("origin_mode", [False, True])
def test_gru_unit_equations(origin_mode):
    rng = np.random.RandomState(3)
    x, h = rng.randn(2, 6), rng.randn(2, 2)
    w, b = rng.randn(2, 6), rng.randn(1, 6)

    def build():
        init = fluid.initializer.NumpyArrayInitializer
        return fluid.layers.gru_unit(
            fluid.data("x", [2, 6], "float64"), fluid.data("h", [2, 2], "float64"), 6,
            param_attr=fluid.ParamAttr(initializer=init(w)),
            bias_attr=fluid.ParamAttr(initializer=init(b)), origin_mode=origin_mode)
    hidden, reset_h, gate = build_and_run(build, {"x": x, "h": h})
    w_ur, w_c = w.reshape(-1)[:8].reshape(2, 4), w.reshape(-1)[8:].reshape(2, 2)
    ur = _sigmoid(x[:, :4] + b[:, :4] + h @ w_ur)
    u, r = ur[:, :2], ur[:, 2:]
    c = np.tanh(x[:, 4:] + b[:, 4:] + (r * h) @ w_c)
    expect = u * h + (1 - u) * c if origin_mode else (1 - u) * h + u * c
    np.testing.assert_allclose(hidden, expect, rtol=1e-10)
    np.testing.assert_allclose(reset_h, r * h, rtol=1e-10)
    np.testing.assert_allclose(gate, np.concatenate([u, r, c], 1), rtol=1e-10)


def test_ctc_greedy_decoder_padded_form():
    # batch 2, max_len 4: argmax ids [1, 1, 0, 2] (len 4) and [2, 2, 1, 1] (len 2)
    ids = np.array([[1, 1, 0, 2], [2, 2, 1, 1]])
    probs = np.eye(3, dtype=np.float32)[ids] * 0.8 + 0.05

    def build():
        p = fluid.data("p", [2, 4, 3], "float32")
        n = fluid.data("n", [2], "int64")
        return fluid.layers.ctc_greedy_decoder(p, blank=0, input_length=n, padding_value=-1)
    out, out_len = build_and_run(build, {"p": probs, "n": np.array([4, 2], np.int64)})
    np.testing.assert_array_equal(out, [[1, 2, -1, -1], [2, -1, -1, -1]])
    np.testing.assert_array_equal(out_len, [[2], [1]])


def _int_data(name, shape):
    return static.data(name, shape, "int64")


# -- filter_by_instag
def test_filter_by_instag_keeps_tagged_rows_and_routes_the_gradient_back():
    ins = static.data("ins", [4, 3], "float64")
    ins.stop_gradient = False
    tags, tag_len = _int_data("tags", [6]), _int_data("tag_len", [4])
    keep = _int_data("keep", [2])
    out, loss_weight = layers.filter_by_instag(ins, tags, keep, False, ins_tag_length=tag_len)
    (d_ins,) = static.gradients([layers.reduce_sum(out * out)], [ins])
    x = RNG.randn(4, 3)
    # instance tags: [1, 2], [3], [], [2, 5, 6] -> rows 0 and 3 carry tag 2 or 6
    got = run_default_programs([out, loss_weight, d_ins], {
        "ins": x, "tags": np.array([1, 2, 3, 2, 5, 6]), "tag_len": np.array([2, 1, 0, 3]),
        "keep": np.array([6, 2])}, return_numpy=False)
    np.testing.assert_allclose(np.array(got[0]), x[[0, 3]])
    np.testing.assert_array_equal(np.array(got[1]), [[1.0], [1.0]])
    assert got[0].recursive_sequence_lengths() == got[1].recursive_sequence_lengths() == \
        [[1, 1]]
    expected_grad = np.zeros_like(x)
    expected_grad[[0, 3]] = 2 * x[[0, 3]]
    np.testing.assert_allclose(np.array(got[2]), expected_grad)


def _instag_program(out_val_if_empty):
    ins = static.data("ins", [5, 2], "float32", lod_level=1)
    ins.stop_gradient = False
    tags = static.data("tags", [3, 1], "int64", lod_level=1)
    keep = _int_data("keep", [1])
    out, loss_weight = layers.filter_by_instag(ins, tags, keep, True,
                                               out_val_if_empty=out_val_if_empty)
    (d_ins,) = static.gradients([layers.reduce_sum(out)], [ins])
    return out, loss_weight, d_ins


def test_filter_by_instag_lod_instances_and_the_empty_result():
    """Paddle 1.8.5's results: instances are Ins' sequences, tags one per instance; Out
    carries the kept instances' rows as its LoD, LossWeight one row per instance."""
    out, loss_weight, d_ins = _instag_program(-3)
    x = np.arange(10, dtype=np.float32).reshape(5, 2)
    feed = {"ins": (x, [[2, 1, 2]]), "tags": (np.array([[4], [7], [4]]), [[1, 1, 1]])}
    got = run_default_programs([out, loss_weight, d_ins], dict(feed, keep=np.array([4])),
                               return_numpy=False)
    np.testing.assert_array_equal(np.array(got[0]), x[[0, 1, 3, 4]])
    assert got[0].recursive_sequence_lengths() == [[2, 2]]
    np.testing.assert_array_equal(np.array(got[1]), [[1], [1]])
    assert got[1].recursive_sequence_lengths() == [[1, 1]]
    np.testing.assert_array_equal(np.array(got[2]), [[1, 1], [1, 1], [0, 0], [1, 1], [1, 1]])
    got = run_default_programs([out, loss_weight, d_ins], dict(feed, keep=np.array([9])),
                               return_numpy=False)
    np.testing.assert_array_equal(np.array(got[0]), [[-3, -3]])
    np.testing.assert_array_equal(np.array(got[1]), [[0]])
    assert got[0].recursive_sequence_lengths() == got[1].recursive_sequence_lengths() == [[1]]
    assert not np.array(got[2]).any()          # nothing kept: no gradient reaches Ins


def test_filter_by_instag_is_lod_reads_the_instances_from_the_lod():
    out, _, _ = _instag_program(0)
    x = np.zeros((5, 2), np.float32)
    with pytest.raises(Exception, match="is_lod=True reads the instances from Ins' LoD"):
        run_default_programs([out], {"ins": x, "tags": (np.array([[4], [7], [4]]),
                                                         [[1, 1, 1]]),
                                     "keep": np.array([4])}, return_numpy=False)


def test_crf_decoding_and_chunk_eval_on_lod_follow_paddle():
    """The label_semantic_roles evaluation: Viterbi paths (and their agreement with the
    labels) carrying the emissions' LoD, then IOB chunk counts; Paddle 1.8.5's results on
    the same emissions, labels and transition."""
    place = fluid.CPUPlace()
    rng = np.random.RandomState(5)
    tags, lens = 5, [4, 1, 3, 5]
    emission = rng.uniform(-1, 1, (sum(lens), tags)).astype("float32")
    label = rng.randint(0, tags, (sum(lens), 1)).astype("int64")
    trans = rng.uniform(-0.5, 0.5, (tags + 2, tags)).astype("float32")
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [-1, tags], "float32", lod_level=1)
        y = fluid.data("y", [-1, 1], "int64", lod_level=1)
        fluid.layers.linear_chain_crf(x, y, param_attr=fluid.ParamAttr(
            name="crfw", initializer=fluid.initializer.NumpyArrayInitializer(trans)))
        path = fluid.layers.crf_decoding(x, param_attr=fluid.ParamAttr(name="crfw"))
        right = fluid.layers.crf_decoding(x, param_attr=fluid.ParamAttr(name="crfw"), label=y)
        scores = fluid.layers.chunk_eval(input=path, label=y, chunk_scheme="IOB",
                                         num_chunk_types=2)
    exe = fluid.Executor(place)
    exe.run(startup)
    feed = {"x": fluid.create_lod_tensor(emission, [lens], place),
            "y": fluid.create_lod_tensor(label, [lens], place)}
    got = exe.run(main, feed=feed, fetch_list=[path, right] + list(scores),
                  return_numpy=False)
    assert np.array(got[0]).ravel().tolist() == [3, 1, 4, 3, 0, 2, 3, 0, 3, 1, 0, 1, 2]
    assert np.array(got[1]).ravel().tolist() == [0, 0, 1, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0]
    assert got[0].recursive_sequence_lengths() == got[1].recursive_sequence_lengths() == [lens]
    precision, recall, f1, n_infer, n_label, n_correct = (np.array(t) for t in got[2:])
    np.testing.assert_array_equal(np.concatenate([precision, recall, f1]),
                                  np.float32([0.3, 0.375, 1 / 3]))
    assert (int(n_infer[0]), int(n_label[0]), int(n_correct[0])) == (10, 8, 3)


def test_sequence_unpad_of_2d_x_is_a_column():
    """Paddle 1.8.5: X [2, 3], lengths [0, 3] -> Out [3, 1], LoD [[0, 3]]."""
    x = static.data("x", [2, 3], "float64")
    x.stop_gradient = False
    out = layers.sequence_unpad(x, _int_data("n", [2]))
    (dx,) = static.gradients([layers.reduce_sum(out * out)], [x])
    got = run_default_programs([out, dx], {"x": np.arange(6.0).reshape(2, 3),
                                           "n": np.array([0, 3])}, return_numpy=False)
    np.testing.assert_array_equal(np.array(got[0]), [[3], [4], [5]])
    assert got[0].recursive_sequence_lengths() == [[0, 3]]
    np.testing.assert_array_equal(np.array(got[1]), [[0, 0, 0], [6, 8, 10]])
