"""Paddle 1.8 fluid.layers RNN and decoding API (specs/fluid_rnn.md): RNNCell, GRUCell,
LSTMCell, rnn, StaticRNN, DynamicRNN, the decoding helpers (DecodeHelper, TrainingHelper,
GreedyEmbeddingHelper, SampleEmbeddingHelper), BasicDecoder, and the beam_search /
beam_search_decode ops' layer functions.

Like refimpl.nn's recurrent layers, every recurrence here is unrolled when the program is
built (one copy of the step's ops per time step), so the number of time steps must be
known then. Decoding reuses refimpl.nn's Decoder protocol and dynamic_decode (1.8's
fluid.layers.dynamic_decode / BeamSearchDecoder are the same objects). It is built on
refimpl.nn's Layer and cells, so it lives with the fluid namespace, above both layers/ and
nn/ (docs/ARCHITECTURE.md)."""
import collections
import contextlib

import numpy as np

from ..framework import unique_name
from ..framework.dtypes import convert_dtype
from ..framework.nest import flatten, map_structure, pack_sequence_as
from ..framework.layer_helper import LayerHelper
from ..framework.param_attr import ParamAttr
from ..framework.program import Variable, default_main_program
from ..layers.activation import softmax
from ..layers.common import append_op_out, check_variable, unary
from ..layers.control_flow import (_append_while, _finish_loop_body, _sub_block,
                                   array_read, array_write, create_array,
                                   tensor_array_to_tensor)
from ..layers.control_flow import in_parent_block as _in_parent
from ..layers.creation import (assign, fill_constant, fill_constant_batch_size_like,
                               zeros_like)
from ..layers.manipulation import fluid_reverse
from ..layers.math import _bool_out, cast, fluid_less_than, matmul
from ..layers.sampling import sampling_id
from ..layers.sequence import (array_to_lod_tensor, lod_rank_table, lod_tensor_to_array,
                               max_sequence_len, reorder_lod_tensor_by_rank, sequence_mask,
                               sequence_pad, sequence_unpad, shrink_memory)
from ..layers.tensor import (argmax, argsort, concat, fluid_expand, gather, increment,
                             reshape, scatter, shape, slice, split, squeeze, stack,
                             transpose, unsqueeze, unstack)
from ..nn.layer.base import Layer
from ..nn.layer.decode import BeamSearchDecoder, Decoder, _leaves, dynamic_decode
from ..nn.layer.rnn import RNNCellBase, _unroll

__all__ = ["RNNCell", "GRUCell", "LSTMCell", "rnn", "StaticRNN", "DynamicRNN", "Decoder",
           "BasicDecoder", "DecodeHelper", "TrainingHelper", "GreedyEmbeddingHelper",
           "SampleEmbeddingHelper", "BeamSearchDecoder", "dynamic_decode", "beam_search",
           "beam_search_decode"]


# -- cells
class RNNCell:
    """Base of the 1.8 cells: call(inputs, states, **kwargs) -> (outputs, new_states) for
    one time step (also reached as cell(inputs, states)), state_shape (nested shapes without
    the batch dim), state_dtype and get_initial_states (as refimpl.nn's cells)."""
    _dtype = "float32"

    def call(self, inputs, states, **kwargs):
        raise NotImplementedError("%s must define call(inputs, states)" % type(self).__name__)

    def __call__(self, inputs, states, **kwargs):
        return self.call(inputs, states, **kwargs)

    get_initial_states = RNNCellBase.get_initial_states
    state_shape = RNNCellBase.state_shape   # properties that a cell class overrides
    state_dtype = RNNCellBase.state_dtype


def _suffixed(attr, suffix):
    """A copy of a ParamAttr whose name, when set, gets `suffix` (1.8 names the gate and
    candidate parameters of one GRUCell param_attr name + '_gate' / '_candidate')."""
    attr = ParamAttr._to_attr(attr)
    if attr is False or attr.name is None:
        return attr
    return ParamAttr(name=attr.name + suffix, initializer=attr.initializer,
                     learning_rate=attr.learning_rate, regularizer=attr.regularizer,
                     trainable=attr.trainable)


class _FcCell(RNNCell):
    """A 1.8 cell whose gates are fc's over concat([inputs, hidden]): the weights
    [input_size + hidden, n * hidden] are created at the first call, when input_size is
    known, and reused by later calls (steps)."""

    unit = None     # the name of the 1.8 Layer (contrib rnn_impl) whose parameters it has

    def __init__(self, hidden_size, param_attr, bias_attr, gate_activation, activation,
                 dtype, name):
        where = type(self).__name__
        if not isinstance(hidden_size, (int, np.integer)) or isinstance(hidden_size, bool):
            raise TypeError("%s: hidden_size must be an int, got %r" % (where, hidden_size))
        if int(hidden_size) <= 0:
            raise ValueError("%s: hidden_size must be greater than 0, got %r"
                             % (where, hidden_size))
        if convert_dtype(dtype) not in ("float32", "float64"):
            raise TypeError("%s: dtype must be float32 or float64, got %r" % (where, dtype))
        self.hidden_size = int(hidden_size)
        self.param_attr, self.bias_attr = param_attr, bias_attr
        self.gate_activation = gate_activation or (lambda x: unary("sigmoid", x))
        self.activation = activation or (lambda x: unary("tanh", x))
        self._dtype = dtype
        # parameters are named as 1.8 / 2.0 name its Layer's: "GRUCell/BasicGRUUnit_0.w_0"
        full_name = unique_name.generate(name + "/" + self.unit)
        self._helper = LayerHelper(full_name, name=full_name)
        self.input_size = None

    def _check_inputs(self, inputs, hidden, states=None):
        """inputs [batch, input_size] and the states (`states`, default [hidden]): float32
        or float64 Variables (TypeError otherwise, as Paddle's cells check them)."""
        where = type(self).__name__
        for arg, v in [("inputs", inputs)] + [("states[%d]" % i, v) for i, v in
                                              enumerate(states or [hidden])]:
            check_variable(v, arg, where)
            if v.dtype is not None and v.dtype.name not in ("float32", "float64"):
                raise TypeError("%s: %s %r must be float32 or float64, got %s"
                                % (where, arg, v.name, v.dtype.name))
        if len(inputs.shape) != 2 or inputs.shape[-1] < 0:
            raise ValueError("%s: inputs %r must be [batch, input_size] with input_size "
                             "known, got %s" % (where, inputs.name, list(inputs.shape)))
        if self.input_size is None:
            self.input_size = inputs.shape[-1]
            self._create_parameters()
        elif inputs.shape[-1] != self.input_size:
            raise ValueError("%s: inputs %r has size %d, but the cell was built for "
                             "input_size %d" % (where, inputs.name, inputs.shape[-1],
                                                self.input_size))
        if hidden.shape[-1] >= 0 and hidden.shape[-1] != self.hidden_size:
            raise ValueError("%s: state %r %s must have hidden_size %d on its last dim"
                             % (where, hidden.name, list(hidden.shape), self.hidden_size))

    def _parameter(self, attr, columns, is_bias, suffix=""):
        rows = [] if is_bias else [self.input_size + self.hidden_size]
        return self._helper.create_parameter(
            _suffixed(attr, suffix), rows + [columns * self.hidden_size], self._dtype,
            is_bias=is_bias)

    @staticmethod
    def _fc(x, weight, bias):
        out = matmul(x, weight)
        return out if bias is None else out + bias

    @property
    def state_dtype(self):
        return self._dtype


