"""Recurrent layers (Paddle 2.0 paddle.nn): the cells SimpleRNNCell, LSTMCell and GRUCell,
RNN / BiRNN (a cell run over time) and the multi-layer SimpleRNN, LSTM and GRU.

SimpleRNN / LSTM / GRU build Paddle's fused `rnn` op (one op for all layers and time
steps). RNN / BiRNN, which run any cell, unroll the recurrence when the layer is called:
one copy of the cell's ops per time step (the time dimension must be known then).
Per-example `sequence_length` is a mask, as in Paddle: past each sequence's end the states
are carried unchanged (and SimpleRNN/LSTM/GRU zero the outputs).
See specs/nn_rnn.md.
"""
import math

from ... import versions
from ...framework import nest
from ...framework.initializer import Constant, Uniform
from ...framework.param_attr import ParamAttr
from ...layers.common import unary
from ...layers.creation import fill_constant_batch_size_like
from ...layers.math import cast, matmul
from ...layers.norm import dropout as functional_dropout
from ...layers.rnn_ops import rnn
from ...layers.tensor import concat, split, stack, transpose, unsqueeze, unstack
from .base import Layer
from .container import LayerList

__all__ = ["RNNCellBase", "SimpleRNNCell", "LSTMCell", "GRUCell", "RNN", "BiRNN",
           "SimpleRNN", "LSTM", "GRU"]


def _is_shape(value):
    return isinstance(value, (list, tuple)) and all(isinstance(d, int) for d in value)


def _map_structure(fn, *structures):
    """fn over the leaves of equally nested tuples/lists (Variables or shapes)."""
    first = structures[0]
    if isinstance(first, (list, tuple)) and not _is_shape(first):
        return type(first)(_map_structure(fn, *parts) for parts in zip(*structures))
    return fn(*structures)


# -- cells
class RNNCellBase(Layer):
    """Base of the cells: `forward(inputs, states=None) -> (outputs, new_states)` for one
    time step, `state_shape` (nested shapes without the batch dim) and
    `get_initial_states`."""

    def get_initial_states(self, batch_ref, shape=None, dtype=None, init_value=0.0,
                           batch_dim_idx=0):
        """States filled with `init_value`, nested as `shape` (default: state_shape), each
        [batch] + shape with batch = batch_ref.shape[batch_dim_idx] (read at run time).
        dtype defaults to state_dtype, else to batch_ref's float dtype. batch_ref may be a
        nested structure (an encoder's (outputs, states)): its first tensor is the one."""
        batch_ref = nest.flatten(batch_ref)[0]
        shapes = self.state_shape if shape is None else shape
        if dtype is None:
            try:
                dtype = self.state_dtype
            except NotImplementedError:
                dtype = batch_ref.dtype.name if batch_ref.dtype.name.startswith("float") \
                    else self._dtype
        dtypes = dtype if isinstance(dtype, (list, tuple)) else \
            _map_structure(lambda _: dtype, shapes)

        def fill(state_shape, state_dtype):
            state_shape = list(state_shape)
            if not state_shape or state_shape[0] != -1:
                state_shape = [-1] + state_shape
            return fill_constant_batch_size_like(batch_ref, state_shape, state_dtype,
                                                 init_value, input_dim_idx=batch_dim_idx)
        return _map_structure(fill, shapes, dtypes)

    @property
    def state_shape(self):
        raise NotImplementedError("%s must define state_shape" % type(self).__name__)

    @property
    def state_dtype(self):
        raise NotImplementedError("%s does not define state_dtype" % type(self).__name__)

    def _create_weights(self, gates, input_size, hidden_size, weight_ih_attr, weight_hh_attr,
                        bias_ih_attr, bias_hh_attr):
        """weight_ih [gates*hidden, input], weight_hh [gates*hidden, hidden], bias_ih and
        bias_hh [gates*hidden], all Uniform(-1/sqrt(hidden), 1/sqrt(hidden)) by default.
        attr=False gives a fixed, non-trainable one (weights 1, biases 0), as Paddle 3.3.1
        does; a bias attr False under profiles 1.8 / 2.0 gives no bias at all (None, not a
        parameter), as Paddle 2.0's create_parameter does (switch rnn_cell_false_bias)."""
        if hidden_size <= 0:
            raise ValueError("%s: hidden_size must be greater than 0, got %d"
                             % (type(self).__name__, hidden_size))
        self.input_size, self.hidden_size = input_size, hidden_size
        bound = 1.0 / math.sqrt(hidden_size)
        rows = gates * hidden_size
        for name, shape, attr, is_bias in (
                ("weight_ih", [rows, input_size], weight_ih_attr, False),
                ("weight_hh", [rows, hidden_size], weight_hh_attr, False),
                ("bias_ih", [rows], bias_ih_attr, True),
                ("bias_hh", [rows], bias_hh_attr, True)):
            init = Uniform(-bound, bound)
            if attr is False and is_bias and \
                    versions.switch("rnn_cell_false_bias") == "absent":
                setattr(self, name, None)
                continue
            if attr is False:
                init = Constant(0.0 if is_bias else 1.0)
                attr = ParamAttr(initializer=init, trainable=False)
            setattr(self, name, self.create_parameter(shape, attr, is_bias=is_bias,
                                                      default_initializer=init))

    def _projections(self, inputs, hidden):
        """(inputs @ weight_ih^T + bias_ih, hidden @ weight_hh^T + bias_hh), a bias that is
        None left out."""
        self._expect_input(inputs, "inputs", ranks=(2,))
        self._expect_dim(inputs, 1, self.input_size, "input_size")
        x = matmul(inputs, self.weight_ih, transpose_y=True)
        h = matmul(hidden, self.weight_hh, transpose_y=True)
        return (x if self.bias_ih is None else x + self.bias_ih,
                h if self.bias_hh is None else h + self.bias_hh)

    def extra_repr(self):
        return "%d, %d" % (self.input_size, self.hidden_size)


