"""rnn: Paddle's fused recurrent op behind nn.SimpleRNN / nn.LSTM / nn.GRU. A whole
multi-layer (optionally bidirectional) network over time-major Input [T, B, I].

Per layer and direction, one GEMM projects every time step's input (x W_ih^T + b_ih,
[T*B, G*H]); each step then does one recurrent GEMM (h W_hh^T + b_hh) and the cell:
  RNN_TANH / RNN_RELU   h' = act(xw + hw)
  LSTM (gates i,f,g,o)  c' = sig(f) c + sig(i) tanh(g);  h' = sig(o) tanh(c')
  GRU  (gates r,z,c)    r = sig(xr + hr), z = sig(xz + hz), c~ = tanh(xc + r * hc),
                        h' = (h - c~) z + c~
With SequenceLength, past each sequence's end the states are carried unchanged and the
outputs are zero. Layer l > 0 reads layer l-1's outputs (directions concatenated).
Reserve keeps what the backward needs (activated gates and the states of every step), so
the BPTT backward runs no forward again; Paddle declares it intermediate and lays it out
its own way (CPU [13, 12] where refimpl's is [2, 3, 2, 12]; cuDNN's reserve space on a
GPU), so its contents are refimpl's own (OpDef.internal_outputs). DropoutState is the
mask of the dropout between layers, Out's shape, uint8 1 = kept, as Paddle's CPU kernel
writes it outside is_test (all ones: refimpl runs no dropout inside the op); in is_test
it stays empty.
`lstm_kernels` (forward and backward): an optional (step, grad_step) pair that does an
unmasked LSTM step's cell in one pass (the GPU's fused kernels, refimpl/_kernels/gpu/
recurrent.py, the CPU's refimpl/_kernels/lstm_cell.pyx); the numpy lines below are what
they compute. `step_loop`: an optional decorator for the functions that run the time steps
(the CPU kernels run the small per-step GEMMs with BLAS on one thread, the large ones
outside the loops on all). `lstm_pair` (forward and backward): an optional (forward,
backward) pair of functions that run the time steps of two stacked layers of a
one-direction LSTM without SequenceLength together (the CPU's pipeline on two threads,
refimpl/_kernels/lstm_pipeline.pyx); the layers below are what they compute. `gemm`
(forward and backward): an optional matrix product for the large GEMMs outside the time
loops (the CPU kernels': the kernels' thread team, refimpl._kernels.blas.matmul); `@`
without it.
"""
import operator

import numpy as np

from ..xp import array_module
from ._common import rand
from .registry import OpDef, Sample, register

MODES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}
# Reserve floats per (layer, direction, step, batch row), in units of hidden_size:
# LSTM gates i f g o, c, h; GRU r z c~, hc (h W_hc^T + b_hc), h; RNN h
RESERVE_WIDTH = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 6, "GRU": 5}


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _gates(a, count, hidden):
    """The first `count` [rows, hidden] column blocks of a (views; np.split is slower)."""
    return [a[:, k * hidden:(k + 1) * hidden] for k in range(count)]


def _weights(weight_list, num_layers, directions):
    """Paddle's WeightList order (every layer's and direction's W_ih, W_hh, then their
    b_ih, b_hh) -> [(w_ih, w_hh, b_ih, b_hh)] per (layer, direction)."""
    cells = num_layers * directions
    return [(weight_list[2 * k], weight_list[2 * k + 1], weight_list[2 * cells + 2 * k],
             weight_list[2 * cells + 2 * k + 1]) for k in range(cells)]


def _masks(sequence_length, steps, dtype):
    """[T, B, 1] 1/0 masks (step t < length), or None without lengths."""
    if sequence_length is None:
        return None
    xp = array_module(sequence_length)
    t = xp.arange(steps).reshape(-1, 1, 1)
    return (t < sequence_length.reshape(1, -1, 1)).astype(dtype)


