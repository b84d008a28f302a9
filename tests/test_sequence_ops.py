"""Sequence ops on packed rows plus lengths (specs/ops/sequence.md): values against numpy
references written here, on the ragged batch of lengths [3, 1, 2]."""
import numpy as np
import pytest

from refimpl import fluid
from refimpl.framework.program import Program, program_guard
from refimpl.framework.scope import Scope

LENS = [3, 1, 2]
ROWS = np.arange(12, dtype=np.float32).reshape(6, 2) * np.array([1, -1], np.float32)


def _seqs(x=ROWS, lens=LENS):
    off = np.cumsum([0] + list(lens))
    return [x[a:b] for a, b in zip(off[:-1], off[1:])]


def _run(build, feed):
    """Build with `build()` (returns fetch vars) in a fresh program; run on `feed`."""
    main, startup = Program(), Program()
    with program_guard(main, startup):
        fetch = build()
    exe = fluid.Executor(fluid.CPUPlace())
    scope = Scope()
    exe.run(startup, scope=scope)
    return exe.run(main, feed=feed, fetch_list=list(fetch), scope=scope)


def _lod(x=ROWS, lens=LENS):
    return fluid.create_lod_tensor(x, [list(lens)], fluid.CPUPlace())


def _seq_input(name="x", width=2):
    return fluid.data(name, [-1, width], "float32", lod_level=1)


@pytest.mark.parametrize("pool_type,reference", [
    ("sum", lambda s: s.sum(0)), ("average", lambda s: s.mean(0)),
    ("sqrt", lambda s: s.sum(0) / np.sqrt(len(s))), ("max", lambda s: s.max(0)),
    ("first", lambda s: s[0]), ("last", lambda s: s[-1])])
def test_sequence_pool_from_a_fed_lod_tensor(pool_type, reference):
    out, = _run(lambda: [fluid.layers.sequence_pool(_seq_input(), pool_type)],
                {"x": _lod()})
    np.testing.assert_allclose(out, [reference(s) for s in _seqs()], rtol=1e-6)


def test_first_last_step_and_empty_sequence_pad_value():
    lens = np.array([2, 0, 4], np.int64)
    x = np.random.RandomState(0).rand(6, 3).astype(np.float32)

    def build():
        v = fluid.data("x", [-1, 3], "float32")
        n = fluid.data("n", [-1], "int64")
        return [fluid.layers.sequence_first_step(v, length=n),
                fluid.layers.sequence_last_step(v, length=n),
                fluid.layers.sequence_pool(v, "sum", pad_value=7.0, length=n)]
    first, last, total = _run(build, {"x": x, "n": lens})
    np.testing.assert_allclose(first, [x[0], np.zeros(3), x[2]])
    np.testing.assert_allclose(last, [x[1], np.zeros(3), x[5]])
    np.testing.assert_allclose(total, [x[:2].sum(0), np.full(3, 7.0), x[2:].sum(0)], rtol=1e-6)


def test_pad_then_unpad_round_trips():
    def build():
        x = _seq_input()
        pad = fluid.layers.fill_constant([1], "float32", -1.0)
        padded, length = fluid.layers.sequence_pad(x, pad, maxlen=4)
        return [padded, length, fluid.layers.sequence_unpad(padded, length)]
    padded, length, back = _run(build, {"x": _lod()})
    expect = np.full((3, 4, 2), -1.0, np.float32)
    for i, s in enumerate(_seqs()):
        expect[i, :len(s)] = s
    np.testing.assert_array_equal(padded, expect)
    np.testing.assert_array_equal(length, LENS)
    np.testing.assert_array_equal(back, ROWS)


def test_softmax_reverse_keep_lengths_for_the_next_op():
    x = ROWS[:, :1] / 10

    def build():
        v = _seq_input(width=1)
        soft = fluid.layers.sequence_softmax(v)
        return [soft, fluid.layers.sequence_reverse(soft),
                fluid.layers.sequence_pool(fluid.layers.sequence_reverse(v), "first")]
    soft, rev, first = _run(build, {"x": _lod(x)})
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
        return [expanded, expanded._seq_length, fluid.layers.sequence_expand(rows, yv),
                fluid.layers.sequence_expand_as(rows, yv), concat, concat._seq_length,
                sliced, fluid.layers.sequence_pool(sliced, "sum")]
    r = np.array([[1, 2], [3, 4], [5, 6]], np.float32)
    outs = _run(build, {"x": _lod(), "y": _lod(y, y_lens), "r": r,
                        "off": np.array([[1], [0], [1]]), "size": np.array([[2], [1], [0]])})
    expanded, expanded_len, rows_expanded, rows_as, concat, concat_len, sliced, sliced_sum = outs
    s = _seqs()
    np.testing.assert_array_equal(expanded, np.concatenate([s[0], s[0], s[2], s[2], s[2]]))
    np.testing.assert_array_equal(expanded_len, [3, 3, 2, 2, 2])
    np.testing.assert_array_equal(rows_expanded, r[[0, 0, 2, 2, 2]])
    np.testing.assert_array_equal(rows_as, r[[0, 0, 2, 2, 2]])
    np.testing.assert_array_equal(concat, np.concatenate([np.concatenate([q, q]) for q in s]))
    np.testing.assert_array_equal(concat_len, [6, 2, 4])
    np.testing.assert_array_equal(sliced, np.concatenate([s[0][1:3], s[1][0:1]]))
    np.testing.assert_array_equal(sliced_sum, [s[0][1:3].sum(0), s[1][0], [0, 0]])


def test_sequence_mask():
    def build():
        n = fluid.data("n", [-1], "int64")
        return [fluid.layers.sequence_mask(n), fluid.layers.sequence_mask(n, 4, "float32")]
    mask, mask4 = _run(build, {"n": np.array(LENS)})
    np.testing.assert_array_equal(mask, [[1, 1, 1], [1, 0, 0], [1, 1, 0]])
    np.testing.assert_array_equal(mask4, [[1, 1, 1, 0], [1, 0, 0, 0], [1, 1, 0, 0]])
    assert mask4.dtype == np.float32


def test_sequence_pool_gradient_through_the_program():
    def build():
        x = fluid.data("x", [-1, 2], "float32", lod_level=1)
        x.stop_gradient = False
        loss = fluid.layers.reduce_sum(fluid.layers.sequence_pool(x, "average"))
        return fluid.gradients([loss], [x])
    grad, = _run(build, {"x": _lod()})
    np.testing.assert_allclose(grad, np.repeat(1.0 / np.array(LENS), LENS)[:, None]
                               * np.ones((1, 2)), rtol=1e-6)


def test_errors_name_the_layer_and_the_problem():
    with program_guard(Program(), Program()):
        dense = fluid.data("d", [-1, 2], "float32")
        with pytest.raises(ValueError, match="sequence_pool.*'d' carries no sequence lengths"):
            fluid.layers.sequence_pool(dense, "sum")
    with pytest.raises(Exception, match="XLength \\[3, 1, 2\\] add up to 6, but the input "
                                        "has 5 rows"):
        _run(lambda: [fluid.layers.sequence_pool(_seq_input(), "sum")],
             {"x": ROWS[:5], "x@LENGTH": np.array(LENS)})
