"""Shared machinery of the whole-sequence recurrent ops (lstm, gru, lstmp): packed rows
[total, ...] plus lengths, stepped through time for all sequences at once."""
import numpy as np

from ._sequence import check_lengths_var, lengths_of, offsets
from .gru_unit import activate, activation_grad

# the activation attrs of lstm / gru / lstmp are names; gru_unit's kernels take codes
ACTIVATION_CODES = {"identity": 0, "sigmoid": 1, "tanh": 2, "relu": 3}


def act(name, x):
    """Paddle's activation of the whole-sequence kernels (sigmoid input clipped)."""
    return activate(ACTIVATION_CODES[name], x, clip_sigmoid=True)


def act_grad(name, y):
    """d act / d pre-activation from the output y."""
    return activation_grad(ACTIVATION_CODES[name], y)


def time_steps(length, rows, op, reverse=False):
    """[(active, rows)] per time step: the indices of the sequences still running at
    step t and the packed row each reads (from the end of the sequence when reverse)."""
    lens = lengths_of(length, rows, op)
    off = offsets(lens)
    steps = []
    for t in range(int(lens.max()) if len(lens) else 0):
        active = np.nonzero(lens > t)[0]
        steps.append((active, off[active + 1] - 1 - t if reverse else off[active] + t))
    return lens, steps


def initial_state(state, batch, width, dtype, op, slot):
    if state is None:
        return np.zeros((batch, width), dtype)
    if state.shape != (batch, width):
        raise ValueError("%s: %s must be [%d, %d] (one row per sequence), got %s"
                         % (op, slot, batch, width, list(state.shape)))
    return state


def check_recurrent(ctx, input_width, weight_shape, activation_attrs):
    """Shared infer_shape checks: lengths, Input width, Weight shape, activation names."""
    check_lengths_var(ctx, "XLength")
    x, w = ctx.input_var("Input"), ctx.input_var("Weight")
    ctx.expect(len(x.shape) == 2 and x.shape[1] in (-1, input_width),
               "input Input %r: expected packed rows [total, %d], got %s"
               % (x.name, input_width, list(x.shape)))
    ctx.expect(tuple(w.shape) == tuple(weight_shape), "input Weight %r: expected %s, got %s"
               % (w.name, list(weight_shape), list(w.shape)))
    for attr in activation_attrs:
        ctx.expect(ctx.attr(attr) in ACTIVATION_CODES, "attr %s must be one of %s, got %r"
                   % (attr, sorted(ACTIVATION_CODES), ctx.attr(attr)))


def ragged_sample_lengths():
    """The ragged batch the samples use: a long, a length-1 and an empty sequence."""
    return np.array([3, 1, 0, 2], np.int64)


def clip(x, bound):
    """(x clipped to [-bound, bound] when bound > 0, the mask where the clip let x through)."""
    if bound <= 0:
        return x, np.ones(x.shape, bool)
    return np.clip(x, -bound, bound), np.abs(x) < bound


def lstm_cell(pre, c_prev, peep, gate, cand_act, cell_act, cell_clip=0.0):
    """One LSTM step of lstm / lstmp from the gate pre-activations `pre` [rows, 4D] (layout
    candidate, input, forget, output; peepholes peep [3, D] added here); returns the record
    (cand, i, f, o, c_new, c_pass, cell_out) for lstm_cell_grad, h' = o * cell_out.
    c_pass marks where cell_clip let c' through."""
    width = c_prev.shape[1]
    cand = act(cand_act, pre[:, :width])
    i = act(gate, pre[:, width:2 * width] + peep[0] * c_prev)
    f = act(gate, pre[:, 2 * width:3 * width] + peep[1] * c_prev)
    c_new, c_pass = clip(f * c_prev + i * cand, cell_clip)
    o = act(gate, pre[:, 3 * width:] + peep[2] * c_new)
    return cand, i, f, o, c_new, c_pass, act(cell_act, c_new)


def lstm_cell_grad(dh, dc, c_prev, cell, peep, gate, cand_act, cell_act):
    """Back through one lstm_cell step (`cell` its record) from dh (into h') and dc (carried
    into c'): (dgates [rows, 4D] in the gate layout, dc_prev, dpeep [3, D])."""
    cand, i, f, o, c_new, c_pass, cell_out = cell
    do = dh * cell_out * act_grad(gate, o)
    dc = (dc + dh * o * act_grad(cell_act, cell_out) + do * peep[2]) * c_pass
    di = dc * cand * act_grad(gate, i)
    df = dc * c_prev * act_grad(gate, f)
    dcand = dc * i * act_grad(cand_act, cand)
    dgates = np.concatenate([dcand, di, df, do], axis=1)
    dpeep = np.stack([(di * c_prev).sum(0), (df * c_prev).sum(0), (do * c_new).sum(0)])
    return dgates, dc * f + di * peep[0] + df * peep[1], dpeep


def check_lstm_bias(ctx, width):
    """lstm's and lstmp's Bias: [1, 4D], or [1, 7D] with use_peepholes (the peephole
    weights w_ic, w_fc, w_oc after the gate biases)."""
    bias = ctx.input_var("Bias")
    bias_width = (7 if ctx.attr("use_peepholes") else 4) * width
    ctx.expect(tuple(bias.shape) == (1, bias_width), "input Bias %r: expected [1, %d] "
               "(use_peepholes=%s), got %s" % (bias.name, bias_width,
                                               ctx.attr("use_peepholes"), list(bias.shape)))


def lstm_bptt(x, weight, peep, records, batch, dcell, attrs, dh_into_cell):
    """Back-propagation through time of lstm / lstmp over their per-step records, each
    (active, rows, recurrent input, c_prev, lstm_cell record, ...). The recurrent input is
    h (lstm) or the projection r (lstmp): Weight [its width, 4D]. dh_into_cell(record,
    gradient carried back into the step's recurrent output) gives dh at the cell (lstm adds
    dHidden; lstmp goes back through the projection). Returns (dx, dh0, dc0, dweight,
    dbias shaped as Bias: the gate biases' gradient, then the peepholes' with
    use_peepholes)."""
    gate, cell_act, cand_act = (attrs["gate_activation"], attrs["cell_activation"],
                                attrs["candidate_activation"])
    recurrent_carry = np.zeros((batch, weight.shape[0]), x.dtype)
    dc_carry = np.zeros((batch, weight.shape[1] // 4), x.dtype)
    dx, dweight, dpeep = np.zeros_like(x), np.zeros_like(weight), np.zeros_like(peep)
    for record in reversed(records):
        active, rows, recurrent_in, c_prev, step = record[:5]
        dh = dh_into_cell(record, recurrent_carry[active])
        dc = dc_carry[active] + (0 if dcell is None else dcell[rows])
        dgates, dc_prev, dpeep_step = lstm_cell_grad(dh, dc, c_prev, step, peep, gate,
                                                     cand_act, cell_act)
        dx[rows] = dgates
        dweight += recurrent_in.T @ dgates
        dpeep += dpeep_step
        recurrent_carry[active] = dgates @ weight.T
        dc_carry[active] = dc_prev
    peep_part = [dpeep.astype(x.dtype).reshape(-1)] if attrs["use_peepholes"] else []
    dbias = np.concatenate([dx.sum(0)] + peep_part)[None, :]
    return dx, recurrent_carry, dc_carry, dweight, dbias
