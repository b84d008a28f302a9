"""gru_unit: one GRU step. Input [batch, 3D] holds the input projections of (update u,
reset r, candidate c); Weight [D, 3D] is stored as Paddle stores it: its first 2*D*D
values are the [D, 2D] hidden weights of (u, r), the last D*D the [D, D] weights of c.
    u, r = act_gate(x_ur + h_prev @ W_ur + b_ur)
    c = act(x_c + (r * h_prev) @ W_c + b_c)
    h = u * (c - h_prev) + h_prev      (origin_mode: h = (1 - u) * c + u * h_prev)"""
import numpy as np

from ._common import rand
from .registry import OpDef, Sample, register

# Paddle's activation codes for gru_unit's attrs
ACTIVATIONS = {0: "identity", 1: "sigmoid", 2: "tanh", 3: "relu"}


# Paddle's whole-sequence recurrent kernels (gru, lstm, lstmp; its math/detail
# activations) clip the sigmoid's input to [-40, 13]: sigmoid(13) = 1 - 2.3e-6 is their
# largest gate. The gru_unit op's sigmoid is the plain one.
SIGMOID_INPUT_RANGE = (-40.0, 13.0)


def activate(kind, x, clip_sigmoid=False):
    if kind == 1 and clip_sigmoid:
        x = np.clip(x, *SIGMOID_INPUT_RANGE)
    return {0: lambda v: v, 1: lambda v: 1 / (1 + np.exp(-v)), 2: np.tanh,
            3: lambda v: np.maximum(v, 0)}[kind](x)


def activation_grad(kind, y):
    """d act / d pre-activation, from the activation's output y."""
    return {0: lambda v: np.ones_like(v), 1: lambda v: v * (1 - v), 2: lambda v: 1 - v * v,
            3: lambda v: (v > 0).astype(v.dtype)}[kind](y)


def split_weight(weight):
    width = weight.shape[0]
    flat = weight.reshape(-1)
    return flat[:2 * width * width].reshape(width, 2 * width), \
        flat[2 * width * width:].reshape(width, width)


def gru_step(x, h_prev, weight, bias, activation, gate_activation, origin_mode,
             clip_sigmoid=False):
    """(gate (u, r, c after their activations), r * h_prev, h) of one step."""
    width = h_prev.shape[1]
    w_ur, w_c = split_weight(weight)
    pre = x + (0 if bias is None else bias.reshape(1, -1))
    u_r = activate(gate_activation, pre[:, :2 * width] + h_prev @ w_ur, clip_sigmoid)
    u, r = u_r[:, :width], u_r[:, width:]
    reset_h = r * h_prev
    c = activate(activation, pre[:, 2 * width:] + reset_h @ w_c, clip_sigmoid)
    h = (1 - u) * c + u * h_prev if origin_mode else u * (c - h_prev) + h_prev
    return np.concatenate([u_r, c], axis=1).astype(x.dtype), reset_h, h.astype(x.dtype)


@register
class GRUUnit(OpDef):
    type = "gru_unit"
    inputs = ("Input", "HiddenPrev", "Weight", "Bias?")
    outputs = ("Gate", "ResetHiddenPrev", "Hidden")
    attrs = {"activation": 2, "gate_activation": 1, "origin_mode": False}
    grad_inputs = ("Input", "HiddenPrev", "Weight", "Bias?", "Gate", "ResetHiddenPrev",
                   "Hidden@GRAD")

    def infer_shape(self, ctx):
        x, h, w = (ctx.input_var(s) for s in ("Input", "HiddenPrev", "Weight"))
        width = w.shape[0]
        ctx.expect(tuple(w.shape) == (width, 3 * width), "input Weight %r: expected [D, 3D], "
                   "got %s" % (w.name, list(w.shape)))
        ctx.expect(x.shape[-1] in (-1, 3 * width), "input Input %r: expected [batch, %d], got "
                   "%s" % (x.name, 3 * width, list(x.shape)))
        for attr in ("activation", "gate_activation"):
            ctx.expect(ctx.attr(attr) in ACTIVATIONS, "%s must be one of %s, got %r"
                       % (attr, ACTIVATIONS, ctx.attr(attr)))
        ctx.set_output("Gate", x.shape, x.dtype)
        ctx.same_as("HiddenPrev", "ResetHiddenPrev")
        ctx.same_as("HiddenPrev", "Hidden")

    @staticmethod
    def forward(x, h_prev, weight, bias=None, activation=2, gate_activation=1,
                origin_mode=False):
        return gru_step(x, h_prev, weight, bias, activation, gate_activation, origin_mode)

    @staticmethod
    def backward(x, h_prev, weight, bias, gate, reset_h, dh, activation=2, gate_activation=1,
                 origin_mode=False):
        width = h_prev.shape[1]
        w_ur, w_c = split_weight(weight)
        u, r, c = gate[:, :width], gate[:, width:2 * width], gate[:, 2 * width:]
        if origin_mode:
            du, dc, dh_prev = dh * (h_prev - c), dh * (1 - u), dh * u
        else:
            du, dc, dh_prev = dh * (c - h_prev), dh * u, dh * (1 - u)
        dc_pre = dc * activation_grad(activation, c)
        d_reset_h = dc_pre @ w_c.T
        dr = d_reset_h * h_prev
        dh_prev = dh_prev + d_reset_h * r
        d_ur_pre = np.concatenate([du, dr], axis=1) * activation_grad(
            gate_activation, gate[:, :2 * width])
        dh_prev = dh_prev + d_ur_pre @ w_ur.T
        dx = np.concatenate([d_ur_pre, dc_pre], axis=1)
        dweight = np.concatenate([(h_prev.T @ d_ur_pre).reshape(-1),
                                  (reset_h.T @ dc_pre).reshape(-1)]).reshape(weight.shape)
        dbias = None if bias is None else dx.sum(axis=0).reshape(bias.shape)
        return dx, dh_prev, dweight, dbias

    def samples(self, rng):
        for origin_mode in (False, True):
            yield Sample({"Input": rand(rng, 3, 6), "HiddenPrev": rand(rng, 3, 2),
                          "Weight": rand(rng, 2, 6), "Bias": rand(rng, 1, 6)},
                         {"origin_mode": origin_mode})
        yield Sample({"Input": rand(rng, 2, 9), "HiddenPrev": rand(rng, 2, 3),
                      "Weight": rand(rng, 3, 9)}, {"activation": 0})