def _run_direction(x, h, c, weights, mode, reverse, masks, reserve, lstm_kernels=None,
                   step_loop=None, gemm=operator.matmul):
    """One layer, one direction over x [T, B, I] from states h (, c): fills reserve
    [T, B, width*H] and returns (outputs [T, B, H], final h, final c)."""
    fused = lstm_kernels is not None and mode == "LSTM" and masks is None
    w_ih, w_hh, b_ih, b_hh = weights
    steps, batch, hidden = x.shape[0], x.shape[1], w_hh.shape[1]
    xw = _input_projection(x, w_ih, b_ih, gemm)
    out = array_module(x).empty((steps, batch, hidden), x.dtype)
    h, c = (step_loop or _plain)(_forward_steps)(xw, h, c, w_hh, b_hh, mode, reverse, masks,
                                                 reserve, out, lstm_kernels if fused else None)
    return out, h, c


def _input_projection(x, w_ih, b_ih, gemm):
    """x W_ih^T + b_ih for every step at once: [T, B, G*H]."""
    steps, batch = x.shape[0], x.shape[1]
    return (gemm(x.reshape(steps * batch, -1), w_ih.T) + b_ih).reshape(steps, batch, -1)


def _layer_groups(num_layers, paired):
    """The layers in the order they run: in pairs (l, l + 1) where `paired`, else one by
    one."""
    groups, layer = [], 0
    while layer < num_layers:
        size = 2 if paired and layer + 1 < num_layers else 1
        groups.append(tuple(range(layer, layer + size)))
        layer += size
    return groups


def _pair_layers(pre_state, cells, layers, reserve):
    """(w_hh, b_hh, h0, c0, Reserve) of each of two LSTM layers, C-contiguous, as
    lstm_pair's functions take them."""
    c = np.ascontiguousarray
    return [(c(cells[k][1]), c(cells[k][3]), c(pre_state[0][k]), c(pre_state[1][k]),
             reserve[k]) for k in layers]


def _run_pair(x, pre_state, cells, layers, reserve, lstm_pair, gemm):
    """Two stacked layers of a one-direction LSTM without lengths by lstm_pair's forward:
    fills both Reserves and returns the upper layer's outputs [T, B, H]."""
    lower, upper = (cells[k] for k in layers)
    xw = _input_projection(x, lower[0], lower[2], gemm)
    out = np.empty(xw.shape[:2] + (lower[1].shape[1],), x.dtype)
    lstm_pair[0](*_pair_layers(pre_state, cells, layers, reserve),
                 np.ascontiguousarray(upper[0]), np.ascontiguousarray(upper[2]), xw,
                 np.empty_like(xw), out)
    return out


def _forward_steps(xw, h, c, w_hh, b_hh, mode, reverse, masks, reserve, out, lstm_kernels):
    """The time steps of _run_direction (lstm_kernels: the fused cell, or None); returns the
    final (h, c)."""
    steps, hidden = xw.shape[0], w_hh.shape[1]
    for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
        hw = h @ w_hh.T + b_hh
        record = reserve[t]
        if lstm_kernels:   # gates, c and h written into record by one kernel
            h, c = lstm_kernels[0](xw[t], hw, c, record, hidden)
            out[t] = h
            continue
        if mode == "LSTM":
            gates = record[:, :4 * hidden]
            np.add(xw[t], hw, out=gates)
            gates[:, :2 * hidden] = _sigmoid(gates[:, :2 * hidden])
            gates[:, 2 * hidden:3 * hidden] = np.tanh(gates[:, 2 * hidden:3 * hidden])
            gates[:, 3 * hidden:] = _sigmoid(gates[:, 3 * hidden:])
            i, f, g, o = _gates(gates, 4, hidden)
            c_new = f * c + i * g
            h_new = o * np.tanh(c_new)
        elif mode == "GRU":
            r = _sigmoid(xw[t, :, :hidden] + hw[:, :hidden])
            z = _sigmoid(xw[t, :, hidden:2 * hidden] + hw[:, hidden:2 * hidden])
            cand = np.tanh(xw[t, :, 2 * hidden:] + r * hw[:, 2 * hidden:])
            record[:, :4 * hidden] = np.concatenate([r, z, cand, hw[:, 2 * hidden:]], axis=1)
            h_new = (h - cand) * z + cand
        else:
            pre = xw[t] + hw
            h_new = np.tanh(pre) if mode == "RNN_TANH" else np.maximum(pre, 0)
        if masks is not None:
            h_new = masks[t] * h_new + (1 - masks[t]) * h
            if mode == "LSTM":
                c_new = masks[t] * c_new + (1 - masks[t]) * c
        h = h_new
        if mode == "LSTM":
            c = c_new
            record[:, 4 * hidden:5 * hidden] = c
        record[:, -hidden:] = h
        out[t] = h if masks is None else masks[t] * h
    return h, c


