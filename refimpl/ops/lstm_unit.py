"""lstm_unit: one LSTM step from pre-activations X [batch, 4D] laid out (i, f, o, g):
c = sigmoid(f + forget_bias) * c_prev + sigmoid(i) * tanh(g), h = sigmoid(o) * tanh(c)."""
import numpy as np

from ._common import rand
from .registry import OpDef, Sample, register


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


@register
class LSTMUnit(OpDef):
    type = "lstm_unit"
    inputs = ("X", "C_prev")
    outputs = ("C", "H")
    attrs = {"forget_bias": 0.0}
    grad_inputs = ("X", "C_prev", "C", "C@GRAD", "H@GRAD")

    def infer_shape(self, ctx):
        x, c_prev = ctx.input_var("X"), ctx.input_var("C_prev")
        width = c_prev.shape[-1]
        ctx.expect(len(x.shape) == 2 and (x.shape[1] < 0 or width < 0 or x.shape[1] == 4 * width),
                   "input X %r: expected [batch, 4 * %d] (gates i, f, o, g), got %s"
                   % (x.name, width, list(x.shape)))
        ctx.same_as("C_prev", "C")
        ctx.same_as("C_prev", "H")

    @staticmethod
    def forward(x, c_prev, forget_bias=0.0):
        i, f, o, g = _gates(x, forget_bias)
        c = f * c_prev + i * g
        return c.astype(x.dtype), (o * np.tanh(c)).astype(x.dtype)

    @staticmethod
    def backward(x, c_prev, c, dc, dh, forget_bias=0.0):
        i, f, o, g = _gates(x, forget_bias)
        dc = (np.zeros_like(c) if dc is None else dc)
        dh = (np.zeros_like(c) if dh is None else dh)
        tanh_c = np.tanh(c)
        dc = dc + dh * o * (1 - tanh_c ** 2)
        dx = np.concatenate([dc * g * i * (1 - i), dc * c_prev * f * (1 - f),
                             dh * tanh_c * o * (1 - o), dc * i * (1 - g ** 2)], axis=1)
        return dx, dc * f

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 8), "C_prev": rand(rng, 3, 2)}, {"forget_bias": 0.5})


def _gates(x, forget_bias):
    i, f, o, g = np.split(x, 4, axis=1)
    return sigmoid(i), sigmoid(f + forget_bias), sigmoid(o), np.tanh(g)