class GRUCell(_FcCell):
    """1.8 GRUCell (BasicGRUUnit): [r, u] = gate_act(concat(x, h) W_gate + b_gate),
    c = act(concat(x, r * h) W_cand + b_cand), h' = u * h + (1 - u) * c. Returns (h', h').
    W_gate [in + hidden, 2 * hidden], W_cand [in + hidden, hidden]."""
    unit = "BasicGRUUnit"

    def __init__(self, hidden_size, param_attr=None, bias_attr=None, gate_activation=None,
                 activation=None, dtype="float32", name="GRUCell"):
        super().__init__(hidden_size, param_attr, bias_attr, gate_activation, activation,
                         dtype, name)

    def _create_parameters(self):
        self.gate_weight = self._parameter(self.param_attr, 2, False, "_gate")
        self.candidate_weight = self._parameter(self.param_attr, 1, False, "_candidate")
        self.gate_bias = self._parameter(self.bias_attr, 2, True, "_gate")
        self.candidate_bias = self._parameter(self.bias_attr, 1, True, "_candidate")

    def call(self, inputs, states):
        self._check_inputs(inputs, states)
        gates = self.gate_activation(self._fc(concat([inputs, states], axis=1),
                                              self.gate_weight, self.gate_bias))
        reset, update = split(gates, 2, axis=1)
        candidate = self.activation(self._fc(concat([inputs, reset * states], axis=1),
                                             self.candidate_weight, self.candidate_bias))
        hidden = update * states + (1.0 - update) * candidate
        return hidden, hidden

    @property
    def state_shape(self):
        return [self.hidden_size]


class LSTMCell(_FcCell):
    """1.8 LSTMCell (BasicLSTMUnit): [i, j, f, o] = concat(x, h) W + b (W [in + hidden,
    4 * hidden]); c' = c * gate_act(f + forget_bias) + gate_act(i) * act(j);
    h' = act(c') * gate_act(o). states = [h, c]; returns (h', [h', c'])."""
    unit = "BasicLSTMUnit"

    def __init__(self, hidden_size, param_attr=None, bias_attr=None, gate_activation=None,
                 activation=None, forget_bias=1.0, dtype="float32", name="LSTMCell"):
        super().__init__(hidden_size, param_attr, bias_attr, gate_activation, activation,
                         dtype, name)
        self.forget_bias = float(forget_bias)

    def _create_parameters(self):
        self.weight = self._parameter(self.param_attr, 4, False)
        self.bias = self._parameter(self.bias_attr, 4, True)

    def call(self, inputs, states):
        if not isinstance(states, (list, tuple)):
            raise TypeError("LSTMCell: states must be the list [hidden, cell], got %s"
                            % type(states).__name__)
        if len(states) != 2:
            raise ValueError("LSTMCell: states must be the pair [hidden, cell], got %d "
                             "states" % len(states))
        pre_hidden, pre_cell = states
        self._check_inputs(inputs, pre_hidden, [pre_hidden, pre_cell])
        i, j, f, o = split(self._fc(concat([inputs, pre_hidden], axis=1), self.weight,
                                    self.bias), 4, axis=-1)
        act, gate = self.activation, self.gate_activation
        cell = pre_cell * gate(f + self.forget_bias) + gate(i) * act(j)
        hidden = act(cell) * gate(o)
        return hidden, [hidden, cell]

    @property
    def state_shape(self):
        return [[self.hidden_size], [self.hidden_size]]


class _ApiErrors:
    """What refimpl.nn's unroll uses to report bad input, named after a fluid API."""
    _expect_input = Layer._expect_input

    def __init__(self, api):
        self.api = api

    def _where(self):
        return self.api


def rnn(cell, inputs, initial_states=None, sequence_length=None, time_major=False,
        is_reverse=False, **kwargs):
    """Run `cell` over the time steps of `inputs` ([batch, time, ...], or [time, batch, ...]
    when time_major) -> (outputs stacked over time, final states). With sequence_length the
    states stay unchanged past each sequence's end (outputs there are the cell's)."""
    if not callable(cell):
        raise TypeError("fluid.layers.rnn: cell must be an RNNCell, got %s"
                        % type(cell).__name__)
    errors = _ApiErrors("fluid.layers.rnn")
    errors._expect_input(inputs, "inputs")
    if len(inputs.shape) >= 2 and inputs.shape[0 if time_major else 1] < 0:
        return _rnn_over_run_time_steps(cell, inputs, initial_states, sequence_length,
                                        time_major, is_reverse, **kwargs)
    return _unroll(errors, cell, inputs, initial_states, sequence_length, time_major,
                   is_reverse, False, **kwargs)


