"""gru (fluid.layers.dynamic_gru): a GRU over every sequence of packed rows. Input
[total, 3D] is the input already projected, laid out (update u, reset r, candidate c);
Weight [D, 3D] and Bias [1, 3D] as gru_unit's (whose step this op runs for every time step
of all running sequences at once); H0 [batch, D] the initial state (0 when absent).
is_reverse runs each sequence from its last row to its first."""
import numpy as np

from ._common import rand
from ._recurrent import (ACTIVATION_CODES, check_recurrent, initial_state,
                         ragged_sample_lengths, time_steps)
from ._sequence import lengths_of
from .gru_unit import GRUUnit, gru_step
from .registry import OpDef, Sample, register, share_lod


def gru_steps(x, h0, weight, bias, length, activation, gate_activation, is_reverse,
              origin_mode):
    """Run the GRU; returns (hidden, per-step records (active, rows, h_prev, gate,
    reset_h), batch size)."""
    width = weight.shape[0]
    lens, steps = time_steps(length, len(x), "gru", is_reverse)
    h = initial_state(h0, len(lens), width, x.dtype, "gru", "H0").astype(x.dtype)
    hidden = np.zeros((len(x), width), x.dtype)
    records = []
    for active, rows in steps:
        h_prev = h[active]
        gate, reset_h, h_new = gru_step(
            x[rows], h_prev, weight, bias, ACTIVATION_CODES[activation],
            ACTIVATION_CODES[gate_activation], origin_mode, clip_sigmoid=True)
        h[active] = hidden[rows] = h_new
        records.append((active, rows, h_prev, gate, reset_h))
    return hidden, records, len(lens)


def batch_layout(lens, steps):
    """Paddle's batch layout of per-step values: step after step, each step's running
    sequences longest first (ties in sequence order). `steps`: [(active, arrays)] with
    the arrays' rows in `active`'s order; returns one stacked array per position."""
    columns = []
    for active, arrays in steps:
        order = np.argsort(-lens[active], kind="stable")
        columns.append([a[order] for a in arrays])
    return tuple(np.concatenate(parts) for parts in zip(*columns))


@register
class GRU(OpDef):
    type = "gru"
    inputs = ("Input", "H0?", "Weight", "Bias?", "XLength")
    # Paddle's intermediates, in its batch layout (batch_layout): the gates (u, r, c after
    # their activations), r * h_prev and h of every step (the grad recomputes the steps)
    outputs = ("Hidden", "BatchGate", "BatchResetHiddenPrev", "BatchHidden")
    lod_lengths = {"XLength": "Input"}
    lod_outputs = {"Hidden": share_lod("Input")}
    attrs = {"activation": "tanh", "gate_activation": "sigmoid", "is_reverse": False,
             "origin_mode": False}
    no_grad = ("XLength",)
    grad_inputs = ("Input", "H0", "Weight", "Bias", "XLength", "Hidden@GRAD")

    def infer_shape(self, ctx):
        width = ctx.input_var("Weight").shape[0]
        check_recurrent(ctx, 3 * width, (width, 3 * width), ("activation", "gate_activation"))
        if ctx.has_input("Bias"):
            bias = ctx.input_var("Bias")
            ctx.expect(tuple(bias.shape) == (1, 3 * width), "input Bias %r: expected [1, %d], "
                       "got %s" % (bias.name, 3 * width, list(bias.shape)))
        x = ctx.input_var("Input")
        for slot, columns in (("Hidden", width), ("BatchGate", 3 * width),
                              ("BatchResetHiddenPrev", width), ("BatchHidden", width)):
            ctx.set_output(slot, (x.shape[0], columns), x.dtype)

    @staticmethod
    def forward(x, h0, weight, bias, length, **attrs):
        hidden, records, _ = gru_steps(x, h0, weight, bias, length, **attrs)
        lens = lengths_of(length, len(x), "gru")
        return (hidden,) + batch_layout(lens, [(active, (gate, reset_h, hidden[rows]))
                                               for active, rows, _, gate, reset_h in records])

    @staticmethod
    def backward(x, h0, weight, bias, length, dhidden, **attrs):
        _, records, batch = gru_steps(x, h0, weight, bias, length, **attrs)
        codes = {k: ACTIVATION_CODES[attrs[k]] for k in ("activation", "gate_activation")}
        dh_carry = np.zeros((batch, weight.shape[0]), x.dtype)
        dx, dweight = np.zeros_like(x), np.zeros_like(weight)
        dbias = None if bias is None else np.zeros_like(bias)
        for active, rows, h_prev, gate, reset_h in reversed(records):
            dx[rows], dh_carry[active], dw, db = GRUUnit.backward(
                x[rows], h_prev, weight, bias, gate, reset_h,
                dh_carry[active] + dhidden[rows], origin_mode=attrs["origin_mode"], **codes)
            dweight += dw
            if dbias is not None:
                dbias += db
        return dx, None if h0 is None else dh_carry, dweight, dbias

    def samples(self, rng):
        lens = ragged_sample_lengths()
        total, width = int(lens.sum()), 2
        for origin_mode, reverse in ((False, False), (True, True)):
            yield Sample({"Input": rand(rng, total, 3 * width), "H0": rand(rng, 4, width),
                          "Weight": rand(rng, width, 3 * width),
                          "Bias": rand(rng, 1, 3 * width), "XLength": lens},
                         {"origin_mode": origin_mode, "is_reverse": reverse})
        yield Sample({"Input": rand(rng, 4, 3 * width), "Weight": rand(rng, width, 3 * width),
                      "XLength": np.array([1, 3], np.int64)}, {"activation": "relu"})
