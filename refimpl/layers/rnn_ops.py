"""Recurrent ops on dense tensors: fluid.layers' lstm_unit and gru_unit (one step on
[batch, ...]), and the fused multi-layer `rnn` op behind nn.SimpleRNN / LSTM / GRU."""
from ..framework.layer_helper import LayerHelper
from .common import check_variable
from .nn import fc
from .tensor import concat

_GRU_ACTIVATIONS = {"identity": 0, "sigmoid": 1, "tanh": 2, "relu": 3}


def lstm_unit(x_t, hidden_t_prev, cell_t_prev, forget_bias=0.0, param_attr=None,
              bias_attr=None, name=None):
    """One LSTM step: gates = fc(concat(x_t, h_prev)) laid out (i, f, o, g); returns
    (hidden, cell)."""
    for arg, v in (("x_t", x_t), ("hidden_t_prev", hidden_t_prev),
                   ("cell_t_prev", cell_t_prev)):
        check_variable(v, arg, "lstm_unit")
    width = cell_t_prev.shape[-1]
    if width < 0 or hidden_t_prev.shape[-1] != width:
        raise ValueError("lstm_unit: hidden_t_prev %s and cell_t_prev %s must have the same "
                         "known width" % (list(hidden_t_prev.shape), list(cell_t_prev.shape)))
    gates = fc(concat([x_t, hidden_t_prev], axis=1), 4 * width, weight_attr=param_attr,
               bias_attr=bias_attr)
    helper = LayerHelper("lstm_unit", name=name)
    cell, hidden = (helper.create_variable_for_type_inference(x_t.dtype) for _ in range(2))
    helper.append_op(type="lstm_unit", inputs={"X": [gates], "C_prev": [cell_t_prev]},
                     outputs={"C": [cell], "H": [hidden]}, attrs={"forget_bias": forget_bias})
    return hidden, cell


def gru_unit(input, hidden, size, param_attr=None, bias_attr=None, activation="tanh",
             gate_activation="sigmoid", origin_mode=False):
    """One GRU step; size = 3 * hidden width. Returns (hidden, reset_hidden_prev, gate)."""
    check_variable(input, "input", "gru_unit")
    check_variable(hidden, "hidden", "gru_unit")
    for arg, act in (("activation", activation), ("gate_activation", gate_activation)):
        if act not in _GRU_ACTIVATIONS:
            raise ValueError("gru_unit: %s must be one of %s, got %r"
                             % (arg, sorted(_GRU_ACTIVATIONS), act))
    width = size // 3
    helper = LayerHelper("gru_unit")
    weight = helper.create_parameter(param_attr, [width, 3 * width], input.dtype)
    bias = helper.create_parameter(bias_attr, [1, 3 * width], input.dtype, is_bias=True)
    gate, reset_h, new_h = (helper.create_variable_for_type_inference(input.dtype)
                            for _ in range(3))
    inputs = {"Input": [input], "HiddenPrev": [hidden], "Weight": [weight]}
    if bias is not None:
        inputs["Bias"] = [bias]
    helper.append_op(type="gru_unit", inputs=inputs,
                     outputs={"Gate": [gate], "ResetHiddenPrev": [reset_h], "Hidden": [new_h]},
                     attrs={"activation": _GRU_ACTIVATIONS[activation],
                            "gate_activation": _GRU_ACTIVATIONS[gate_activation],
                            "origin_mode": origin_mode})
    return new_h, reset_h, gate


def rnn(input, pre_states, weights, mode, hidden_size, num_layers=1, is_bidirec=False,
        sequence_length=None, is_test=False):
    """The rnn op over time-major input [time, batch, input_size]: pre_states [h] (LSTM
    [h, c]) each [num_layers * directions, batch, hidden], weights in Paddle's WeightList
    order. Returns (outputs [time, batch, directions * hidden], final states)."""
    helper = LayerHelper("rnn")
    out, reserve = (helper.create_variable_for_type_inference(input.dtype) for _ in range(2))
    dropout_state = helper.create_variable_for_type_inference("uint8", stop_gradient=True)
    states = [helper.create_variable_for_type_inference(input.dtype) for _ in pre_states]
    inputs = {"Input": [input], "PreState": list(pre_states), "WeightList": list(weights)}
    if sequence_length is not None:
        inputs["SequenceLength"] = [sequence_length]
    helper.append_op(type="rnn", inputs=inputs,
                     outputs={"Out": [out], "DropoutState": [dropout_state],
                              "Reserve": [reserve], "State": states},
                     attrs={"mode": mode, "hidden_size": hidden_size,
                            "input_size": input.shape[-1], "num_layers": num_layers,
                            "is_bidirec": is_bidirec, "is_test": is_test,
                            "dropout_prob": 0.0})
    return out, states


EXPORTS = {"fluid.layers": {"lstm_unit": lstm_unit, "gru_unit": gru_unit}}