def _rnn_over_run_time_steps(cell, inputs, initial_states, sequence_length, time_major,
                             is_reverse, **kwargs):
    """rnn() when the number of steps is known only at run time: a StaticRNN over the
    time-major inputs (a `while` op), as Paddle 1.8 builds it. With sequence_length a
    state keeps its value past its sequence's end (mask [T, batch, 1])."""
    if initial_states is None:
        initial_states = cell.get_initial_states(inputs, batch_dim_idx=1 if time_major else 0)
    if not time_major:
        inputs = _swap_batch_time(inputs)
    mask = None
    if sequence_length is not None:
        check_variable(sequence_length, "sequence_length", "fluid.layers.rnn")
        steps = slice(shape(inputs), [0], [0], [1])
        mask = unsqueeze(transpose(sequence_mask(sequence_length, maxlen=steps,
                                                 dtype=inputs.dtype.name), [1, 0]), [2])
    if is_reverse:
        inputs = fluid_reverse(inputs, [0])
        mask = fluid_reverse(mask, [0]) if mask is not None else None
    recurrence = StaticRNN()
    with recurrence.step():
        step_input = recurrence.step_input(inputs)
        states = map_structure(lambda s: recurrence.memory(init=s), initial_states)
        outputs, new_states = cell(step_input, states, **kwargs)
        if mask is not None:
            step_mask = recurrence.step_input(mask)
            new_states = map_structure(lambda new, old: new * step_mask + old *
                                       (1.0 - step_mask), new_states, states)
        map_structure(recurrence.update_memory, states, new_states)
        flat_outputs = flatten(outputs)
        recurrence.output(*flat_outputs, *flatten(new_states))
    stacked = recurrence.output_list()
    final_outputs = stacked[:len(flat_outputs)]
    final_states = [s[-1] for s in stacked[len(flat_outputs):]]
    if is_reverse:
        final_outputs = [fluid_reverse(o, [0]) for o in final_outputs]
    if not time_major:
        final_outputs = [_swap_batch_time(o) for o in final_outputs]
    return (pack_sequence_as(outputs, final_outputs),
            pack_sequence_as(new_states, final_states))


# -- StaticRNN
def _end_loop_step(counter, steps, cond, outputs, memories):
    """The end of a `while` body over time steps: each (step output, accumulator) of
    `outputs` scattered into row `counter` (before the memories move on), each (loop
    variable, its step-end value) of `memories` carried over, the counter advanced and
    `cond` recomputed against `steps`."""
    for out, acc in outputs:
        assign(scatter(acc, counter, unsqueeze(out, [0])), acc)
    for var, value in memories:
        assign(value, var)
    increment(counter, 1, in_place=True)
    fluid_less_than(counter, steps, cond=cond)


def _zeros_over_time(sequence, step_value):
    """Zeros [T, batch] + step_value's shape[1:], T and batch from `sequence` [T, batch,
    ...] at run time (step_value's trailing dims must be known)."""
    rest = list(step_value.shape[1:])
    if any(d < 0 for d in rest):
        raise ValueError("StaticRNN.step_output: %r %s needs known dims after the batch "
                         "dim to be stacked over a run-time number of steps"
                         % (step_value.name, list(step_value.shape)))
    column = unsqueeze(sequence, [2]) if len(sequence.shape) == 2 else \
        slice(reshape(sequence, [0, 0, -1]), [2], [0], [1])       # [T, batch, 1]
    zeros = fluid_expand(zeros_like(column, step_value.dtype), [1, 1, int(np.prod(rest))])
    return reshape(zeros, [0, 0] + rest)