def _plain(fn):
    return fn


def rnn_forward(x, pre_state, weight_list, sequence_length, mode, num_layers, is_bidirec,
                lstm_kernels=None, step_loop=None, lstm_pair=None, gemm=operator.matmul):
    """(Out [T, B, D*H], Reserve [L*D, T, B, width*H], final states [L*D, B, H] (h, and
    c for LSTM))."""
    directions = 2 if is_bidirec else 1
    cells = _weights(weight_list, num_layers, directions)
    steps, batch = x.shape[0], x.shape[1]
    hidden = cells[0][1].shape[1]
    masks = _masks(sequence_length, steps, x.dtype)
    reserve = array_module(x).empty((len(cells), steps, batch, RESERVE_WIDTH[mode] * hidden),
                                    x.dtype)
    finals = [np.empty_like(state) for state in pre_state]
    layer_input = x
    paired = lstm_pair is not None and mode == "LSTM" and directions == 1 and masks is None
    for group in _layer_groups(num_layers, paired):
        if len(group) == 2:
            layer_input = _run_pair(layer_input, pre_state, cells, group, reserve, lstm_pair,
                                    gemm)
            for k in group:
                finals[0][k] = reserve[k, -1, :, 5 * hidden:]
                finals[1][k] = reserve[k, -1, :, 4 * hidden:5 * hidden]
            continue
        layer = group[0]
        outputs = []
        for d in range(directions):
            k = layer * directions + d
            c0 = pre_state[1][k] if mode == "LSTM" else None
            out, h, c = _run_direction(layer_input, pre_state[0][k], c0, cells[k], mode,
                                       d == 1, masks, reserve[k], lstm_kernels, step_loop,
                                       gemm)
            outputs.append(out)
            finals[0][k] = h
            if mode == "LSTM":
                finals[1][k] = c
        layer_input = outputs[0] if directions == 1 else np.concatenate(outputs, axis=2)
    return layer_input, reserve, finals


def _back_direction(x, h0, c0, weights, mode, reverse, masks, record, dout, dh, dc,
                    lstm_kernels=None, step_loop=None, gemm=operator.matmul):
    """BPTT through one layer and direction; returns (dx, dh0, dc0, [dw_ih, dw_hh, db_ih,
    db_hh])."""
    fused = lstm_kernels is not None and mode == "LSTM" and masks is None
    w_ih, w_hh, _, _ = weights
    steps, batch = x.shape[0], x.shape[1]
    gates = w_hh.shape[0]
    xp = array_module(x)
    dxw = xp.empty((steps, batch, gates), x.dtype)   # d(x W_ih^T + b_ih) per step
    # d(h W_hh^T + b_hh) per step: the same as dxw but for GRU's candidate gate
    dhw = xp.empty((steps, batch, gates), x.dtype) if mode == "GRU" else dxw
    order = list(range(steps - 1, -1, -1) if reverse else range(steps))
    h_prev = _states_read(record, h0, order)
    dh, dc = (step_loop or _plain)(_backward_steps)(
        record, order, c0, h_prev, w_hh, mode, masks, dout, dh, dc, dxw, dhw,
        lstm_kernels if fused else None)
    return (_input_grad(dxw, w_ih, x.shape, gemm), dh, dc,
            _weight_grads(x, h_prev, dxw, dhw, gemm))


