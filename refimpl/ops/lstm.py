"""lstm (fluid.layers.dynamic_lstm): an LSTM over every sequence of packed rows.

Input [total, 4D] is the input already projected, laid out as Paddle lays out its gates:
(candidate c, input i, forget f, output o); Weight [D, 4D] the hidden-to-gate weights in
the same layout; Bias [1, 4D], or [1, 7D] with use_peepholes (then the last 3D are the
peephole weights w_ic, w_fc, w_oc). Per step, with h, c the previous state (H0, C0 or 0):
    i = gate(x_i + h W_i + b_i + w_ic * c)      f = gate(x_f + h W_f + b_f + w_fc * c)
    c' = f * c + i * cand(x_c + h W_c + b_c)    o = gate(x_o + h W_o + b_o + w_oc * c')
    h' = o * cell(c')
is_reverse runs each sequence from its last row to its first."""
import numpy as np

from ._common import rand
from ._recurrent import (check_lstm_bias, check_recurrent, initial_state, lstm_bptt,
                         lstm_cell, ragged_sample_lengths, time_steps)
from .registry import OpDef, Sample, register, share_lod

ATTRS = {"use_peepholes": True, "is_reverse": False, "gate_activation": "sigmoid",
         "cell_activation": "tanh", "candidate_activation": "tanh"}


def lstm_steps(x, h0, c0, weight, bias, length, use_peepholes, is_reverse, gate_activation,
               cell_activation, candidate_activation, op="lstm"):
    """Run the LSTM; returns (hidden, cell, per-step records for the backward)."""
    width = weight.shape[0]
    lens, steps = time_steps(length, len(x), op, is_reverse)
    h = initial_state(h0, len(lens), width, x.dtype, op, "H0").astype(x.dtype)
    c = initial_state(c0, len(lens), width, x.dtype, op, "C0").astype(x.dtype)
    bias = bias.reshape(-1)
    peep = bias[4 * width:].reshape(3, width) if use_peepholes else np.zeros((3, width))
    hidden, cell = np.zeros((len(x), width), x.dtype), np.zeros((len(x), width), x.dtype)
    records = []
    for active, rows in steps:
        h_prev, c_prev = h[active], c[active]
        step = lstm_cell(x[rows] + h_prev @ weight + bias[:4 * width], c_prev, peep,
                         gate_activation, candidate_activation, cell_activation)
        o, c_new, cell_out = step[3], step[4], step[6]
        h_new = o * cell_out
        h[active], c[active] = h_new, c_new
        hidden[rows], cell[rows] = h_new, c_new
        records.append((active, rows, h_prev, c_prev, step))
    return hidden, cell, peep, records, len(lens)


@register
class LSTM(OpDef):
    type = "lstm"
    inputs = ("Input", "H0?", "C0?", "Weight", "Bias", "XLength")
    # Paddle's intermediates BatchGate / BatchCellPreAct (its batch-reordered gates, kept
    # for its grad op) may be bound, as Paddle programs bind them; refimpl leaves them
    # unset (the grad recomputes the steps)
    outputs = ("Hidden", "Cell", "BatchGate", "BatchCellPreAct")
    lod_lengths = {"XLength": "Input"}
    lod_outputs = {"Hidden": share_lod("Input"), "Cell": share_lod("Input")}
    attrs = ATTRS
    no_grad = ("XLength",)
    grad_inputs = ("Input", "H0", "C0", "Weight", "Bias", "XLength", "Hidden@GRAD",
                   "Cell@GRAD")

    def infer_shape(self, ctx):
        width = ctx.input_var("Weight").shape[0]
        check_recurrent(ctx, 4 * width, (width, 4 * width),
                        ("gate_activation", "cell_activation", "candidate_activation"))
        check_lstm_bias(ctx, width)
        x = ctx.input_var("Input")
        # the intermediates, where bound, declared as Paddle declares them (left unset)
        for slot, columns in (("Hidden", width), ("Cell", width), ("BatchGate", 4 * width),
                              ("BatchCellPreAct", width)):
            ctx.set_output(slot, (x.shape[0], columns), x.dtype)

    @staticmethod
    def forward(x, h0, c0, weight, bias, length, **attrs):
        return lstm_steps(x, h0, c0, weight, bias, length, **attrs)[:2] + (None, None)

    @staticmethod
    def backward(x, h0, c0, weight, bias, length, dhidden, dcell, **attrs):
        _, _, peep, records, batch = lstm_steps(x, h0, c0, weight, bias, length, **attrs)

        def dh_into_cell(record, dh_carried):
            return dh_carried + (0 if dhidden is None else dhidden[record[1]])
        dx, dh0, dc0, dweight, dbias = lstm_bptt(x, weight, peep, records, batch, dcell,
                                                 attrs, dh_into_cell)
        return (dx, None if h0 is None else dh0, None if c0 is None else dc0, dweight, dbias)

    def samples(self, rng):
        lens = ragged_sample_lengths()
        total, width = int(lens.sum()), 2
        for peepholes, reverse in ((True, False), (False, True)):
            yield Sample({"Input": rand(rng, total, 4 * width), "H0": rand(rng, 4, width),
                          "C0": rand(rng, 4, width), "Weight": rand(rng, width, 4 * width),
                          "Bias": rand(rng, 1, (7 if peepholes else 4) * width),
                          "XLength": lens}, {"use_peepholes": peepholes, "is_reverse": reverse})
        yield Sample({"Input": rand(rng, 4, 4 * width), "Weight": rand(rng, width, 4 * width),
                      "Bias": rand(rng, 1, 7 * width), "XLength": np.array([1, 3], np.int64)},
                     {"candidate_activation": "relu", "cell_activation": "identity"})

