"""lstmp (fluid.layers.dynamic_lstmp): an LSTM with a recurrent projection layer, over
every sequence of packed rows (specs/ops/sequence.md).

As lstm (refimpl/ops/lstm.py: gate layout (candidate, input, forget, output), peepholes in
Bias [1, 7D]), except that the recurrence reads the projection r [*, P] of the hidden
state instead of the hidden state itself: Weight is [P, 4D], and per step
    c' = f * c + i * cand(...), clipped to [-cell_clip, cell_clip] when cell_clip > 0
    h' = o * cell(c')
    r' = proj(h' ProjWeight), ProjWeight [D, P], clipped to [-proj_clip, proj_clip] when > 0
where proj is cell_activation whenever proj_activation is not identity: Paddle's kernel
(1.8.5, measured; its later revisions too) activates the projection with cell_activation
and reads proj_activation only to skip the activation when it is identity.
H0 [N, P] is the initial projection itself (0 without it; Paddle 1.8.5's form, measured:
no projection or activation is applied to it), C0 [N, D] the initial cell.
Outputs: Projection [total, P] and Cell [total, D]."""
import numpy as np

from ._common import rand
from ._recurrent import (act, act_grad, check_lstm_bias, check_recurrent, clip, initial_state,
                         lstm_bptt, lstm_cell, ragged_sample_lengths, time_steps)
from .registry import OpDef, Sample, register, share_lod

ATTRS = {"use_peepholes": True, "is_reverse": False, "gate_activation": "sigmoid",
         "cell_activation": "tanh", "candidate_activation": "tanh",
         "proj_activation": "tanh", "cell_clip": 0.0, "proj_clip": 0.0}
ACTIVATION_ATTRS = ("gate_activation", "cell_activation", "candidate_activation",
                    "proj_activation")


def projection_activation(attrs):
    """The activation Paddle applies to the projection: cell_activation, unless
    proj_activation is identity (module docstring)."""
    return "identity" if attrs["proj_activation"] == "identity" else attrs["cell_activation"]


def lstmp_steps(x, h0, c0, weight, proj_weight, bias, length, attrs, op="lstmp"):
    """Run the projected LSTM; returns (projection, cell, peep, per-step records for the
    backward, batch)."""
    width, proj_width = proj_weight.shape
    lens, steps = time_steps(length, len(x), op, attrs["is_reverse"])
    batch = len(lens)
    r = initial_state(h0, batch, proj_width, x.dtype, op, "H0").astype(x.dtype)
    c = initial_state(c0, batch, width, x.dtype, op, "C0").astype(x.dtype)
    bias = bias.reshape(-1)
    peep = bias[4 * width:].reshape(3, width) if attrs["use_peepholes"] else \
        np.zeros((3, width), x.dtype)
    gate, cell_act, cand_act = (attrs["gate_activation"], attrs["cell_activation"],
                                attrs["candidate_activation"])
    projection = np.zeros((len(x), proj_width), x.dtype)
    cell = np.zeros((len(x), width), x.dtype)
    records = []
    for active, rows in steps:
        r_prev, c_prev = r[active], c[active]
        step = lstm_cell(x[rows] + r_prev @ weight + bias[:4 * width], c_prev, peep, gate,
                         cand_act, cell_act, attrs["cell_clip"])
        c_new = step[4]
        h_new = step[3] * step[6]   # o * cell(c')
        r_act = act(projection_activation(attrs), h_new @ proj_weight)
        r_new, r_pass = clip(r_act, attrs["proj_clip"])
        r[active], c[active] = r_new, c_new
        projection[rows], cell[rows] = r_new, c_new
        records.append((active, rows, r_prev, c_prev, step, h_new, r_act, r_pass))
    return projection, cell, peep, records, batch