def _states_read(record, h0, order):
    """h_prev [T, B, H]: the state each step read (h0 for the first in `order`)."""
    hidden = h0.shape[-1]
    h_prev = array_module(record).empty(record.shape[:2] + (hidden,), record.dtype)
    for n, t in enumerate(order):
        h_prev[t] = h0 if n == 0 else record[order[n - 1], :, -hidden:]
    return h_prev


def _input_grad(dxw, w_ih, shape, gemm):
    """d x from the grads of x W_ih^T + b_ih [T, B, G*H]."""
    return gemm(dxw.reshape(-1, dxw.shape[-1]), w_ih).reshape(shape)


def _weight_grads(x, h_prev, dxw, dhw, gemm):
    """[dW_ih, dW_hh, db_ih, db_hh] from the grads of x W_ih^T + b_ih (dxw) and of
    h W_hh^T + b_hh (dhw), each [T, B, G*H]."""
    flat_dxw = dxw.reshape(-1, dxw.shape[-1])
    flat_dhw = dhw.reshape(-1, dhw.shape[-1])
    db_ih = flat_dxw.sum(0)
    return [gemm(flat_dxw.T, x.reshape(flat_dxw.shape[0], -1)),
            gemm(flat_dhw.T, h_prev.reshape(flat_dhw.shape[0], -1)),
            db_ih, db_ih if dhw is dxw else flat_dhw.sum(0)]


def _back_pair(x, pre_state, cells, layers, reserve, dout, dpre, lstm_pair, gemm):
    """BPTT through _run_pair's two layers by lstm_pair's backward: updates their state
    grads in dpre; returns (dx, {k: [dW_ih, dW_hh, db_ih, db_hh]})."""
    hidden = cells[layers[0]][1].shape[1]
    steps, batch = dout.shape[0], dout.shape[1]
    dgates = [np.empty((steps, batch, 4 * hidden), x.dtype) for _ in layers]
    dout_lower = np.empty((steps, batch, hidden), x.dtype)
    initial = lstm_pair[1](*_pair_layers(pre_state, cells, layers, reserve),
                           np.ascontiguousarray(cells[layers[1]][0]), *dgates, dout_lower,
                           np.ascontiguousarray(dout),
                           *[(dpre[0][k], dpre[1][k]) for k in layers])
    grads = {}
    order = range(steps)
    for k, layer_input, dxw, (dh0, dc0) in zip(layers, (x, reserve[layers[0], :, :, -hidden:]),
                                               dgates, initial):
        dpre[0][k], dpre[1][k] = dh0, dc0
        h_prev = _states_read(reserve[k], pre_state[0][k], order)
        grads[k] = _weight_grads(layer_input, h_prev, dxw, dxw, gemm)
    return _input_grad(dgates[0], cells[layers[0]][0], x.shape, gemm), grads


