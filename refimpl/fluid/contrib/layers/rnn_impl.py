"""contrib.layers.rnn_impl (1.8): BasicGRUUnit / BasicLSTMUnit and the multi-layer,
optionally bidirectional basic_gru / basic_lstm built from them with a StaticRNN.

The units are fluid.layers' GRUCell / LSTMCell steps (the same math and parameter names,
`<name_scope>/BasicGRUUnit_0.w_0`, ...): unit(input, pre_hidden) -> new hidden, and for
LSTM unit(input, pre_hidden, pre_cell) -> (new hidden, new cell). basic_gru / basic_lstm:
input [batch, T, in] (batch_first) or [T, batch, in]; each layer's output feeds the next
(after dropout when dropout_prob > 0); with sequence_length, steps past a sequence's end
keep the previous state; returns (output [.., T, .., hidden * directions], last hidden
[layers * directions, batch, hidden] (and last cell)). Parameter attributes with a name
get `_fw_w_<i>` / `_bw_b_<i>` ... per layer and direction, as in 1.8. T may be unknown when
the program is built (the StaticRNN then runs a while op, specs/fluid_rnn.md)."""
import copy

from ... import layers
from ...rnn import GRUCell, LSTMCell, StaticRNN

__all__ = ["BasicGRUUnit", "BasicLSTMUnit", "basic_gru", "basic_lstm"]


class BasicGRUUnit(GRUCell):
    def __init__(self, name_scope, hidden_size, param_attr=None, bias_attr=None,
                 gate_activation=None, activation=None, dtype="float32"):
        super().__init__(hidden_size, param_attr, bias_attr, gate_activation, activation,
                         dtype, name=name_scope)

    def __call__(self, input, pre_hidden):
        return self.call(input, pre_hidden)[0]


class BasicLSTMUnit(LSTMCell):
    def __init__(self, name_scope, hidden_size, param_attr=None, bias_attr=None,
                 gate_activation=None, activation=None, forget_bias=1.0, dtype="float32"):
        super().__init__(hidden_size, param_attr, bias_attr, gate_activation, activation,
                         forget_bias, dtype, name=name_scope)

    def __call__(self, input, pre_hidden, pre_cell):
        _, (hidden, cell) = self.call(input, [pre_hidden, pre_cell])
        return hidden, cell


def _named(attr, suffix):
    if attr is None or attr.name is None:
        return attr
    attr = copy.deepcopy(attr)
    attr.name += suffix
    return attr


def _units(make, name, num_layers, param_attr, bias_attr, direction):
    prefix = name + ("_reverse_layers_" if direction == "bw" else "_layers_")
    return [make(prefix + str(i), _named(param_attr, "_%s_w_%d" % (direction, i)),
                 _named(bias_attr, "_%s_b_%d" % (direction, i)))
            for i in range(num_layers)]


def _masked(new, old, step_mask):
    """new where the step is inside the sequence, old past its end."""
    return layers.elementwise_mul(new, step_mask, axis=0) - \
        layers.elementwise_mul(old, step_mask - 1.0, axis=0)


def _run(input, init_states, hidden_size, num_layers, sequence_length, dropout_prob,
         bidirectional, batch_first, units, n_states, dropout_implementation):
    """The shared body of basic_gru (1 state) and basic_lstm (2 states)."""
    if batch_first:
        input = layers.transpose(input, [1, 0, 2])
    mask = None
    if sequence_length is not None:
        mask = layers.transpose(layers.sequence_mask(sequence_length,
                                                     maxlen=layers.shape(input)[0],
                                                     dtype="float32"), [1, 0])
    directions = 2 if bidirectional else 1
    inits = [None if s is None else layers.reshape(s, [num_layers, directions, -1,
                                                       hidden_size])
             for s in init_states]

    def one_direction(rnn_input, unit_list, step_mask_seq, d):
        rnn = StaticRNN()
        with rnn.step():
            step_input = rnn.step_input(rnn_input)
            step_mask = rnn.step_input(step_mask_seq) if step_mask_seq is not None else None
            for i in range(num_layers):
                states = [rnn.memory(init=layers.squeeze(layers.slice(
                              init, [0, 1], [i, d], [i + 1, d + 1]), [0, 1]))
                          if init is not None else
                          rnn.memory(batch_ref=rnn_input, shape=[-1, hidden_size])
                          for init in inits]
                new = unit_list[i](step_input, *states)
                new = list(new) if n_states > 1 else [new]
                if step_mask is not None:
                    new = [_masked(n, s, step_mask) for n, s in zip(new, states)]
                for s, n in zip(states, new):
                    rnn.update_memory(s, n)
                    rnn.step_output(n)
                step_input = new[0]
                if dropout_prob:
                    step_input = layers.dropout(step_input, dropout_prob=dropout_prob,
                                                dropout_implementation=dropout_implementation)
            rnn.step_output(step_input)
        outs = rnn()
        # each layer's state after the last step, [1, batch, hidden], stacked by layer
        lasts = [layers.concat([layers.unsqueeze(outs[i * n_states + k][-1], [0])
                                for i in range(num_layers)], axis=0)
                 for k in range(n_states)]
        return outs[-1], lasts

    fw_out, fw_lasts = one_direction(input, units[0], mask, 0)
    if not bidirectional:
        out, lasts = fw_out, fw_lasts
    else:
        bw_out, bw_lasts = one_direction(layers.reverse(input, axis=[0]), units[1],
                                         None if mask is None else
                                         layers.reverse(mask, axis=[0]), 1)
        out = layers.concat([fw_out, layers.reverse(bw_out, axis=[0])], axis=2)
        lasts = [layers.reshape(layers.concat([f, b], axis=1),
                                [num_layers * 2, -1, hidden_size])
                 for f, b in zip(fw_lasts, bw_lasts)]
    if batch_first:
        out = layers.transpose(out, [1, 0, 2])
    return (out, *lasts)


def basic_gru(input, init_hidden, hidden_size, num_layers=1, sequence_length=None,
              dropout_prob=0.0, bidirectional=False, batch_first=True, param_attr=None,
              bias_attr=None, gate_activation=None, activation=None, dtype="float32",
              name="basic_gru"):
    def make(scope, p, b):
        return BasicGRUUnit(scope, hidden_size, p, b, gate_activation, activation, dtype)
    units = [_units(make, name, num_layers, param_attr, bias_attr, "fw")]
    if bidirectional:
        units.append(_units(make, name, num_layers, param_attr, bias_attr, "bw"))
    return _run(input, [init_hidden], hidden_size, num_layers, sequence_length,
                dropout_prob, bidirectional, batch_first, units, 1, "downgrade_in_infer")


def basic_lstm(input, init_hidden, init_cell, hidden_size, num_layers=1,
               sequence_length=None, dropout_prob=0.0, bidirectional=False, batch_first=True,
               param_attr=None, bias_attr=None, gate_activation=None, activation=None,
               forget_bias=1.0, dtype="float32", name="basic_lstm"):
    def make(scope, p, b):
        return BasicLSTMUnit(scope, hidden_size, p, b, gate_activation, activation,
                             forget_bias, dtype)
    units = [_units(make, name, num_layers, param_attr, bias_attr, "fw")]
    if bidirectional:
        units.append(_units(make, name, num_layers, param_attr, bias_attr, "bw"))
    return _run(input, [init_hidden, init_cell], hidden_size, num_layers, sequence_length,
                dropout_prob, bidirectional, batch_first, units, 2, "upscale_in_train")
