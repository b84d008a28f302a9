"""The fused rnn op (nn.SimpleRNN / LSTM / GRU) against the same network unrolled into one
copy of its cell's ops per time step (nn.RNN / BiRNN over the same cells): outputs, final
states and every gradient, over drawn modes, depths, directions, lengths and layouts, in
static and dynamic mode."""
import numpy as np
from hypothesis import given, settings, strategies as st

import refimpl as paddle
import refimpl.nn as nn
from refimpl import static
from refimpl.framework import mode as framework_mode

NETS = {"LSTM": nn.LSTM, "GRU": nn.GRU, "RNN_TANH": nn.SimpleRNN}


def _unrolled(net, x, lengths):
    """net's layers run as the cell-per-step graph (the layers' own cells)."""
    finals = []
    for i, layer in enumerate(net):
        x, final = layer._run(x, None, lengths, True)
        finals.append(final)
    return x, finals


def _state_rows(net, finals):
    """Per-layer final states of the unrolled run -> h [L*D, B, H] (numpy)."""
    rows = []
    for final in finals:
        for state in (final if net.num_directions == 2 else (final,)):
            rows.append(state[0] if net.state_components == 2 else state)
    return rows


def _loss(out, h, use_state):
    return paddle.sum(out * out) + (paddle.sum(h * h) if use_state else 0.0)


def _run_static(net_args, lengths, a):
    """(fused outputs, h, unrolled outputs, h) of one static program."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        net = NETS[net_args[0]](a.shape[-1], 5, *net_args[1:])
        x = static.data("x", list(a.shape), "float32")
        length = None if lengths is None else static.data("len", [len(lengths)], "int64")
        fused, states = net(x, sequence_length=length)
        unrolled, finals = _unrolled(net, x, length)
        fetch = [fused, states[0] if net.state_components == 2 else states, unrolled,
                 paddle.stack(_state_rows(net, finals), axis=0)]
    exe = static.Executor()
    scope = static.Scope()
    exe.run(startup, scope=scope)
    feed = {"x": a} if lengths is None else {"x": a, "len": lengths}
    return exe.run(main, feed=feed, scope=scope, fetch_list=fetch)


def _eager_grads(net_args, lengths, a, use_state):
    """Gradients of sum(out^2) (+ sum(h^2) if use_state) with respect to the input and every parameter,
    run eagerly through the fused op, then through the unrolled cells."""
    was = framework_mode.dynamic
    framework_mode.dynamic = True
    try:
        net = NETS[net_args[0]](a.shape[-1], 5, *net_args[1:])
        length = None if lengths is None else paddle.to_tensor(lengths)
        grads = []
        for run in (lambda x: net(x, sequence_length=length),
                    lambda x: (lambda out, finals: (out, paddle.stack(
                        _state_rows(net, finals), axis=0)))(*_unrolled(net, x, length))):
            x = paddle.to_tensor(a, stop_gradient=False)
            out, states = run(x)
            h = states[0] if isinstance(states, tuple) else states
            _loss(out, h, use_state).backward()
            grads.append([np.array(t.grad) for t in [x] + net.parameters()])
            net.clear_gradients()
        return grads
    finally:
        framework_mode.dynamic = was


@settings(max_examples=12, deadline=None)
@given(mode=st.sampled_from(sorted(NETS)), layers=st.integers(1, 2),
       bidirectional=st.booleans(), time_major=st.booleans(), ragged=st.booleans(),
       use_state=st.booleans(), seed=st.integers(0, 2 ** 31 - 1))
def test_fused_rnn_matches_the_unrolled_cells(mode, layers, bidirectional, time_major, ragged,
                                             use_state, seed):
    rng = np.random.RandomState(seed)
    batch, steps = 3, 4
    shape = (steps, batch, 3) if time_major else (batch, steps, 3)
    a = rng.uniform(-1, 1, shape).astype("float32")
    lengths = rng.randint(1, steps + 1, batch).astype("int64") if ragged else None
    net_args = (mode, layers, "bidirect" if bidirectional else "forward", time_major)
    out, h, want_out, want_h = _run_static(net_args, lengths, a)
    np.testing.assert_allclose(out, want_out, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h, want_h, rtol=1e-5, atol=1e-6)
    grads, want_grads = _eager_grads(net_args, lengths, a, use_state)
    assert len(grads) == 1 + 4 * layers * (2 if bidirectional else 1)
    for got, want in zip(grads, want_grads):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_dropout_state_is_the_all_kept_mask_outside_is_test():
    """Paddle's CPU rnn kernel writes DropoutState as the between-layer dropout mask, Out's
    shape, uint8 ones when nothing is dropped (3.3.1: [3, 2, 4] for a bidirectional
    hidden-2 GRU over [3, 2, 3]); in is_test it stays empty."""
    from refimpl.ops.registry import get_op_def
    rnn = get_op_def("rnn")
    sample = [s for s in rnn.samples(np.random.RandomState(0)) if s.attrs["mode"] == "GRU"][0]
    args = [sample.inputs.get(slot) for slot in rnn.input_slots]
    out, mask, _, _ = rnn.forward(*args, **sample.attrs)
    assert mask.dtype == np.uint8 and mask.shape == out.shape == (3, 2, 4) and mask.all()
    _, mask, _, _ = rnn.forward(*args, **dict(sample.attrs, is_test=True))
    assert mask.shape == (0,)