class SimpleRNNCell(RNNCellBase):
    """h = act(x W_ih^T + b_ih + h_prev W_hh^T + b_hh), act tanh or relu; returns (h, h)."""

    def __init__(self, input_size, hidden_size, activation="tanh", weight_ih_attr=None,
                 weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__()
        if activation not in ("tanh", "relu"):
            raise ValueError("SimpleRNNCell: activation must be 'tanh' or 'relu', got %r"
                             % (activation,))
        self.activation = activation
        self._create_weights(1, input_size, hidden_size, weight_ih_attr, weight_hh_attr,
                             bias_ih_attr, bias_hh_attr)

    def forward(self, inputs, states=None):
        if states is None:
            states = self.get_initial_states(inputs)
        i2h, h2h = self._projections(inputs, states)
        h = unary(self.activation, i2h + h2h)
        return h, h

    @property
    def state_shape(self):
        return (self.hidden_size,)

    def extra_repr(self):
        act = "" if self.activation == "tanh" else ", activation=%s" % self.activation
        return super().extra_repr() + act


class _GatedCell(RNNCellBase):
    """A cell whose weights stack `_gates` blocks of hidden_size rows (LSTM 4, GRU 3)."""
    _gates = None

    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__()
        self._create_weights(self._gates, input_size, hidden_size, weight_ih_attr,
                             weight_hh_attr, bias_ih_attr, bias_hh_attr)


class LSTMCell(_GatedCell):
    """gates = x W_ih^T + b_ih + h_prev W_hh^T + b_hh split into i, f, g, o (that order);
    c = sigmoid(f) * c_prev + sigmoid(i) * tanh(g); h = sigmoid(o) * tanh(c).
    states = (h, c); returns (h, (h, c))."""
    _gates = 4

    def forward(self, inputs, states=None):
        if states is None:
            states = self.get_initial_states(inputs)
        pre_hidden, pre_cell = states
        x_gates, h_gates = self._projections(inputs, pre_hidden)
        i, f, g, o = split(x_gates + h_gates, 4, axis=-1)
        c = unary("sigmoid", f) * pre_cell + unary("sigmoid", i) * unary("tanh", g)
        h = unary("sigmoid", o) * unary("tanh", c)
        return h, (h, c)

    @property
    def state_shape(self):
        return ((self.hidden_size,), (self.hidden_size,))


class GRUCell(_GatedCell):
    """x W_ih^T + b_ih split into x_r, x_z, x_c and h_prev W_hh^T + b_hh into h_r, h_z, h_c;
    r = sigmoid(x_r + h_r), z = sigmoid(x_z + h_z), c = tanh(x_c + r * h_c) (reset applied
    after the matmul); h = (h_prev - c) * z + c. Returns (h, h)."""
    _gates = 3

    def forward(self, inputs, states=None):
        if states is None:
            states = self.get_initial_states(inputs)
        x_gates, h_gates = self._projections(inputs, states)
        x_r, x_z, x_c = split(x_gates, 3, axis=-1)
        h_r, h_z, h_c = split(h_gates, 3, axis=-1)
        r = unary("sigmoid", x_r + h_r)
        z = unary("sigmoid", x_z + h_z)
        c = unary("tanh", x_c + r * h_c)
        h = (states - c) * z + c
        return h, h

    @property
    def state_shape(self):
        return (self.hidden_size,)


# -- running a cell over time
def _unroll(layer, cell, inputs, initial_states, sequence_length, time_major, is_reverse,
            zero_outputs, **kwargs):
    """Run `cell` over the time steps of `inputs` ([batch, time, ...], or [time, batch, ...]
    when time_major), one copy of its ops per step. Returns (outputs stacked over time,
    final states)."""
    layer._expect_input(inputs, "inputs")
    if len(inputs.shape) < 2:
        raise ValueError("%s: input 'inputs' %s must have at least 2 dims ([batch, time, ...]"
                         " or [time, batch, ...])" % (layer._where(), list(inputs.shape)))
    time_axis = 0 if time_major else 1
    steps = inputs.shape[time_axis]
    if steps < 0:
        raise ValueError("%s: input %r %s has an unknown time dimension (dim %d is -1); "
                         "refimpl unrolls the recurrence when the program is built, so the "
                         "number of time steps must be fixed (pad the sequences and pass "
                         "sequence_length)" % (layer._where(), inputs.name,
                                               list(inputs.shape), time_axis))
    step_inputs = unstack(inputs, axis=time_axis, num=steps)
    step_masks = [None] * steps
    if sequence_length is not None:
        layer._expect_input(sequence_length, "sequence_length", ranks=(1,))
        # [batch, 1] masks: 1 while t < length
        step_masks = [unsqueeze(cast(sequence_length > t, inputs.dtype), [1])
                      for t in range(steps)]
    order = range(steps - 1, -1, -1) if is_reverse else range(steps)
    states = initial_states
    if states is None:
        states = cell.get_initial_states(inputs, batch_dim_idx=1 if time_major else 0)
    outputs = [None] * steps
    for t in order:
        output, new_states = cell(step_inputs[t], states, **kwargs)
        mask = step_masks[t]
        if mask is not None:
            new_states = _map_structure(lambda new, old: new * mask + old * (1.0 - mask),
                                        new_states, states)
            if zero_outputs:
                output = output * mask
        outputs[t] = output
        states = new_states
    return stack(outputs, axis=time_axis), states


class RNN(Layer):
    """Runs `cell` over time: forward(inputs, initial_states=None, sequence_length=None,
    **kwargs) -> (outputs [batch, time, ...] (time-major if time_major), final states).
    is_reverse runs from the last step to the first. With sequence_length, states stay
    unchanged past each sequence's end; outputs there are the cell's (not zeroed), as in
    Paddle's RNN."""

    def __init__(self, cell, is_reverse=False, time_major=False):
        super().__init__()
        self.cell = cell
        self.is_reverse, self.time_major = is_reverse, time_major

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        return self._run(inputs, initial_states, sequence_length, False, **kwargs)

    def _run(self, inputs, initial_states, sequence_length, zero_outputs, **kwargs):
        return _unroll(self, self.cell, inputs, initial_states, sequence_length,
                       self.time_major, self.is_reverse, zero_outputs, **kwargs)


class BiRNN(Layer):
    """cell_fw run forward and cell_bw run backward over the same inputs; outputs are
    concatenated on the last axis, final states are (states_fw, states_bw).
    initial_states, when given, is the pair (states_fw, states_bw)."""

    def __init__(self, cell_fw, cell_bw, time_major=False):
        super().__init__()
        if cell_fw.input_size != cell_bw.input_size:
            raise ValueError("BiRNN: input size of the forward cell (%d) differs from the "
                             "backward cell's (%d)" % (cell_fw.input_size,
                                                       cell_bw.input_size))
        self.cell_fw, self.cell_bw = cell_fw, cell_bw
        self.time_major = time_major

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        return self._run(inputs, initial_states, sequence_length, False, **kwargs)

    def _run(self, inputs, initial_states, sequence_length, zero_outputs, **kwargs):
        if initial_states is None:
            initial_states = (None, None)
        elif not isinstance(initial_states, (list, tuple)) or len(initial_states) != 2:
            raise ValueError("%s: initial_states must be a pair (states_fw, states_bw)"
                             % self._where())
        fw_states, bw_states = initial_states
        fw_out, fw_final = _unroll(self, self.cell_fw, inputs, fw_states, sequence_length,
                                   self.time_major, False, zero_outputs, **kwargs)
        bw_out, bw_final = _unroll(self, self.cell_bw, inputs, bw_states, sequence_length,
                                   self.time_major, True, zero_outputs, **kwargs)
        return concat([fw_out, bw_out], axis=-1), (fw_final, bw_final)


# -- multi-layer networks
_BIDIRECTIONAL = ("bidirect", "bidirectional")


class RNNBase(LayerList):
    """num_layers RNN (or BiRNN) layers of one cell type, the outputs of each the inputs of
    the next (with dropout in between while training). States are
    [num_layers * num_directions, batch, hidden] (LSTM: the pair (h, c))."""

    def __init__(self, mode, cell_type, input_size, hidden_size, num_layers=1,
                 direction="forward", time_major=False, dropout=0.0, weight_ih_attr=None,
                 weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, **cell_kwargs):
        super().__init__()
        if direction not in ("forward",) + _BIDIRECTIONAL:
            raise ValueError("%s: direction must be 'forward', 'bidirect' or 'bidirectional',"
                             " got %r" % (mode, direction))
        if num_layers < 1:
            raise ValueError("%s: num_layers must be >= 1, got %d" % (mode, num_layers))
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.time_major, self.dropout = num_layers, time_major, dropout
        self.num_directions = 2 if direction in _BIDIRECTIONAL else 1
        self.state_components = 2 if mode == "LSTM" else 1
        cell_kwargs.update(weight_ih_attr=weight_ih_attr, weight_hh_attr=weight_hh_attr,
                           bias_ih_attr=bias_ih_attr, bias_hh_attr=bias_hh_attr)
        for layer in range(num_layers):
            size = input_size if layer == 0 else hidden_size * self.num_directions
            if self.num_directions == 1:
                self.append(RNN(cell_type(size, hidden_size, **cell_kwargs), False,
                                time_major))
            else:
                self.append(BiRNN(cell_type(size, hidden_size, **cell_kwargs),
                                  cell_type(size, hidden_size, **cell_kwargs), time_major))
        # Paddle's flag for running the one fused rnn op (cuDNN's, and its CPU kernel)
        # instead of the cells: every cell has its four parameters (no bias_attr=False);
        # paddle.summary reports such a layer as one row
        self.could_use_cudnn = len(self.parameters()) == num_layers * 4 * self.num_directions
        # Paddle also exposes the cells' parameters as weight_ih_l0, ..._reverse
        for layer, rnn_layer in enumerate(self):
            cells = [rnn_layer.cell] if self.num_directions == 1 else \
                [rnn_layer.cell_fw, rnn_layer.cell_bw]
            for direction_index, cell in enumerate(cells):
                suffix = "_reverse" if direction_index else ""
                for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
                    setattr(self, "%s_l%d%s" % (name, layer, suffix), getattr(cell, name))

    def forward(self, inputs, initial_states=None, sequence_length=None):
        """One fused rnn op over every layer; with dropout while training, one rnn op per
        layer and dropout ops between them."""
        self._expect_input(inputs, "inputs", ranks=(3,))
        self._expect_dim(inputs, 2, self.input_size, "input_size")
        if sequence_length is not None:
            self._expect_input(sequence_length, "sequence_length", ranks=(1,))
        rows = self.num_layers * self.num_directions
        if initial_states is None:
            batch_axis = 1 if self.time_major else 0
            initial_states = tuple(fill_constant_batch_size_like(
                inputs, [rows, -1, self.hidden_size], inputs.dtype, 0.0,
                input_dim_idx=batch_axis, output_dim_idx=1)
                for _ in range(self.state_components))
        else:
            initial_states = self._check_states(initial_states)
        x = inputs if self.time_major else transpose(inputs, [1, 0, 2])
        cells = [cell for rnn_layer in self for cell in (
            [rnn_layer.cell] if self.num_directions == 1
            else [rnn_layer.cell_fw, rnn_layer.cell_bw])]
        groups = [list(range(self.num_layers))]
        if self.dropout and self.training and self.num_layers > 1:
            groups = [[layer] for layer in range(self.num_layers)]
        finals = []
        for group in groups:
            if group[0] > 0:
                x = functional_dropout(x, self.dropout, training=True,
                                       mode="upscale_in_train")
            k0, k1 = group[0] * self.num_directions, (group[-1] + 1) * self.num_directions
            group_cells = cells[k0:k1]
            weights = [getattr(c, n) for c in group_cells for n in ("weight_ih", "weight_hh")]
            weights += [getattr(c, n) for c in group_cells for n in ("bias_ih", "bias_hh")]
            states = initial_states if len(groups) == 1 else \
                [state[k0:k1] for state in initial_states]
            x, final = rnn(x, states, weights, self.mode, self.hidden_size, len(group),
                           self.num_directions == 2, sequence_length, not self.training)
            finals.append(final)
        if len(finals) > 1:
            finals = [concat([f[i] for f in finals], axis=0)
                      for i in range(self.state_components)]
        else:
            finals = finals[0]
        outputs = x if self.time_major else transpose(x, [1, 0, 2])
        return outputs, (tuple(finals) if self.state_components == 2 else finals[0])

    def _check_states(self, initial_states):
        """[L*D, batch, hidden] states: the pair (h, c) for LSTM, one Variable otherwise."""
        components = initial_states if self.state_components == 2 else (initial_states,)
        if not isinstance(components, (list, tuple)) or \
                len(components) != self.state_components:
            raise ValueError("%s: initial_states must be %s" % (
                self._where(), "the pair (h, c)" if self.state_components == 2
                else "one Variable"))
        for component in components:
            self._expect_input(component, "initial_states", ranks=(3,))
            self._expect_dim(component, 0, self.num_layers * self.num_directions,
                             "num_layers * num_directions")
        return tuple(components)

    def extra_repr(self):
        text = "%d, %d" % (self.input_size, self.hidden_size)
        if self.num_layers != 1:
            text += ", num_layers=%d" % self.num_layers
        if self.time_major:
            text += ", time_major=True"
        if self.dropout:
            text += ", dropout=%s" % self.dropout
        return text


class SimpleRNN(RNNBase):
    """Multi-layer SimpleRNNCell network (activation 'tanh' or 'relu'); forward(inputs,
    initial_states=None, sequence_length=None) -> (outputs, h [L*D, batch, hidden])."""

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, activation="tanh", weight_ih_attr=None,
                 weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__("RNN_" + str(activation).upper(), SimpleRNNCell, input_size,
                         hidden_size, num_layers, direction, time_major, dropout,
                         weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr,
                         activation=activation)


class LSTM(RNNBase):
    """Multi-layer LSTMCell network; forward(inputs, initial_states=None,
    sequence_length=None) -> (outputs, (h, c)), h and c [L*D, batch, hidden]."""

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__("LSTM", LSTMCell, input_size, hidden_size, num_layers, direction,
                         time_major, dropout, weight_ih_attr, weight_hh_attr, bias_ih_attr,
                         bias_hh_attr)


class GRU(RNNBase):
    """Multi-layer GRUCell network; forward(inputs, initial_states=None,
    sequence_length=None) -> (outputs, h [L*D, batch, hidden])."""

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__("GRU", GRUCell, input_size, hidden_size, num_layers, direction,
                         time_major, dropout, weight_ih_attr, weight_hh_attr, bias_ih_attr,
                         bias_hh_attr)