@register
class LSTMP(OpDef):
    type = "lstmp"
    inputs = ("Input", "H0?", "C0?", "Weight", "ProjWeight", "Bias", "XLength")
    # Paddle's intermediates (its batch-reordered gates, cell pre-activations and hidden
    # states, kept for its grad op; Paddle 1.8.5 requires them bound): bound, left unset,
    # as lstm's (the grad recomputes the steps)
    outputs = ("Projection", "Cell", "BatchGate", "BatchCellPreAct", "BatchHidden")
    lod_lengths = {"XLength": "Input"}
    lod_outputs = {"Projection": share_lod("Input"), "Cell": share_lod("Input")}
    attrs = ATTRS
    no_grad = ("XLength",)
    grad_inputs = ("Input", "H0", "C0", "Weight", "ProjWeight", "Bias", "XLength",
                   "Projection@GRAD", "Cell@GRAD")

    def infer_shape(self, ctx):
        proj = ctx.input_var("ProjWeight")
        ctx.expect(len(proj.shape) == 2, "input ProjWeight %r: expected [D, P], got %s"
                   % (proj.name, list(proj.shape)))
        width, proj_width = proj.shape
        check_recurrent(ctx, 4 * width, (proj_width, 4 * width), ACTIVATION_ATTRS)
        check_lstm_bias(ctx, width)
        for slot, state_width in (("H0", proj_width), ("C0", width)):
            v = ctx.input_var(slot)
            ctx.expect(v is None or (len(v.shape) == 2 and v.shape[1] in (state_width, -1)),
                       "input %s %r: expected [batch, %d], got %s"
                       % (slot, getattr(v, "name", None), state_width,
                          list(getattr(v, "shape", []))))
        x = ctx.input_var("Input")
        ctx.set_output("Projection", (x.shape[0], proj_width), x.dtype)
        ctx.set_output("Cell", (x.shape[0], width), x.dtype)

    @staticmethod
    def forward(x, h0, c0, weight, proj_weight, bias, length, **attrs):
        return lstmp_steps(x, h0, c0, weight, proj_weight, bias, length, attrs)[:2] + \
            (None, None, None)

    @staticmethod
    def backward(x, h0, c0, weight, proj_weight, bias, length, dproj, dcell, **attrs):
        _, _, peep, records, batch = lstmp_steps(x, h0, c0, weight, proj_weight, bias,
                                                 length, attrs)
        dproj_weight = np.zeros_like(proj_weight)

        def dh_through_projection(record, dr_carried):
            rows, h_new, r_act, r_pass = record[1], record[5], record[6], record[7]
            dr = dr_carried + (0 if dproj is None else dproj[rows])
            dr_pre = dr * r_pass * act_grad(projection_activation(attrs), r_act)
            dproj_weight[...] += h_new.T @ dr_pre
            return dr_pre @ proj_weight.T
        dx, dh0, dc0, dweight, dbias = lstm_bptt(x, weight, peep, records, batch, dcell,
                                                 attrs, dh_through_projection)
        return (dx, None if h0 is None else dh0, None if c0 is None else dc0, dweight, dproj_weight,
                dbias)

    def samples(self, rng):
        lens = ragged_sample_lengths()
        total, width, proj_width = int(lens.sum()), 3, 2
        for peepholes, reverse in ((True, False), (False, True)):
            yield Sample({"Input": rand(rng, total, 4 * width), "H0": rand(rng, 4, proj_width),
                          "C0": rand(rng, 4, width),
                          "Weight": rand(rng, proj_width, 4 * width),
                          "ProjWeight": rand(rng, width, proj_width),
                          "Bias": rand(rng, 1, (7 if peepholes else 4) * width),
                          "XLength": lens}, {"use_peepholes": peepholes, "is_reverse": reverse})
        # clipping (bounds far from the sampled values' kinks is not guaranteed, so the
        # clipped case runs without the gradient check) and identity projection
        yield Sample({"Input": rand(rng, 4, 4 * width, low=-3, high=3),
                      "Weight": rand(rng, proj_width, 4 * width),
                      "ProjWeight": rand(rng, width, proj_width),
                      "Bias": rand(rng, 1, 7 * width), "XLength": np.array([1, 3], np.int64)},
                     {"cell_clip": 0.5, "proj_clip": 0.3, "proj_activation": "identity"},
                     grad=False, name="clipped")
        yield Sample({"Input": rand(rng, 4, 4 * width), "Weight": rand(rng, proj_width, 4 * width),
                      "ProjWeight": rand(rng, width, proj_width), "Bias": rand(rng, 1, 7 * width),
                      "XLength": np.array([1, 3], np.int64)},
                     {"proj_activation": "identity", "cell_activation": "identity"})
        # the projection activated by cell_activation (sigmoid), not proj_activation (tanh)
        yield Sample({"Input": rand(rng, 4, 4 * width), "Weight": rand(rng, proj_width, 4 * width),
                      "ProjWeight": rand(rng, width, proj_width), "Bias": rand(rng, 1, 7 * width),
                      "XLength": np.array([1, 3], np.int64)},
                     {"cell_activation": "sigmoid", "proj_activation": "tanh"},
                     name="cell_act_projection")
