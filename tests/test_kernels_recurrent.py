"""The rnn op's compiled kernels (OpenBLAS on one thread; for float32 the LSTM cell in C,
refimpl/_kernels/lstm_cell.pyx, and stacked LSTM layers in pairs on two threads,
refimpl/_kernels/lstm_pipeline.pyx) against the numpy reference: forward outputs, Reserve
and final states, and every gradient of the BPTT backward, over modes, layers, directions,
with and without SequenceLength (masked steps keep the reference's cell), and gate sums
large enough to saturate the sigmoids and tanh."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from refimpl.dispatch import select_kernel
from refimpl.ops.registry import get_op_def
from refimpl.ops.rnn import MODES

try:
    from refimpl._kernels import lstm_cell, lstm_pipeline
except ImportError:   # not built
    lstm_cell = lstm_pipeline = None


def _case(rng, mode, steps, batch, size, hidden, layers, bidirec, scale, dtype):
    directions = 2 if bidirec else 1
    gates = MODES[mode] * hidden
    weights, biases = [], []
    for k in range(layers * directions):
        width = size if k < directions else directions * hidden
        weights += [rng.randn(gates, width) * scale, rng.randn(gates, hidden) * scale]
        biases += [rng.randn(gates) * scale, rng.randn(gates) * scale]
    states = [rng.randn(layers * directions, batch, hidden)
              for _ in range(2 if mode == "LSTM" else 1)]
    cast = lambda arrays: [a.astype(dtype) for a in arrays]   # noqa: E731
    return (rng.randn(steps, batch, size).astype(dtype), cast(states), cast(weights + biases))


@settings(max_examples=60, deadline=None)
@given(mode=st.sampled_from(["LSTM", "LSTM", "GRU", "RNN_TANH"]), steps=st.integers(1, 5),
       batch=st.integers(1, 4), size=st.integers(1, 5), hidden=st.integers(1, 9),
       layers=st.integers(1, 3), bidirec=st.booleans(), lengths=st.booleans(),
       scale=st.sampled_from([0.5, 8.0]), dtype=st.sampled_from(["float32", "float64"]),
       seed=st.integers(0, 2 ** 31 - 1))
def test_rnn_kernels_match_reference(mode, steps, batch, size, hidden, layers, bidirec,
                                     lengths, scale, dtype, seed):
    _check_against_reference(mode, steps, batch, size, hidden, layers, bidirec, lengths,
                             scale, dtype, seed)


@settings(max_examples=25, deadline=None)
@given(steps=st.integers(1, 6), batch=st.integers(1, 8), size=st.integers(1, 5),
       hidden=st.sampled_from([1, 3, 48]), layers=st.integers(2, 4),
       scale=st.sampled_from([0.3, 4.0]), seed=st.integers(0, 2 ** 31 - 1))
def test_stacked_lstm_pipeline_matches_reference(steps, batch, size, hidden, layers, scale,
                                                 seed):
    """Layer pairs of a one-direction float32 LSTM (an odd top layer alone); hidden 48 with
    6 steps of 8 rows is work enough for the pipeline's two threads, the smaller shapes run
    its two parts one after the other. Weights scale with 1/sqrt(hidden), so that gate sums
    are of one size whatever hidden (float32's rounding grows with the terms summed)."""
    _check_against_reference("LSTM", steps, batch, size, hidden, layers, False, False,
                             scale / np.sqrt(hidden), "float32", seed)


def test_stacked_lstm_pipeline_on_two_threads_matches_reference():
    _check_against_reference("LSTM", 6, 8, 5, 48, 2, False, False, 0.1, "float32", 0)


@pytest.mark.parametrize("mode,layers,bidirec,lengths,dtype", [
    ("LSTM", 2, False, False, "float32"), ("GRU", 2, True, True, "float64"),
    ("LSTM", 1, True, False, "float32")])
def test_rnn_kernels_with_team_gemms_match_reference(mode, layers, bidirec, lengths, dtype):
    """The products outside the time loops (input projections, dInput, weight grads) by
    the team's GEMM, split over its threads: the thresholds put to 0, so these shapes take
    that path too."""
    blas = pytest.importorskip("refimpl._kernels.blas")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(blas, "NUMPY_GEMM_WORK", 0)
        patch.setattr(blas, "MIN_SPLIT_WORK", 0)
        _check_against_reference(mode, 5, 6, 7, 8, layers, bidirec, lengths, 0.5, dtype, 3)


def _check_against_reference(mode, steps, batch, size, hidden, layers, bidirec, lengths,
                             scale, dtype, seed):
    fast_fwd, fast_bwd = (select_kernel("rnn", which, {}, dtype)
                          for which in ("forward", "backward"))
    if not fast_fwd.compiled:
        pytest.skip("compiled kernels disabled or not built")
    op = get_op_def("rnn")
    rng = np.random.RandomState(seed)
    x, states, weight_list = _case(rng, mode, steps, batch, size, hidden, layers, bidirec,
                                   scale, dtype)
    seq = rng.randint(1, steps + 1, batch).astype(np.int32) if lengths else None
    attrs = {"mode": mode, "num_layers": layers, "is_bidirec": bidirec, "input_size": size,
             "hidden_size": hidden}
    rtol, atol = op.tolerances[dtype]
    got = fast_fwd.fn(x, states, weight_list, seq, **attrs)
    want = op.forward(x, states, weight_list, seq, **attrs)
    for g, w in zip((got[0], got[2]) + tuple(got[3]), (want[0], want[2]) + tuple(want[3])):
        np.testing.assert_allclose(g, w, rtol, atol)
    dout = rng.randn(*want[0].shape).astype(dtype)
    dstates = [rng.randn(*s.shape).astype(dtype) for s in states]
    got_grads = fast_bwd.fn(x, states, weight_list, seq, want[2], dout, dstates, **attrs)
    want_grads = op.backward(x, states, weight_list, seq, want[2], dout, dstates, **attrs)
    np.testing.assert_allclose(got_grads[0], want_grads[0], rtol, atol)
    for g, w in zip(got_grads[1] + got_grads[2], want_grads[1] + want_grads[2]):
        np.testing.assert_allclose(g, w, rtol, atol)


@pytest.mark.skipif(lstm_cell is None, reason="compiled kernels not built")
def test_lstm_cell_kernels_reject_bad_shapes_and_strides():
    record = np.zeros((2, 12), np.float32)
    with pytest.raises(ValueError, match=r"lstm_step: expected \[2, 8\], got \[2, 6\]"):
        lstm_cell.lstm_step(np.zeros((2, 6), np.float32), np.zeros((2, 8), np.float32),
                            np.zeros((2, 2), np.float32), record, 2)
    with pytest.raises(ValueError, match="lstm_grad_step: expected unit stride"):
        lstm_cell.lstm_grad_step(record, np.zeros((2, 4), np.float32)[:, ::2],
                                 np.zeros((2, 2), np.float32), np.zeros((2, 2), np.float32),
                                 np.zeros((2, 8), np.float32), 2)


@pytest.mark.skipif(lstm_pipeline is None, reason="compiled kernels not built")
def test_lstm_pipeline_rejects_bad_shapes_and_layouts():
    steps, batch, hidden = 2, 3, 4
    zeros = lambda *shape: np.zeros(shape, np.float32)   # noqa: E731
    layer = (zeros(4 * hidden, hidden), zeros(4 * hidden), zeros(batch, hidden),
             zeros(batch, hidden), zeros(steps, batch, 6 * hidden))
    bad = layer[:4] + (zeros(steps, batch, 5 * hidden),)
    gates = zeros(steps, batch, 4 * hidden)
    with pytest.raises(ValueError, match=r"layer 2 reserve expected C-contiguous float32 "
                                         r"\[2, 3, 24\], got float32 \[2, 3, 20\]"):
        lstm_pipeline.lstm_pair_forward(layer, bad, zeros(4 * hidden, hidden),
                                        zeros(4 * hidden), gates, gates.copy(),
                                        zeros(steps, batch, hidden))
    with pytest.raises(ValueError, match="dout2 expected C-contiguous"):
        lstm_pipeline.lstm_pair_backward(layer, layer, zeros(4 * hidden, hidden), gates,
                                         gates.copy(), zeros(steps, batch, hidden),
                                         zeros(steps, batch, 2 * hidden)[:, :, ::2],
                                         (zeros(batch, hidden),) * 2,
                                         (zeros(batch, hidden),) * 2)