class StaticRNN:
    """1.8 StaticRNN over sequences whose dim 0 is time:

        rnn = StaticRNN()
        with rnn.step():
            word = rnn.step_input(x)                       # x [T, batch, ...]
            prev = rnn.memory(shape=[-1, hidden], batch_ref=word)
            hidden = fc([word, prev], hidden)
            rnn.update_memory(prev, hidden)
            rnn.step_output(hidden)
        out = rnn()                                        # [T, batch, hidden]

    The ops built inside `step()` go to a sub-block, on placeholder variables: a step
    input's is x[t], a memory's the previous step's updated value (the boot value at
    t = 0). When every step input's T is known as the program is built, the block is
    unrolled: appended once per time step, every variable it creates renamed for that
    step. Otherwise (T = -1) it becomes the body of a `while` op over T at run time: the
    step reads row t of each input (gather), memories are loop variables and each
    output is scattered into row t of a [T, batch, ...] result."""

    def __init__(self, name=None):
        self.name = name or unique_name.generate("static_rnn")
        self._inputs = {}        # placeholder name -> outer [T, ...] sequence
        self._memories = {}      # placeholder name -> boot Variable
        self._updates = {}       # placeholder name -> Variable holding the next value
        self._step_outputs = []
        self._steps = None       # T when every step input's is known, -1 when one is not
        self._block = None
        self._outputs = None
        self._in_step = False

    def _where(self, method):
        return "StaticRNN.%s" % method

    def _check_in_step(self, method):
        if not self._in_step:
            raise ValueError("%s must be called inside `with rnn.step():`" % self._where(method))

    @contextlib.contextmanager
    def step(self):
        if self._outputs is not None or self._in_step:
            raise ValueError("StaticRNN.step: a StaticRNN has exactly one step block")
        with _sub_block() as block:
            self._block = block
            self._in_step = True
            try:
                yield
            finally:
                self._in_step = False
            self._check_complete()
            if self._steps < 0:
                cond = self._loop_body(block)
        if self._steps < 0:
            _append_while(block, cond, False)
        else:
            self._unroll(block)

    def _outside(self):
        """Ops appended here run once, before the steps."""
        return _in_parent(self._block)

    def step_input(self, x):
        """x [T, ...] -> this step's slice [...] (a placeholder while the step is built)."""
        self._check_in_step("step_input")
        check_variable(x, "x", self._where("step_input"))
        if len(x.shape) < 1:
            raise ValueError("StaticRNN.step_input: x %r must have a time dimension 0, got "
                             "shape %s" % (x.name, list(x.shape)))
        steps = x.shape[0] if x.shape[0] >= 0 else -1
        if self._steps is not None and min(steps, self._steps) >= 0 and steps != self._steps:
            raise ValueError("StaticRNN.step_input: x %r has %d time steps, an earlier step "
                             "input has %d" % (x.name, x.shape[0], self._steps))
        self._steps = steps if self._steps is None else min(steps, self._steps)
        placeholder = self._block.create_var(
            name=unique_name.generate(self.name + "." + x.name), shape=list(x.shape[1:]),
            dtype=x.dtype)
        self._inputs[placeholder.name] = x
        return placeholder

    def memory(self, init=None, shape=None, batch_ref=None, init_value=0.0,
               init_batch_dim_idx=0, ref_batch_dim_idx=1):
        """A state carried from step to step, starting at `init`, or else at init_value
        with `shape` whose dim init_batch_dim_idx is batch_ref's dim ref_batch_dim_idx
        (a step input as batch_ref means its [T, batch, ...] sequence, as in 1.8)."""
        self._check_in_step("memory")
        with self._outside():
            if init is None:
                if shape is None or batch_ref is None:
                    raise ValueError("StaticRNN.memory: without init, both shape and "
                                     "batch_ref are required")
                check_variable(batch_ref, "batch_ref", self._where("memory"))
                batch_ref = self._inputs.get(batch_ref.name, batch_ref)
                init = fill_constant_batch_size_like(
                    batch_ref, list(shape), batch_ref.dtype, init_value,
                    input_dim_idx=ref_batch_dim_idx, output_dim_idx=init_batch_dim_idx)
            else:
                check_variable(init, "init", self._where("memory"))
                self._hoist(init)
            # a variable of the enclosing block: the loop carries it from step to step
            placeholder = default_main_program().current_block().create_var(
                name=unique_name.generate(self.name + "." + init.name),
                shape=list(init.shape), dtype=init.dtype)
        self._memories[placeholder.name] = init
        return placeholder

    def _hoist(self, init):
        """Moves the ops of the step block that compute `init` (a boot value built inside
        step() from outside values) before the steps, so they run once."""
        block = self._block
        if init.name not in block.vars:
            return
        needed, taken = {init.name}, []
        for op in reversed(block.ops):
            if needed.intersection(op.output_arg_names):
                taken.append(op)
                needed.update(n for n in op.input_arg_names if n in block.vars)
        step_values = sorted(n for op in taken for n in op.input_arg_names
                             if n in self._inputs or n in self._memories)
        if step_values:
            raise ValueError("StaticRNN.memory: init %r is computed from the step's values "
                             "%s; a memory's boot value must come from outside the step"
                             % (init.name, step_values))
        parent = block.parent_block
        for op in reversed(taken):
            block.ops.remove(op)
            op.block = parent
            parent.ops.append(op)
        for name in {n for op in taken for n in op.output_arg_names if n in block.vars}:
            var = block.vars.pop(name)
            var.block = parent
            parent.vars[name] = var
        block.program._bump()

    def update_memory(self, mem, var):
        """The memory `mem` takes `var`'s value for the next step."""
        self._check_in_step("update_memory")
        check_variable(var, "var", self._where("update_memory"))
        if not isinstance(mem, Variable) or mem.name not in self._memories:
            raise ValueError("StaticRNN.update_memory: mem must be a Variable returned by "
                             "this StaticRNN's memory(), got %r" % (mem,))
        self._updates[mem.name] = var

    def step_output(self, o):
        self._check_in_step("step_output")
        check_variable(o, "o", self._where("step_output"))
        self._step_outputs.append(o)

    def output(self, *outputs):
        for o in outputs:
            self.step_output(o)

    def _check_complete(self):
        if self._steps is None:
            raise ValueError("StaticRNN: the step block has no step_input")
        missing = sorted(set(self._memories) - set(self._updates))
        if missing:
            raise ValueError("StaticRNN: memory %s is never given a next value "
                             "(update_memory)" % missing)

    def _loop_body(self, block):
        """Completes `block` as a while body over T at run time; returns the condition."""
        first = next(iter(self._inputs.values()))
        with self._outside():
            counter = fill_constant([1], "int64", 0)
            steps = cast(slice(shape(first), [0], [0], [1]), "int64")
            cond = fluid_less_than(counter, steps)
            for name, init in self._memories.items():
                assign(init, self._memories_var(name))
            results = [_zeros_over_time(first, o) for o in self._step_outputs]
        body_start = len(block.ops)
        for name, x in self._inputs.items():
            assign(squeeze(gather(x, counter), [0]), block.var(name))
        block.ops[:] = block.ops[body_start:] + block.ops[:body_start]   # reads come first
        _end_loop_step(counter, steps, cond, zip(self._step_outputs, results),
                       [(self._memories_var(name), var) for name, var in self._updates.items()])
        self._outputs = results
        return cond

    def _memories_var(self, name):
        return self._block.parent_block.var(name)

    def _unroll(self, block):
        """Appends `block`'s ops once per step to the current block, then drops `block`."""
        parent = default_main_program().current_block()
        template = list(block.ops)
        created = {n for op in template for n in op.output_arg_names if n in block.vars}
        step_inputs = {name: unstack(x, axis=0, num=self._steps)
                       for name, x in self._inputs.items()}
        memories = dict(self._memories)
        outputs = []
        for t in range(self._steps):
            renamed = dict(memories)
            renamed.update((name, xs[t]) for name, xs in step_inputs.items())
            for name in created:
                original = block.var(name)
                renamed[name] = parent.create_var(
                    name=unique_name.generate("%s@step%d" % (name, t)),
                    shape=list(original.shape), dtype=original.dtype)
            for op in template:
                parent.append_op(
                    op.type,
                    {slot: [renamed.get(n, n) for n in names] for slot, names in op.inputs.items()},
                    {slot: [renamed.get(n, n) for n in names]
                     for slot, names in op.outputs.items()},
                    dict(op.attrs))
            memories = {name: self._lookup(renamed, var) for name, var in self._updates.items()}
            outputs.append([self._lookup(renamed, o) for o in self._step_outputs])
        for name in self._memories:
            parent._remove_var(name)
        block.ops.clear()
        block.vars.clear()
        program = parent.program
        if program.blocks[-1] is block:
            program.blocks.pop()
        program._bump()
        self._outputs = [stack(list(per_step), axis=0) for per_step in zip(*outputs)]

    @staticmethod
    def _lookup(renamed, var):
        found = renamed.get(var.name, var)
        return found if isinstance(found, Variable) else var

    def __call__(self, *args, **kwargs):
        """The step outputs stacked over time, [T, ...] each (one Variable or a list)."""
        if self._outputs is None:
            raise ValueError("StaticRNN: call rnn() after its `with rnn.step():` block")
        if not self._outputs:
            raise ValueError("StaticRNN: the step block has no step_output")
        return self._outputs[0] if len(self._outputs) == 1 else list(self._outputs)

    def output_list(self):
        """The step outputs stacked over time, always as a list."""
        self()
        return list(self._outputs)


