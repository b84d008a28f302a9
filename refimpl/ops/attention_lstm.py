"""attention_lstm (Paddle's CPU-only fused op, forward only): an LSTM over each sequence of
X [T, M] whose input at every step is an attention-weighted sum of the whole sequence.

With D the hidden width (LSTMWeight [D + M, 4D]: rows 0..D-1 for the previous hidden, rows
D.. for the attended input; gates laid out forget, input, output, candidate) and h, c the
previous state (H0 or none, C0), per step of a sequence x_1..x_L:
    a = relu(x @ AttentionWeight[:M] + AttentionBias + c . AttentionWeight[M:])     [L]
    a = relu(AttentionScalar * a + AttentionScalarBias)      (with AttentionScalar)
    s = softmax(a) @ x                                                               [M]
    g = s @ W[D:] + h @ W[:D] + LSTMBias   (no h term at a sequence's first step without H0)
    f, i, o = gate(g[:D]), gate(g[D:2D]), gate(g[2D:3D]);   cand = candidate(g[3D:])
    c' = f * c + i * cand;   h' = o * cell(c')
Hidden / Cell [T, D] carry X's LoD. The intermediates Paddle's kernel leaves behind are
its last step's: AttentionedX [T, 1] (x @ AttentionWeight[:M] + AttentionBias), LSTMX
[1, M] (s), LSTMOUT [1, 4D] (cell(c'), i * cand, o, cand: the gate buffer its kernel
overwrites in place), AttentionFCOut [max length, 1] (the attention weights, rows past the
last sequence's length left from earlier ones)."""
import numpy as np

from ._common import rand
from ._recurrent import ACTIVATION_CODES, act
from ._sequence import check_lengths_var, lengths_of, offsets
from .registry import OpDef, Sample, register, share_lod

_ACTIVATIONS = ("gate_activation", "cell_activation", "candidate_activation")


def _softmax(a):
    e = np.exp(a - a.max())
    return e / e.sum()