def _backward_steps(record, order, c0, h_prev, w_hh, mode, masks, dout, dh, dc, dxw, dhw,
                    lstm_kernels):
    """The time steps of _back_direction, last first: fill dxw and dhw; return the grads
    (dh, dc) of the states the first step read."""
    hidden = w_hh.shape[1]
    for n in range(len(order) - 1, -1, -1):
        t = order[n]
        rec = record[t]
        dstate = dh + dout[t]
        if masks is not None:   # carried past the end: the grad flows straight through
            dh_new, dh_pass = masks[t] * dstate, (1 - masks[t]) * dh
        else:
            dh_new, dh_pass = dstate, 0
        if lstm_kernels:   # the gates' grads into dxw[t] and the carried dc, one kernel
            c_prev = c0 if n == 0 else record[order[n - 1], :, 4 * hidden:5 * hidden]
            dc = lstm_kernels[1](rec, c_prev, dh_new, dc, dxw[t], hidden)
        elif mode == "LSTM":
            c_prev = c0 if n == 0 else record[order[n - 1], :, 4 * hidden:5 * hidden]
            i, f, g, o = _gates(rec, 4, hidden)
            tanh_c = np.tanh(rec[:, 4 * hidden:5 * hidden])
            dc_new = dh_new * o * (1 - tanh_c * tanh_c)
            if masks is not None:
                dc_new += masks[t] * dc
                dc_pass = (1 - masks[t]) * dc
            else:
                dc_new += dc
                dc_pass = 0
            grads = dxw[t]
            grads[:, :hidden] = dc_new * g * i * (1 - i)
            grads[:, hidden:2 * hidden] = dc_new * c_prev * f * (1 - f)
            grads[:, 2 * hidden:3 * hidden] = dc_new * i * (1 - g * g)
            grads[:, 3 * hidden:] = dh_new * tanh_c * o * (1 - o)
            dc = dc_new * f + dc_pass
        elif mode == "GRU":
            r, z, cand, hc = _gates(rec, 4, hidden)
            dz = dh_new * (h_prev[t] - cand) * z * (1 - z)
            dcand = dh_new * (1 - z) * (1 - cand * cand)
            dr = dcand * hc * r * (1 - r)
            dxw[t] = np.concatenate([dr, dz, dcand], axis=1)
            dhw[t] = np.concatenate([dr, dz, dcand * r], axis=1)
            dh_pass = dh_pass + dh_new * z
        else:
            h_new = rec[:, -hidden:]
            act_grad = 1 - h_new * h_new if mode == "RNN_TANH" else (h_new > 0)
            dxw[t] = dh_new * act_grad
        dh = dhw[t] @ w_hh + dh_pass
    return dh, dc


def rnn_backward(x, pre_state, weight_list, sequence_length, reserve, dout, dstates, mode,
                 num_layers, is_bidirec, lstm_kernels=None, step_loop=None, lstm_pair=None,
                 gemm=operator.matmul):
    """(dInput, [dPreState], [dWeightList]) by back-propagation through time."""
    directions = 2 if is_bidirec else 1
    cells = _weights(weight_list, num_layers, directions)
    steps, hidden = x.shape[0], cells[0][1].shape[1]
    masks = _masks(sequence_length, steps, x.dtype)
    xp = array_module(x)
    dpre = [xp.zeros_like(s) if d is None else d.copy()
            for s, d in zip(pre_state, dstates)]   # the final states' grads, then h0's
    dweights = [None] * len(weight_list)
    douts = xp.zeros(x.shape[:2] + (directions * hidden,), x.dtype) if dout is None else dout
    cells_total = num_layers * directions
    paired = lstm_pair is not None and mode == "LSTM" and directions == 1 and masks is None
    for group in reversed(_layer_groups(num_layers, paired)):
        layer = group[0]
        if layer == 0:
            layer_input = x
        else:   # the outputs of the layer below, rebuilt from its states in Reserve
            below = [reserve[(layer - 1) * directions + d, :, :, -hidden:]
                     for d in range(directions)]
            layer_input = np.concatenate(below, axis=2) if directions == 2 else below[0]
            if masks is not None:
                layer_input = masks * layer_input
        if len(group) == 2:
            douts, grads = _back_pair(layer_input, pre_state, cells, group, reserve, douts,
                                      dpre, lstm_pair, gemm)
            for k in group:
                _store_weight_grads(dweights, grads[k], k, cells_total, x.dtype)
            continue
        dinput = 0
        for d in range(directions):
            k = layer * directions + d
            c0 = pre_state[1][k] if mode == "LSTM" else None
            dc = dpre[1][k] if mode == "LSTM" else None
            dx, dh0, dc0, grads = _back_direction(
                layer_input, pre_state[0][k], c0, cells[k], mode, d == 1, masks, reserve[k],
                douts[:, :, d * hidden:(d + 1) * hidden], dpre[0][k], dc, lstm_kernels,
                step_loop, gemm)
            dinput = dinput + dx
            dpre[0][k] = dh0
            if mode == "LSTM":
                dpre[1][k] = dc0
            _store_weight_grads(dweights, grads, k, cells_total, x.dtype)
        douts = dinput if masks is None or layer == 0 else masks * dinput
    return douts.astype(x.dtype), dpre, dweights


