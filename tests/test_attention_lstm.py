"""attention_lstm (specs/ops/sequence.md): a one-row sequence worked by hand, and a ragged
batch against a step-by-step numpy loop written here from the op's formulas."""
import numpy as np

from refimpl.fluid import core
from refimpl.fluid.op import Operator

PLACE = core.CPUPlace()


def _run(lengths, **inputs):
    scope = core.Scope()
    for name, value in inputs.items():
        tensor = scope.var(name).get_tensor()
        tensor.set(np.asarray(value, "float64"), PLACE)
        if name == "X":
            tensor.set_recursive_sequence_lengths([lengths])
    Operator("attention_lstm", Hidden="hidden", Cell="cell",
             **{slot: slot for slot in inputs}).run(scope, PLACE)
    return [np.array(scope.find_var(n).get_tensor()) for n in ("hidden", "cell")]


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def test_one_row_attends_to_itself():
    # a single row: softmax of one score is 1, so the LSTM input is the row itself;
    # without H0 the gates are x W[D:] + b with D = M = 1
    x, c0, w, b = 0.5, 0.25, np.array([[9.0], [0.8]]), np.array([[0.1, -0.2, 0.3, 0.4]])
    hidden, cell = _run([1], X=[[x]], C0=[[c0]], AttentionWeight=[[1.0], [2.0]],
                        LSTMWeight=np.tile(w, (1, 4)), LSTMBias=b)
    f, i, o = (_sigmoid(x * 0.8 + b[0, k]) for k in range(3))
    c = f * c0 + i * np.tanh(x * 0.8 + b[0, 3])
    np.testing.assert_allclose(cell, [[c]], rtol=1e-12)
    np.testing.assert_allclose(hidden, [[o * np.tanh(c)]], rtol=1e-12)


def _reference(x, lengths, c0, h0, wa, ba, scalar, scalar_bias, w, b):
    m, d = x.shape[1], w.shape[1] // 4
    hidden, cell, start = [], [], 0
    for n, length in enumerate(lengths):
        seq = x[start:start + length]
        start += length
        c, h = c0[n], h0[n]
        for _ in range(length):
            scores = np.maximum(seq @ wa[:m, 0] + ba + c @ wa[m:, 0], 0)
            scores = np.maximum(scalar * scores + scalar_bias, 0)
            weights = np.exp(scores) / np.exp(scores).sum()
            g = (weights @ seq) @ w[d:] + h @ w[:d] + b
            f, i, o = _sigmoid(g[:d]), _sigmoid(g[d:2 * d]), _sigmoid(g[2 * d:3 * d])
            c = f * c + i * np.tanh(g[3 * d:])
            h = o * np.tanh(c)
            hidden.append(h)
            cell.append(c)
    return np.array(hidden), np.array(cell)


def test_ragged_batch_matches_a_step_by_step_loop():
    rng = np.random.RandomState(0)
    lengths, m, d = [3, 1, 2], 4, 3
    x = rng.randn(6, m)
    c0, h0 = rng.randn(3, d), rng.randn(3, d)
    wa, ba, scalar, scalar_bias = rng.randn(m + d, 1), 0.3, 0.7, -0.2
    w, b = rng.randn(d + m, 4 * d), rng.randn(4 * d)
    hidden, cell = _run(lengths, X=x, C0=c0, H0=h0, AttentionWeight=wa,
                        AttentionBias=[[ba]], AttentionScalar=[[scalar]],
                        AttentionScalarBias=[[scalar_bias]], LSTMWeight=w,
                        LSTMBias=b.reshape(1, -1))
    want_hidden, want_cell = _reference(x, lengths, c0, h0, wa, ba, scalar, scalar_bias, w, b)
    np.testing.assert_allclose(hidden, want_hidden, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(cell, want_cell, rtol=1e-10, atol=1e-12)