# -- DynamicRNN
def _swap_batch_time(x):
    """[batch, T, ...] <-> [T, batch, ...]."""
    return transpose(x, [1, 0] + list(range(2, len(x.shape))))


class DynamicRNN:
    """Paddle 1.8's DynamicRNN over LoD sequences, built as Paddle builds it:

        drnn = DynamicRNN()
        with drnn.block():
            word = drnn.step_input(x)                      # x [total, ...] with a LoD
            prev = drnn.memory(shape=[hidden])             # or init=[batch, hidden]
            hidden = fc([word, prev], hidden)
            drnn.update_memory(prev, hidden)
            drnn.output(hidden)
        out = drnn()                                       # [total, hidden], x's LoD

    The first step input's LoD level `level` gives a rank table (lod_rank_table: its
    sequences longest first, ties in batch order); the steps run in a `while` op, step t
    (drnn.step_idx) over the sequences longer than t, in that order: a step input is
    lod_tensor_to_array's element t, a memory is its tensor array's element t (element 0
    the init, element t + 1 what update_memory gave at step t) shrunk to those sequences
    (shrink_rnn_memory), a static input is reordered by the table once
    (reorder_lod_tensor_by_rank) and shrunk to their entries each step. Each output is
    written to a tensor array at step t and drnn() gives array_to_lod_tensor of it: the
    rows back in sequence order, with the step input's LoD. A memory's init rows go to
    the sequences in rank order unless need_reorder=True (then row i is sequence i's).

    max_len (refimpl's extension, not 1.8's) unrolls the steps instead: _PaddedDynamicRNN."""

    def __new__(cls, name=None, max_len=None):
        if max_len is not None:
            return _PaddedDynamicRNN(name, max_len)
        return super().__new__(cls)

    def __init__(self, name=None, max_len=None):
        self._body = None            # the step block, once block() opened it
        self.step_idx = None
        self._zero = None
        self._table = self._max_seq_len = self._cond = None
        self._input_arrays = []
        self._memories = {}          # memory name -> its tensor array
        self._updates = []           # (new value, memory array), written after each step
        self._output_arrays = []
        self._outputs = None

    def _check_in_block(self, method):
        # (before the block and after it the current block is another one)
        if default_main_program().current_block() is not self._body:
            raise _outside_block_error(method)

    @contextlib.contextmanager
    def block(self):
        if self._body is not None:
            raise ValueError("DynamicRNN.block: a DynamicRNN has exactly one block")
        self.step_idx = fill_constant([1], "int64", 0, force_cpu=True)
        self.step_idx.stop_gradient = False
        with _sub_block(loop_body=True) as body:
            self._body = body
            yield
            if self._table is None:
                raise ValueError("DynamicRNN: the block has no step_input")
            updated = {array.name for _, array in self._updates}
            for name, array in self._memories.items():
                if array.name not in updated:
                    raise ValueError("DynamicRNN: memory %r is never updated (update_memory)"
                                     % name)
            increment(self.step_idx, 1.0, in_place=True)
            for value, array in self._updates:
                array_write(value, self.step_idx, array)
            fluid_less_than(self.step_idx, self._max_seq_len, cond=self._cond)
            _finish_loop_body(body)       # the writes read the incremented step_idx
        _append_while(body, self._cond, False)
        self._outputs = [array_to_lod_tensor(array, self._table)
                         for array in self._output_arrays]

    def _zero_idx(self):
        if self._zero is None:
            with _in_parent(self._body):
                self._zero = fill_constant([1], "int64", 0, force_cpu=True)
        return self._zero

    def step_input(self, x, level=0):
        """This step's entries of x's sequences (at LoD level `level`) that are still
        running, longest sequence first; every step input must have the same lengths."""
        self._check_in_block("step_input")
        check_variable(x, "x", "DynamicRNN.step_input")
        with _in_parent(self._body):
            if self._table is None:
                self._table = lod_rank_table(x, level)
                self._max_seq_len = max_sequence_len(self._table)
                self._cond = fluid_less_than(self.step_idx, self._max_seq_len)
                self._cond.stop_gradient = True
            array = lod_tensor_to_array(x, self._table)
        self._input_arrays.append(array)
        return array_read(array, self.step_idx)

    def static_input(self, x):
        """x's sequences (one per step input sequence), the running ones' each step, in
        the step's order."""
        self._check_in_block("static_input")
        check_variable(x, "x", "DynamicRNN.static_input")
        if self._table is None:
            raise RuntimeError("DynamicRNN.static_input() must be called after step_input()")
        with _in_parent(self._body):
            reordered = reorder_lod_tensor_by_rank(x, self._table)
        return shrink_memory(reordered, self.step_idx, self._table)

    def memory(self, init=None, shape=None, value=0.0, need_reorder=False, dtype="float32"):
        """A state carried across steps: `init` [batch, ...] (see the class doc for its
        row order), or `value` filled into [batch] + shape of `dtype`."""
        self._check_in_block("memory")
        if shape is not None and not isinstance(shape, (list, tuple)):
            raise TypeError("DynamicRNN.memory: shape must be a list or tuple, got %s"
                            % type(shape).__name__)
        if init is None:
            if shape is None or not self._input_arrays:
                raise ValueError("DynamicRNN.memory: without init, give shape and call "
                                 "step_input first (the batch size is its first step's)")
            with _in_parent(self._body):
                first = array_read(self._input_arrays[0], self._zero_idx())
                init = fill_constant_batch_size_like(first, [-1] + list(shape), dtype, value)
            return self.memory(init=init)
        check_variable(init, "init", "DynamicRNN.memory")
        if self._table is None:
            raise ValueError("DynamicRNN.memory: call step_input before memory (the steps' "
                             "sequences come from it)")
        with _in_parent(self._body):
            if need_reorder:
                init = reorder_lod_tensor_by_rank(init, self._table)
            array = array_write(init, self._zero_idx())
        mem = shrink_memory(array_read(array, self.step_idx), self.step_idx, self._table)
        self._memories[mem.name] = array
        return mem

    def update_memory(self, ex_mem, new_mem):
        """The next step's ex_mem is new_mem (shrunk to the sequences still running)."""
        self._check_in_block("update_memory")
        check_variable(ex_mem, "ex_mem", "DynamicRNN.update_memory")
        check_variable(new_mem, "new_mem", "DynamicRNN.update_memory")
        array = self._memories.get(ex_mem.name)
        if array is None:
            raise ValueError("DynamicRNN.update_memory: ex_mem %r is not a memory of this "
                             "DynamicRNN (memory())" % ex_mem.name)
        self._updates.append((new_mem, array))

    def output(self, *outputs):
        self._check_in_block("output")
        for out in outputs:
            check_variable(out, "outputs", "DynamicRNN.output")
            with _in_parent(self._body):
                array = create_array(out.dtype)
            array_write(out, self.step_idx, array)
            self._output_arrays.append(array)

    def __call__(self, *args, **kwargs):
        """The step outputs as LoD sequences (one Variable or a list), with the step
        input's LoD."""
        return _drnn_result(self._outputs)