def _store_weight_grads(dweights, grads, k, cells_total, dtype):
    """Cell k's [dW_ih, dW_hh, db_ih, db_hh] into their places in WeightList's order."""
    for j, grad in enumerate(grads):
        slot = 2 * k + j if j < 2 else 2 * cells_total + 2 * k + j - 2
        dweights[slot] = grad.astype(dtype)


@register
class RNN(OpDef):
    type = "rnn"
    inputs = ("Input", "PreState*", "WeightList*", "SequenceLength?")
    outputs = ("Out", "DropoutState", "Reserve", "State*")
    internal_outputs = ("Reserve",)
    attrs = {"dropout_prob": 0.0, "is_bidirec": False, "input_size": 10, "hidden_size": 100,
             "num_layers": 1, "mode": "RNN_TANH", "seed": 0, "is_test": False}
    no_grad = ("SequenceLength",)
    grad_inputs = ("Input", "PreState*", "WeightList*", "SequenceLength?", "Reserve",
                   "Out@GRAD?", "State@GRAD*?")
    tolerances = {"float32": (1e-4, 1e-5), "float64": (1e-7, 1e-9)}

    def infer_shape(self, ctx):
        mode = ctx.attr("mode")
        ctx.expect(mode in MODES, "attr mode must be one of %s, got %r" % (sorted(MODES), mode))
        ctx.expect(ctx.attr("dropout_prob") == 0 or ctx.attr("is_test"),
                   "dropout between layers (dropout_prob=%s) is not run inside refimpl's rnn "
                   "op; nn.%s adds dropout ops between one-layer rnn ops instead"
                   % (ctx.attr("dropout_prob"), "LSTM" if mode == "LSTM" else mode))
        ctx.check_dtype("Input", ("float32", "float64"))
        x = ctx.input_var("Input")
        layers, hidden = ctx.attr("num_layers"), ctx.attr("hidden_size")
        directions = 2 if ctx.attr("is_bidirec") else 1
        gates = MODES[mode] * hidden
        ctx.expect(len(x.shape) == 3, "input Input %r: expected [time, batch, input_size], "
                   "got %s" % (x.name, list(x.shape)))
        states = 2 if mode == "LSTM" else 1
        ctx.expect(ctx.input_count("PreState") == states, "input PreState: %s takes %d "
                   "states, got %d" % (mode, states, ctx.input_count("PreState")))
        ctx.expect(ctx.input_count("WeightList") == 4 * layers * directions,
                   "input WeightList: expected %d weights (W_ih, W_hh, b_ih, b_hh per layer "
                   "and direction), got %d" % (4 * layers * directions,
                                              ctx.input_count("WeightList")))
        for k in range(layers * directions):
            width = ctx.attr("input_size") if k < directions else directions * hidden
            for i, shape in ((2 * k, (gates, width)), (2 * k + 1, (gates, hidden)),
                             (2 * layers * directions + 2 * k, (gates,)),
                             (2 * layers * directions + 2 * k + 1, (gates,))):
                w = ctx.input_var("WeightList", i)
                ctx.expect(tuple(w.shape) == shape, "input WeightList[%d] %r: expected %s, "
                           "got %s" % (i, w.name, list(shape), list(w.shape)))
        for i in range(states):
            s = ctx.input_var("PreState", i)
            ctx.expect(len(s.shape) == 3 and s.shape[0] == layers * directions
                       and s.shape[2] == hidden, "input PreState[%d] %r: expected [%d, batch, "
                       "%d], got %s" % (i, s.name, layers * directions, hidden, list(s.shape)))
            ctx.set_output("State", s.shape, x.dtype, i)
        steps, batch = x.shape[0], x.shape[1]
        ctx.set_output("Out", (steps, batch, directions * hidden), x.dtype)
        ctx.set_output("Reserve", (layers * directions, steps, batch,
                                   RESERVE_WIDTH[mode] * hidden), x.dtype)
        ctx.set_output("DropoutState", (0,) if ctx.attr("is_test") else
                       (steps, batch, directions * hidden), "uint8")

    @staticmethod
    def forward(x, pre_state, weight_list, sequence_length, dropout_prob=0.0,
                is_bidirec=False, input_size=10, hidden_size=100, num_layers=1,
                mode="RNN_TANH", seed=0, is_test=False, lstm_kernels=None, step_loop=None,
                lstm_pair=None, gemm=operator.matmul):
        out, reserve, finals = rnn_forward(x, pre_state, weight_list, sequence_length, mode,
                                           num_layers, is_bidirec, lstm_kernels, step_loop,
                                           lstm_pair, gemm)
        xp = array_module(x)
        kept = xp.zeros(0, np.uint8) if is_test else xp.ones(out.shape, np.uint8)
        return out, kept, reserve, finals

    @staticmethod
    def backward(x, pre_state, weight_list, sequence_length, reserve, dout, dstates,
                 dropout_prob=0.0, is_bidirec=False, input_size=10, hidden_size=100,
                 num_layers=1, mode="RNN_TANH", seed=0, is_test=False, lstm_kernels=None,
                 step_loop=None, lstm_pair=None, gemm=operator.matmul):
        if dstates is None or len(dstates) == 0:   # the final states feed nothing
            dstates = [None] * len(pre_state)
        return rnn_backward(x, pre_state, weight_list, sequence_length, reserve, dout,
                            dstates, mode, num_layers, is_bidirec, lstm_kernels, step_loop,
                            lstm_pair, gemm)

    def samples(self, rng):
        steps, batch, size, hidden = 3, 2, 3, 2
        # the last: Paddle's gradient is right only from zero initial states when
        # lengths cut the reverse direction short (specs/conformance.md)
        for mode, layers, bidirec, lengths, name in (("LSTM", 2, False, None, ""),
                                                     ("GRU", 1, True, [3, 1], ""),
                                                     ("RNN_TANH", 2, True, None, ""),
                                                     ("LSTM", 1, True, [2, 3], ""),
                                                     ("RNN_RELU", 1, False, [1, 3], ""),
                                                     ("GRU", 1, True, [3, 1], "zero_states")):
            directions = 2 if bidirec else 1
            gates = MODES[mode] * hidden
            weights, biases = [], []
            for k in range(layers * directions):
                width = size if k < directions else directions * hidden
                weights += [rand(rng, gates, width), rand(rng, gates, hidden)]
                biases += [rand(rng, gates), rand(rng, gates)]
            states = [rand(rng, layers * directions, batch, hidden) * (name != "zero_states")
                      for _ in range(2 if mode == "LSTM" else 1)]
            inputs = {"Input": rand(rng, steps, batch, size), "PreState": states,
                      "WeightList": weights + biases}
            if lengths is not None:
                inputs["SequenceLength"] = np.array(lengths, np.int32)
            yield Sample(inputs, {"mode": mode, "num_layers": layers, "is_bidirec": bidirec,
                                  "input_size": size, "hidden_size": hidden},
                         grad=mode != "RNN_RELU", name=name)
