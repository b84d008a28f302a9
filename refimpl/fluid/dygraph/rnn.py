"""fluid.dygraph.LSTMCell and GRUCell (Paddle 2.0; 1.8 has neither): one step of an LSTM or
a GRU, written with basic ops, in either of Paddle's two parameter layouts.

use_cudnn_impl=True (the default), cuDNN's layout: weight_ih [G*H, I], weight_hh [G*H, H],
bias_ih and bias_hh [G*H]; the gate pre-activations are x W_ih^T + b_ih and h W_hh^T + b_hh,
cut into G chunks along the last axis. LSTM (G=4): chunks i, f, c, o;
c' = f*c + i*tanh(c~), h' = o*tanh(c'). GRU (G=3): chunks r, u, n;
n = tanh(xn + r*hn), h' = u*h + (1-u)*n.

use_cudnn_impl=False, the layout of fluid's BasicLSTMUnit / BasicGRUUnit: LSTM weight
[I+H, 4H] and bias [4H] on [x, h], chunks i, j, f, o, c' = c*act_gate(f + forget_bias) +
sigmoid(i)*tanh(j), h' = act(c')*act_gate(o); GRU gate weight [I+H, 2H] and bias [2H]
(r, u), candidate weight [I+H, H] and bias [H] on [x, r*h], h' = u*h + (1-u)*act(cand).

A named param_attr / bias_attr names each parameter with a suffix (_weight_ih, _weight_hh,
_bias_ih, _bias_hh; _gate_weight, _candidate_weight, _gate_bias, _candidate_bias).
Weights start Xavier, biases zero (Layer.create_parameter's defaults)."""
import copy

from ...layers import exports
from ...nn.layer.base import Layer

__all__ = ["LSTMCell", "GRUCell"]

_functions = {}


def _op(name):
    """paddle.<name> (found when first needed: paddle's namespace is assembled after
    fluid.dygraph is imported)."""
    if not _functions:
        _functions.update(exports("paddle"))
    return _functions[name]


def concat(x, axis):
    return _op("concat")(x, axis=axis)


def matmul(x, y, transpose_y=False):
    return _op("matmul")(x, y, transpose_y=transpose_y)


def split(x, sections, axis):
    return _op("split")(x, sections, axis=axis)


def sigmoid(x):
    return _op("sigmoid")(x)


def tanh(x):
    return _op("tanh")(x)


def _suffixed(attr, suffix):
    """`attr` with `suffix` added to its name (a copy), or `attr` itself when unnamed."""
    if attr is None or getattr(attr, "name", None) is None:
        return attr
    named = copy.deepcopy(attr)
    named.name += suffix
    return named


class _Cell(Layer):
    gates = None    # the cuDNN layout's number of gate chunks

    def __init__(self, hidden_size, input_size, param_attr, bias_attr, gate_activation,
                 activation, use_cudnn_impl, dtype):
        super().__init__(dtype=dtype)
        self._hidden_size, self._input_size = hidden_size, input_size
        self._dtype = dtype
        self._gate_activation = gate_activation or sigmoid
        self._activation = activation or tanh
        self._use_cudnn_impl = use_cudnn_impl
        if use_cudnn_impl:
            rows = self.gates * hidden_size
            self._weight_ih = self._parameter(param_attr, "_weight_ih", [rows, input_size])
            self._weight_hh = self._parameter(param_attr, "_weight_hh", [rows, hidden_size])
            self._bias_ih = self._parameter(bias_attr, "_bias_ih", [rows], True)
            self._bias_hh = self._parameter(bias_attr, "_bias_hh", [rows], True)

    def _parameter(self, attr, suffix, shape, is_bias=False):
        return self.create_parameter(attr=_suffixed(attr, suffix), shape=shape,
                                     dtype=self._dtype, is_bias=is_bias)

    def _cudnn_chunks(self, input, pre_hidden):
        """The gate chunks of x W_ih^T + b_ih and of h W_hh^T + b_hh."""
        x_gates = matmul(input, self._weight_ih, transpose_y=True) + self._bias_ih
        h_gates = matmul(pre_hidden, self._weight_hh, transpose_y=True) + self._bias_hh
        return (split(x_gates, self.gates, axis=1), split(h_gates, self.gates, axis=1))


class LSTMCell(_Cell):
    """forward(input, pre_hidden, pre_cell) -> (new_hidden, new_cell); see the module doc."""
    gates = 4

    def __init__(self, hidden_size, input_size, param_attr=None, bias_attr=None,
                 gate_activation=None, activation=None, forget_bias=1.0, use_cudnn_impl=True,
                 dtype="float64"):
        super().__init__(hidden_size, input_size, param_attr, bias_attr, gate_activation,
                         activation, use_cudnn_impl, dtype)
        if not use_cudnn_impl:
            self._forget_bias = _op("full")([1], forget_bias, dtype)
            self._forget_bias.stop_gradient = False
            self._weight = self._parameter(param_attr, "", [input_size + hidden_size,
                                                            4 * hidden_size])
            self._bias = self._parameter(bias_attr, "", [4 * hidden_size], True)

    def forward(self, input, pre_hidden, pre_cell):
        act, gate = self._activation, self._gate_activation
        if self._use_cudnn_impl:
            x_gates, h_gates = self._cudnn_chunks(input, pre_hidden)
            i, f, c, o = [x + h for x, h in zip(x_gates, h_gates)]
            new_cell = gate(f) * pre_cell + gate(i) * act(c)
            return gate(o) * act(new_cell), new_cell
        gates = matmul(concat([input, pre_hidden], axis=1), self._weight) + self._bias
        i, j, f, o = split(gates, 4, axis=-1)
        new_cell = pre_cell * gate(f + self._forget_bias) + sigmoid(i) * tanh(j)
        return act(new_cell) * gate(o), new_cell


class GRUCell(_Cell):
    """forward(input, pre_hidden) -> new_hidden; see the module doc."""
    gates = 3

    def __init__(self, hidden_size, input_size, param_attr=None, bias_attr=None,
                 gate_activation=None, activation=None, use_cudnn_impl=True,
                 dtype="float64"):
        super().__init__(hidden_size, input_size, param_attr, bias_attr, gate_activation,
                         activation, use_cudnn_impl, dtype)
        if not use_cudnn_impl:
            width = input_size + hidden_size
            self._gate_weight = self._parameter(param_attr, "_gate_weight",
                                                [width, 2 * hidden_size])
            self._candidate_weight = self._parameter(param_attr, "_candidate_weight",
                                                     [width, hidden_size])
            self._gate_bias = self._parameter(bias_attr, "_gate_bias", [2 * hidden_size], True)
            self._candidate_bias = self._parameter(bias_attr, "_candidate_bias",
                                                   [hidden_size], True)

    def forward(self, input, pre_hidden):
        act, gate = self._activation, self._gate_activation
        if self._use_cudnn_impl:
            (x_r, x_u, x_n), (h_r, h_u, h_n) = self._cudnn_chunks(input, pre_hidden)
            r, u = gate(x_r + h_r), gate(x_u + h_u)
            new = act(x_n + r * h_n)
            return u * pre_hidden + (1 - u) * new
        gates = gate(matmul(concat([input, pre_hidden], axis=1), self._gate_weight)
                     + self._gate_bias)
        r, u = split(gates, 2, axis=1)
        candidate = act(matmul(concat([input, r * pre_hidden], axis=1), self._candidate_weight)
                        + self._candidate_bias)
        return u * pre_hidden + (1 - u) * candidate