class _PaddedDynamicRNN:
    """DynamicRNN(max_len=...) (refimpl's extension): the steps unrolled when the program
    is built (StaticRNN), max_len of them, over the step inputs padded to [batch, max_len,
    ...] (sequence_pad) read time-major; the batch keeps its order, memories keep their
    value once a sequence has ended (a per-step length mask), static inputs are read
    unchanged, and the outputs are unpadded again (sequence_unpad). A memory's `init` rows
    go to the sequences in rank order (longest first) unless need_reorder=True, as
    DynamicRNN's; a sequence longer than max_len fails at run time."""

    def __init__(self, name, max_len):
        self.max_len = max_len
        self._rnn = StaticRNN(name or unique_name.generate("dynamic_rnn"))
        self._step_mask = None       # [batch, 1] per step: 1 while a sequence runs
        self._lengths = None
        self._outputs = None

    def _check_in_block(self, method):
        if not self._rnn._in_step:
            raise _outside_block_error(method)

    @contextlib.contextmanager
    def block(self):
        if self._outputs is not None:
            raise ValueError("DynamicRNN.block: a DynamicRNN has exactly one block")
        with self._rnn.step():
            yield
            if self._lengths is None:
                raise ValueError("DynamicRNN: the block has no step_input")
        self._outputs = [sequence_unpad(_swap_batch_time(o), self._lengths)
                         for o in self._rnn._outputs]

    def step_input(self, x, level=0, max_len=None):
        """x, a LoD tensor [total, ...] -> this step's rows [batch, ...]; every step input
        must have the same sequence lengths."""
        self._check_in_block("step_input")
        check_variable(x, "x", "DynamicRNN.step_input")
        steps = max_len if max_len is not None else self.max_len
        if int(steps) <= 0:
            raise ValueError("DynamicRNN.step_input: max_len must be a positive number of "
                             "steps, got %r" % (steps,))
        with self._rnn._outside():      # run once, before the unrolled steps
            pad = fill_constant([1], x.dtype, 0.0)
            padded, lengths = sequence_pad(x, pad, maxlen=int(steps))
            time_major = _swap_batch_time(padded)
            first = self._lengths is None
            if first:
                self._lengths = lengths
                mask = cast(sequence_mask(lengths, maxlen=int(steps)), x.dtype)
                mask = unsqueeze(_swap_batch_time(mask), [2])           # [T, batch, 1]
                self._rank_order = _length_rank_order(lengths)
        if first:
            self._step_mask = self._rnn.step_input(mask)
        return self._rnn.step_input(time_major)

    def static_input(self, x):
        """A Variable read unchanged by every step (batch order)."""
        self._check_in_block("static_input")
        check_variable(x, "x", "DynamicRNN.static_input")
        return x

    def memory(self, init=None, shape=None, value=0.0, need_reorder=False, dtype="float32"):
        """A state carried across steps: `init` [batch, ...], or `value` filled into
        [batch] + shape (dtype: the step input's)."""
        self._check_in_block("memory")
        if init is not None:
            if not need_reorder and self._lengths is not None:
                with self._rnn._outside():
                    init = gather(init, self._rank_order)
            return self._rnn.memory(init=init)
        if shape is None or self._lengths is None:
            raise ValueError("DynamicRNN.memory: without init, give shape and call "
                             "step_input first (the batch size comes from it)")
        return self._rnn.memory(shape=[-1] + list(shape), batch_ref=self._step_mask,
                                init_value=value)

    def update_memory(self, ex_mem, new_mem):
        """ex_mem takes new_mem's value while the sequence runs, keeps it after."""
        self._check_in_block("update_memory")
        check_variable(new_mem, "new_mem", "DynamicRNN.update_memory")
        kept = ex_mem + self._step_mask * (new_mem - ex_mem)
        self._rnn.update_memory(ex_mem, kept)

    def output(self, *outputs):
        self._check_in_block("output")
        self._rnn.output(*outputs)

    __call__ = DynamicRNN.__call__


def _outside_block_error(method):
    """A DynamicRNN method called outside its block: a ValueError, as Paddle 1.8.5's
    "<method> can only be invoked inside rnn block."."""
    return ValueError("DynamicRNN.%s can only be invoked inside `with drnn.block():`"
                      % method)


def _drnn_result(outputs):
    """drnn(): its outputs (None before its block ended), one Variable or a list."""
    if outputs is None:
        raise ValueError("DynamicRNN: call drnn() after its `with drnn.block():` block")
    if not outputs:
        raise ValueError("DynamicRNN: the block has no output")
    return outputs[0] if len(outputs) == 1 else list(outputs)