@register
class AttentionLSTM(OpDef):
    type = "attention_lstm"
    inputs = ("X", "C0", "H0?", "AttentionWeight", "AttentionBias?", "AttentionScalar?",
              "AttentionScalarBias?", "LSTMWeight", "LSTMBias", "XLength")
    outputs = ("Hidden", "Cell", "AttentionedX?", "AttentionFCOut?", "LSTMX?", "LSTMOUT?")
    attrs = {"gate_activation": "sigmoid", "cell_activation": "tanh",
             "candidate_activation": "tanh"}
    lod_lengths = {"XLength": "X"}
    lod_outputs = {"Hidden": share_lod("X"), "Cell": share_lod("X")}
    no_grad = ("XLength",)

    def infer_shape(self, ctx):
        check_lengths_var(ctx, "XLength")
        x, w = ctx.input_var("X"), ctx.input_var("LSTMWeight")
        ctx.check_dtype("X", ("float32", "float64"))
        ctx.expect(len(x.shape) == 2, "input X %r must be [T, M], got %s"
                   % (x.name, list(x.shape)))
        m, d = x.shape[1], w.shape[1] // 4
        ctx.expect(len(w.shape) == 2 and w.shape[1] % 4 == 0 and w.shape[0] in (d + m, -1),
                   "input LSTMWeight %r must be [D + M, 4D] = [%d + %d, %d], got %s"
                   % (w.name, d, m, 4 * d, list(w.shape)))
        expected = {"LSTMBias": (1, 4 * d), "AttentionWeight": (m + d, 1),
                    "AttentionBias": (1, 1), "AttentionScalar": (1, 1),
                    "AttentionScalarBias": (1, 1)}
        for slot, shape in expected.items():
            if ctx.has_input(slot):
                got = ctx.input_var(slot).shape
                ctx.expect(tuple(got) == shape, "input %s %r must be %s, got %s"
                           % (slot, ctx.input_var(slot).name, list(shape), list(got)))
        ctx.expect(not ctx.has_input("AttentionScalarBias") or ctx.has_input("AttentionScalar"),
                   "AttentionScalarBias needs AttentionScalar")
        c0 = ctx.input_var("C0")
        ctx.expect(len(c0.shape) == 2 and c0.shape[1] in (d, -1),
                   "input C0 %r must be [N, %d], got %s" % (c0.name, d, list(c0.shape)))
        if ctx.has_input("H0"):
            h0 = ctx.input_var("H0")
            ctx.expect(tuple(h0.shape) == tuple(c0.shape), "input H0 %r %s must have C0's "
                       "shape %s" % (h0.name, list(h0.shape), list(c0.shape)))
        for attr in _ACTIVATIONS:
            ctx.expect(ctx.attr(attr) in ACTIVATION_CODES, "attr %s must be one of %s, got %r"
                       % (attr, sorted(ACTIVATION_CODES), ctx.attr(attr)))
        for slot, shape in (("Hidden", (x.shape[0], d)), ("Cell", (x.shape[0], d)),
                            ("AttentionedX", (x.shape[0], 1)), ("AttentionFCOut", (-1, 1)),
                            ("LSTMX", (1, m)), ("LSTMOUT", (1, 4 * d))):
            ctx.set_output(slot, shape, x.dtype)

    @staticmethod
    def forward(x, c0, h0, atten_w, atten_b, atten_scalar, atten_scalar_bias, lstm_w,
                lstm_b, length, gate_activation="sigmoid", cell_activation="tanh",
                candidate_activation="tanh"):
        lens = lengths_of(length, len(x), "attention_lstm")
        if c0.shape[0] != len(lens):
            raise ValueError("attention_lstm: C0 has %d rows for %d sequences"
                             % (c0.shape[0], len(lens)))
        m, d = x.shape[1], lstm_w.shape[1] // 4
        dtype = x.dtype.type
        atted = x @ atten_w[:m] + (0 if atten_b is None else atten_b.reshape(()))
        hidden, cell = np.zeros((len(x), d), x.dtype), np.zeros((len(x), d), x.dtype)
        fc_out = np.zeros((int(lens.max()) if len(lens) else 0, 1), x.dtype)
        lstm_x, lstm_out = np.zeros((1, m), x.dtype), np.zeros((1, 4 * d), x.dtype)
        off = offsets(lens)
        for n in range(len(lens)):
            seq, scores = slice(off[n], off[n + 1]), atted[off[n]:off[n + 1], 0]
            c, h = c0[n], None if h0 is None else h0[n]
            for t in range(off[n], off[n + 1]):
                a = np.maximum(scores + c @ atten_w[m:, 0], dtype(0))
                if atten_scalar is not None:
                    bias = 0 if atten_scalar_bias is None else atten_scalar_bias.reshape(())
                    a = np.maximum(a * atten_scalar.reshape(()) + bias, dtype(0))
                weights = _softmax(a)
                fc_out[:len(weights), 0] = weights
                lstm_x[0] = weights @ x[seq]
                gates = lstm_x[0] @ lstm_w[d:] + lstm_b.reshape(-1)
                if h is not None:
                    gates = gates + h @ lstm_w[:d]
                f, i, o = (act(gate_activation, gates[k * d:(k + 1) * d]) for k in range(3))
                cand = act(candidate_activation, gates[3 * d:])
                c = f * c + i * cand
                cell_out = act(cell_activation, c)
                h = o * cell_out
                hidden[t], cell[t] = h, c
                lstm_out[0] = np.concatenate([cell_out, i * cand, o, cand])
        return hidden, cell, atted.astype(x.dtype), fc_out, lstm_x, lstm_out

    def samples(self, rng):
        lens = np.array([3, 1, 2], np.int64)
        m, d = 3, 2
        inputs = {"X": rand(rng, int(lens.sum()), m), "C0": rand(rng, 3, d),
                  "H0": rand(rng, 3, d), "AttentionWeight": rand(rng, m + d, 1),
                  "AttentionBias": rand(rng, 1, 1), "AttentionScalar": rand(rng, 1, 1),
                  "AttentionScalarBias": rand(rng, 1, 1), "LSTMWeight": rand(rng, d + m, 4 * d),
                  "LSTMBias": rand(rng, 1, 4 * d), "XLength": lens}
        yield Sample(inputs, grad=False)
        plain = {k: v for k, v in inputs.items()
                 if k not in ("H0", "AttentionBias", "AttentionScalar", "AttentionScalarBias")}
        yield Sample(plain, {"gate_activation": "relu", "candidate_activation": "sigmoid"},
                     grad=False, name="no_h0_relu_gates")