def _length_rank_order(lengths):
    """Where each sequence stands when the sequences are ordered by length, longest first
    (ties: batch order), as Paddle's lod_rank_table orders them: gather(init, this) gives
    sequence i the init row of its rank."""
    lengths.stop_gradient = True
    ranked = argsort(lengths, descending=True)      # the argsort op is stable
    ranked.stop_gradient = True
    return argsort(ranked)


# -- decoding helpers and BasicDecoder (driven by dynamic_decode; `time` is the step number)
def _compare(op_type, x, value):
    """x <op> value elementwise (a bool tensor of x's shape)."""
    return _bool_out(op_type, {"X": [x], "Y": [fill_constant([1], x.dtype, value)]},
                     {"axis": -1}, None, None)


class DecodeHelper:
    """What BasicDecoder asks at each step: initialize() -> (initial_inputs,
    initial_finished); sample(time, outputs, states) -> sample_ids;
    next_inputs(time, outputs, states, sample_ids) -> (finished, next_inputs, next_states)."""

    def initialize(self):
        raise NotImplementedError("%s.initialize" % type(self).__name__)

    def sample(self, time, outputs, states):
        raise NotImplementedError("%s.sample" % type(self).__name__)

    def next_inputs(self, time, outputs, states, sample_ids):
        raise NotImplementedError("%s.next_inputs" % type(self).__name__)


class TrainingHelper(DecodeHelper):
    """Teacher forcing: step t reads inputs[:, t] ([batch, time, ...], or time-major), a
    batch entry is finished once t + 1 >= sequence_length; samples are argmax(outputs).
    Steps past the last time step (when max_step_num runs longer) read the last one. When
    the time dimension is known only at run time, or dynamic_decode's while loop passes
    the step as a Variable, the step's inputs are gathered at run time."""

    def __init__(self, inputs, sequence_length, time_major=False):
        for leaf in _leaves(inputs):
            check_variable(leaf, "inputs", "TrainingHelper")
            if len(leaf.shape) < 2:
                raise ValueError("TrainingHelper: inputs %r %s needs a time dimension (dim "
                                 "%d)" % (leaf.name, list(leaf.shape), 0 if time_major else 1))
        check_variable(sequence_length, "sequence_length", "TrainingHelper")
        self.inputs, self.sequence_length = inputs, sequence_length
        self.time_major = time_major
        self._steps = None
        self._time_major_inputs = None

    def _known_time(self):
        return all(x.shape[0 if self.time_major else 1] >= 0 for x in _leaves(self.inputs))

    def _step_inputs(self, time):
        if isinstance(time, Variable) or not self._known_time():
            return self._step_inputs_at_run_time(time)
        if self._steps is None:   # per-step slices of each input leaf, built once
            axis = 0 if self.time_major else 1
            self._steps = [unstack(x, axis=axis) for x in _leaves(self.inputs)]
        step_slices = iter(xs[min(time, len(xs) - 1)] for xs in self._steps)
        return map_structure(lambda _: next(step_slices), self.inputs)

    def _step_inputs_at_run_time(self, time):
        """Row `time` (clipped to the last step) of each time-major input leaf."""
        if self._time_major_inputs is None:     # first called by initialize(): outside a loop
            self._time_major_inputs = []
            for x in _leaves(self.inputs):
                major = x if self.time_major else \
                    transpose(x, [1, 0] + list(range(2, len(x.shape))))
                last = cast(slice(shape(major), [0], [0], [1]), "int64") - 1
                self._time_major_inputs.append((major, last))
        index = time if isinstance(time, Variable) else fill_constant([1], "int64", time)
        index = cast(index, "int64")
        step_slices = iter(squeeze(gather(major, append_op_out(
            "elementwise_min", {"X": [index], "Y": [last]}, {"axis": -1})), [0])
                           for major, last in self._time_major_inputs)
        return map_structure(lambda _: next(step_slices), self.inputs)

    def initialize(self):
        return self._step_inputs(0), _compare("equal", self.sequence_length, 0)

    def sample(self, time, outputs, states):
        return argmax(outputs, axis=-1)

    def next_inputs(self, time, outputs, states, sample_ids):
        if isinstance(time, Variable):
            following = cast(time, self.sequence_length.dtype.name) + 1
            finished = _bool_out("less_equal", {"X": [self.sequence_length],
                                                "Y": [following]}, {"axis": -1}, None, None)
        else:
            finished = _compare("less_equal", self.sequence_length, time + 1)
        return finished, self._step_inputs(time + 1), states


class GreedyEmbeddingHelper(DecodeHelper):
    """Greedy decoding: starts from embedding_fn(start_tokens) ([batch] int64 ids), samples
    argmax(outputs), feeds embedding_fn(sample_ids); finished when the sample is end_token."""

    def __init__(self, embedding_fn, start_tokens, end_token):
        check_variable(start_tokens, "start_tokens", type(self).__name__)
        self.embedding_fn, self.start_tokens = embedding_fn, start_tokens
        self.end_token = int(end_token)

    def initialize(self):
        not_finished = cast(fill_constant_batch_size_like(self.start_tokens, [-1], "int64", 0),
                            "bool")
        return self.embedding_fn(self.start_tokens), not_finished

    def sample(self, time, outputs, states):
        return argmax(outputs, axis=-1)

    def next_inputs(self, time, outputs, states, sample_ids):
        finished = _compare("equal", sample_ids, self.end_token)
        return finished, self.embedding_fn(sample_ids), states


class SampleEmbeddingHelper(GreedyEmbeddingHelper):
    """GreedyEmbeddingHelper that samples from softmax(outputs / softmax_temperature)
    (sampling_id with `seed`) instead of taking the argmax."""

    def __init__(self, embedding_fn, start_tokens, end_token, softmax_temperature=None,
                 seed=None):
        super().__init__(embedding_fn, start_tokens, end_token)
        self.softmax_temperature = softmax_temperature
        self.seed = seed

    def sample(self, time, outputs, states):
        logits = outputs if self.softmax_temperature is None else \
            outputs * (1.0 / float(self.softmax_temperature))
        return sampling_id(softmax(logits), seed=self.seed or 0, dtype="int64")


class BasicDecoder(Decoder):
    """cell + helper: each step runs the cell, applies output_fn, asks the helper for the
    sample ids and the next inputs. Outputs are OutputWrapper(cell_outputs, sample_ids)."""
    OutputWrapper = collections.namedtuple("OutputWrapper", ("cell_outputs", "sample_ids"))

    def __init__(self, cell, helper, output_fn=None):
        if not isinstance(helper, DecodeHelper):
            raise TypeError("BasicDecoder: helper must be a DecodeHelper, got %s"
                            % type(helper).__name__)
        self.cell, self.helper, self.output_fn = cell, helper, output_fn

    def initialize(self, initial_cell_states):
        initial_inputs, initial_finished = self.helper.initialize()
        return initial_inputs, initial_cell_states, initial_finished

    def step(self, time, inputs, states, **kwargs):
        cell_outputs, cell_states = self.cell(inputs, states, **kwargs)
        if self.output_fn is not None:
            cell_outputs = self.output_fn(cell_outputs)
        sample_ids = self.helper.sample(time, cell_outputs, cell_states)
        sample_ids.stop_gradient = True
        finished, next_inputs, next_states = self.helper.next_inputs(
            time, cell_outputs, cell_states, sample_ids)
        return self.OutputWrapper(cell_outputs, sample_ids), next_states, next_inputs, finished


# -- beam search ops: Paddle's LoD convention, or refimpl's padded one (beam_size
# consecutive rows per batch entry) when the inputs carry no LoD
def beam_search(pre_ids, pre_scores, ids, scores, beam_size, end_id, level=0,
                is_accumulated=True, name=None, return_parent_idx=False):
    """One beam search step (op beam_search) -> (selected_ids [M, 1], selected_scores
    [M, 1][, parent_idx [M] int32]): with LoD scores the selected candidates and their
    2-level LoD (Paddle's), else one per beam of N = batch * beam_size rows."""
    for arg, var in (("pre_ids", pre_ids), ("pre_scores", pre_scores), ("scores", scores)):
        check_variable(var, arg, "beam_search")
    helper = LayerHelper("beam_search", name=name)
    selected_ids = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    selected_scores = helper.create_variable_for_type_inference(scores.dtype,
                                                                stop_gradient=True)
    parent_idx = helper.create_variable_for_type_inference("int32", stop_gradient=True)
    inputs = {"pre_ids": [pre_ids], "pre_scores": [pre_scores], "scores": [scores]}
    if ids is not None:
        inputs["ids"] = [ids]
    helper.append_op(type="beam_search", inputs=inputs,
                     outputs={"selected_ids": [selected_ids],
                              "selected_scores": [selected_scores],
                              "parent_idx": [parent_idx]},
                     attrs={"level": level, "beam_size": int(beam_size),
                            "end_id": int(end_id), "is_accumulated": bool(is_accumulated)})
    if return_parent_idx:
        return selected_ids, selected_scores, parent_idx
    return selected_ids, selected_scores


def _stacked_steps(steps, arg):
    """A tensor array, a list of per-step Variables or an already stacked [T, N] Variable."""
    if isinstance(steps, (list, tuple)):
        return stack(list(steps), axis=0)
    check_variable(steps, arg, "beam_search_decode")
    if steps.type == "LOD_TENSOR_ARRAY":
        stacked, _ = tensor_array_to_tensor(steps, axis=0, use_stack=True)
        return stacked
    return steps


def beam_search_decode(ids, scores, beam_size, end_id, name=None, parent_idx=None):
    """Backtrack the beam_search steps (op beam_search_decode). Paddle's form: ids and
    scores are tensor arrays of the steps' selected_ids / selected_scores carrying their
    LoD -> (sentence_ids, sentence_scores), 1-D with LoD [sources -> sentences, sentences
    -> words]. refimpl's padded form (parent_idx given: the steps' parent_idx) ->
    (sentence_ids [N, T], sentence_scores [N, T]): each final beam's tokens up to its
    first end_id (then end_id padding, score 0), a batch entry's beams by final score."""
    attrs = {"beam_size": int(beam_size), "end_id": int(end_id)}
    if parent_idx is None:
        for arg, v in (("ids", ids), ("scores", scores)):
            check_variable(v, arg, "beam_search_decode")
            if v.type != "LOD_TENSOR_ARRAY":
                raise TypeError("beam_search_decode: %s %r must be a tensor array of the "
                                "steps' LoD results (or give parent_idx for the padded "
                                "form), got a %s" % (arg, v.name, v.type))
        return append_op_out("beam_search_decode", {"Ids": [ids], "Scores": [scores]},
                             attrs, name, out_dtype="int64", out_slot="SentenceIds",
                             extra_outputs=(("SentenceScores", scores.dtype),),
                             stop_gradient=True)
    stacked = [_stacked_steps(v, arg) for v, arg in ((ids, "ids"), (scores, "scores"),
                                                    (parent_idx, "parent_idx"))]
    return append_op_out("beam_search_decode", {"Ids": [stacked[0]], "Scores": [stacked[1]],
                                                "ParentIdx": [stacked[2]]},
                         attrs, name, out_dtype="int64", out_slot="SentenceIds",
                         extra_outputs=(("SentenceScores", stacked[1].dtype),),
                         stop_gradient=True)


EXPORTS = {
    "fluid.layers": {
        "RNNCell": RNNCell, "GRUCell": GRUCell, "LSTMCell": LSTMCell, "rnn": rnn,
        "StaticRNN": StaticRNN, "DynamicRNN": DynamicRNN, "Decoder": Decoder,
        "BasicDecoder": BasicDecoder,
        "DecodeHelper": DecodeHelper, "TrainingHelper": TrainingHelper,
        "GreedyEmbeddingHelper": GreedyEmbeddingHelper,
        "SampleEmbeddingHelper": SampleEmbeddingHelper,
        "BeamSearchDecoder": BeamSearchDecoder, "dynamic_decode": dynamic_decode,
        "beam_search": beam_search, "beam_search_decode": beam_search_decode,
    },
}
