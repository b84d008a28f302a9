"""Paddle 1.8's contrib decoder API (specs/contrib_decoder.md): a StateCell holds named
states (each started from an InitState) and an updater that computes new states from the
step's inputs. The same cell runs in a TrainingDecoder (teacher forcing: a DynamicRNN over
LoD target sequences, the states are its memories) or a BeamSearchDecoder (a `while` op
over at most max_len steps: the states, ids and scores of each step are kept in tensor
arrays, the beam_search op picks the next candidates, beam_search_decode backtracks)."""
import contextlib

from ... import layers
from ....framework import unique_name
from ....framework.program import Variable, default_main_program

__all__ = ["InitState", "StateCell", "TrainingDecoder", "BeamSearchDecoder"]

_BEFORE, _INSIDE, _AFTER = "before", "inside", "after"


class InitState:
    """A state's value before the first step: `init`, or `value` over `shape` with the
    batch size of `init_boot` (fill_constant_batch_size_like). need_reorder: the rows of
    `init` follow the batch order (a DynamicRNN memory's need_reorder)."""

    def __init__(self, init=None, shape=None, value=0.0, init_boot=None, need_reorder=False,
                 dtype="float32"):
        if init is None:
            if init_boot is None:
                raise ValueError("InitState: give init, or init_boot (whose batch size the "
                                 "state takes) with shape")
            init = layers.fill_constant_batch_size_like(input=init_boot, shape=shape,
                                                        dtype=dtype, value=value)
        self._init = init
        self._need_reorder = need_reorder

    @property
    def value(self):
        return self._init

    @property
    def need_reorder(self):
        return self._need_reorder


class _MemoryState:
    """A state of a TrainingDecoder: a memory of its DynamicRNN."""

    def __init__(self, rnn, init_state):
        self._rnn = rnn
        self._memory = rnn.memory(init=init_state.value, need_reorder=init_state.need_reorder)

    def get_state(self):
        return self._memory

    def update_state(self, state):
        self._rnn.update_memory(self._memory, state)


class _ArrayState:
    """A state of a BeamSearchDecoder: a tensor array holding the state of every step
    (written at index 0 before the loop), read at the loop's counter."""

    def __init__(self, parent_block, init_state):
        self._counter = parent_block.create_var(
            name=unique_name.generate("array_state_counter"), dtype="int64", shape=[1],
            stop_gradient=True)
        self._array = parent_block.create_var(
            name=unique_name.generate("array_state_array"), type="LOD_TENSOR_ARRAY",
            dtype=init_state.value.dtype)
        parent_block.append_op(type="fill_constant", outputs={"Out": [self._counter]},
                               attrs={"shape": [1], "dtype": "int64", "value": 0.0,
                                      "force_cpu": True})
        parent_block.append_op(type="write_to_array",
                               inputs={"X": [init_state.value], "I": [self._counter]},
                               outputs={"Out": [self._array]})

    def get_state(self):
        return layers.array_read(array=self._array, i=self._counter)

    def update_state(self, state):
        layers.increment(x=self._counter, value=1, in_place=True)
        layers.array_write(state, array=self._array, i=self._counter)


class StateCell:
    """inputs: {name: placeholder (None)}, states: {name: InitState}, out_state: the name of
    the state that is the cell's output. `@cell.state_updater` registers fn(cell), which
    reads get_input / get_state and calls set_state; compute_state(inputs) runs it;
    update_states() hands the new states to the decoder for the next step."""

    def __init__(self, inputs, states, out_state, name=None):
        for state_name, state in states.items():
            if not isinstance(state, InitState):
                raise ValueError("StateCell: state %r must be an InitState, got %s"
                                 % (state_name, type(state).__name__))
        if out_state not in states:
            raise ValueError("StateCell: out_state %r must be one of the states %s"
                             % (out_state, sorted(states)))
        self._inputs = dict(inputs)
        self._state_names = list(states)
        self._cur_states = dict(states)
        self._out_state = out_state
        self._state_updater = None
        self._decoder = None
        self._holders = {}           # state name -> its _MemoryState / _ArrayState

    def _enter_decoder(self, decoder):
        if self._decoder is not None:
            raise ValueError("StateCell has already entered a decoder")
        self._decoder = decoder
        self._holders = {}

    def _leave_decoder(self, decoder):
        if self._decoder is not decoder:
            raise ValueError("StateCell: leaving a decoder it is not in")
        self._decoder = None

    def _bind_states(self):
        """At the first use inside the decoder: each state becomes the decoder's (memory or
        array) and reads its value for this step."""
        if self._decoder is None:
            raise ValueError("StateCell: compute_state / update_states run inside a "
                             "decoder's block")
        if self._holders:
            return
        for name in self._state_names:
            self._holders[name] = self._decoder._hold_state(self._cur_states[name])
            self._cur_states[name] = self._holders[name].get_state()

    def get_state(self, state_name):
        if self._decoder is not None:
            self._bind_states()
        if state_name not in self._cur_states:
            raise ValueError("StateCell.get_state: unknown state %r (states: %s)"
                             % (state_name, self._state_names))
        return self._cur_states[state_name]

    def get_input(self, input_name):
        if self._inputs.get(input_name) is None:
            raise ValueError("StateCell.get_input: input %r has no value (inputs: %s)"
                             % (input_name, sorted(self._inputs)))
        return self._inputs[input_name]

    def set_state(self, state_name, state_value):
        self._cur_states[state_name] = state_value

    def state_updater(self, updater):
        """Decorator: `updater(cell)` computes the new states."""
        self._state_updater = updater
        return updater

    def compute_state(self, inputs):
        self._bind_states()
        unknown = sorted(set(inputs) - set(self._inputs))
        if unknown:
            raise ValueError("StateCell.compute_state: unknown inputs %s (placeholders: %s)"
                             % (unknown, sorted(self._inputs)))
        if self._state_updater is None:
            raise ValueError("StateCell.compute_state: no updater (decorate one with "
                             "@cell.state_updater)")
        self._inputs.update(inputs)
        self._state_updater(self)

    def update_states(self):
        self._bind_states()
        for name, holder in self._holders.items():
            holder.update_state(self._cur_states[name])

    def out_state(self):
        return self._cur_states[self._out_state]


class _Decoder:
    """What both decoders share: the block's status and the state cell's entry."""

    def __init__(self, state_cell):
        self._status = _BEFORE
        self._state_cell = state_cell
        state_cell._enter_decoder(self)

    @property
    def state_cell(self):
        self._check_inside("state_cell")
        return self._state_cell

    def _check_inside(self, method):
        if self._status != _INSIDE:
            raise ValueError("%s.%s must be called inside its block()"
                             % (type(self).__name__, method))

    def _check_after(self):
        if self._status != _AFTER:
            raise ValueError("%s: its results are only available after its block()"
                             % type(self).__name__)

    @contextlib.contextmanager
    def _status_block(self, inner):
        if self._status != _BEFORE:
            raise ValueError("%s.block() can only be entered once" % type(self).__name__)
        self._status = _INSIDE
        with inner:
            yield
        self._status = _AFTER
        self._state_cell._leave_decoder(self)


class TrainingDecoder(_Decoder):
    """Teacher forcing over LoD target sequences: a DynamicRNN whose memories are the state
    cell's states.

        decoder = TrainingDecoder(state_cell)
        with decoder.block():
            word = decoder.step_input(target_embedding)
            decoder.state_cell.compute_state(inputs={"x": word})
            decoder.state_cell.update_states()
            decoder.output(some_function_of(decoder.state_cell.get_state("h")))
        outputs = decoder()"""

    def __init__(self, state_cell, name=None):
        self._rnn = layers.DynamicRNN(name=name)
        super().__init__(state_cell)

    def block(self):
        return self._status_block(self._rnn.block())

    @property
    def dynamic_rnn(self):
        return self._rnn

    def _hold_state(self, init_state):
        return _MemoryState(self._rnn, init_state)

    def step_input(self, x):
        self._check_inside("step_input")
        return self._rnn.step_input(x)

    def static_input(self, x):
        self._check_inside("static_input")
        return self._rnn.static_input(x)

    def output(self, *outputs):
        self._check_inside("output")
        self._rnn.output(*outputs)

    def __call__(self, *args, **kwargs):
        self._check_after()
        return self._rnn(*args, **kwargs)


class BeamSearchDecoder(_Decoder):
    """Beam search over at most max_len steps (a `while` op), Paddle 1.8's LoD form:
    init_ids / init_scores [batch, 1] with a 2-level LoD (one prefix per source). Each
    step (decode()): the previous ids' embedding [target_dict_dim, word_dim] feeds the
    state cell (its states and input_var_dict's variables expanded to the prefixes with
    sequence_expand), a softmax fc over target_dict_dim scores the next word, the topk_size
    best get log-probabilities added to the prefix score, and beam_search keeps beam_size
    per source. The loop stops after max_len steps or when nothing is selected
    (early_stop). decoder() -> beam_search_decode of the steps' ids and scores
    (sentence ids and scores with a 2-level LoD)."""

    def __init__(self, state_cell, init_ids, init_scores, target_dict_dim, word_dim,
                 input_var_dict=None, topk_size=50, sparse_emb=True, max_len=100,
                 beam_size=1, end_id=1, name=None):
        for arg, var in (("init_ids", init_ids), ("init_scores", init_scores)):
            if not isinstance(var, Variable):
                raise TypeError("BeamSearchDecoder: %s must be a Variable, got %s"
                                % (arg, type(var).__name__))
        self._counter = layers.zeros(shape=[1], dtype="int64")
        self._counter.stop_gradient = True
        self._max_len = layers.fill_constant(shape=[1], dtype="int64", value=max_len)
        self._cond = layers.less_than(x=self._counter, y=self._max_len)
        self._while = layers.While(self._cond)
        self._zero = layers.fill_constant(shape=[1], value=0, dtype="int64")
        self._arrays = {}          # name of a read value -> the array it was read from
        self._writes = []          # (value, array): written at the next step's index
        self._ids_array = self._scores_array = None
        self._init_ids, self._init_scores = init_ids, init_scores
        self._target_dict_dim, self._word_dim = int(target_dict_dim), int(word_dim)
        self._input_var_dict = dict(input_var_dict or {})
        self._topk_size, self._sparse_emb = int(topk_size), sparse_emb
        self._beam_size, self._end_id = int(beam_size), int(end_id)
        super().__init__(state_cell)

    @contextlib.contextmanager
    def _loop(self):
        with self._while.block():
            yield
            # a step that did not stop early moves on: its values become the next step's
            with layers.Switch() as switch:
                with switch.case(self._cond):
                    layers.increment(x=self._counter, value=1.0, in_place=True)
                    for value, array in self._writes:
                        layers.array_write(x=value, i=self._counter, array=array)
                    layers.less_than(x=self._counter, y=self._max_len, cond=self._cond)

    def block(self):
        return self._status_block(self._loop())

    def _parent_block(self):
        program = default_main_program()
        return program.block(program.current_block().parent_idx)

    def _hold_state(self, init_state):
        return _ArrayState(self._parent_block(), init_state)

    def early_stop(self):
        """Stops the loop after this step."""
        layers.fill_constant(shape=[1], value=0, dtype="bool", force_cpu=True,
                             out=self._cond)

    def read_array(self, init, is_ids=False, is_scores=False):
        """The value of this step from an array that starts with `init` (written before the
        loop); update_array(value_read, new_value) sets the next step's."""
        self._check_inside("read_array")
        if is_ids and is_scores:
            raise ValueError("BeamSearchDecoder.read_array: an array holds ids or scores, "
                             "not both")
        if not isinstance(init, Variable):
            raise TypeError("BeamSearchDecoder.read_array: init must be a Variable, got %s"
                            % type(init).__name__)
        parent = self._parent_block()
        array = parent.create_var(name=unique_name.generate("beam_search_decoder_array"),
                                  type="LOD_TENSOR_ARRAY", dtype=init.dtype)
        parent.append_op(type="write_to_array", inputs={"X": [init], "I": [self._zero]},
                         outputs={"Out": [array]})
        if is_ids:
            self._ids_array = array
        elif is_scores:
            self._scores_array = array
        value = layers.array_read(array=array, i=self._counter)
        self._arrays[value.name] = array
        return value

    def update_array(self, array, value):
        self._check_inside("update_array")
        for arg, var in (("array", array), ("value", value)):
            if not isinstance(var, Variable):
                raise TypeError("BeamSearchDecoder.update_array: %s must be a Variable, "
                                "got %s" % (arg, type(var).__name__))
        if array.name not in self._arrays:
            raise ValueError("BeamSearchDecoder.update_array: %r was not returned by "
                             "read_array" % array.name)
        self._writes.append((value, self._arrays[array.name]))

    def decode(self):
        """Builds the search (see the class doc); then call the decoder for the results."""
        with self.block():
            prev_ids = self.read_array(init=self._init_ids, is_ids=True)
            prev_scores = self.read_array(init=self._init_scores, is_scores=True)
            prev_embedding = layers.embedding(
                input=prev_ids, size=[self._target_dict_dim, self._word_dim],
                dtype="float32", is_sparse=self._sparse_emb)
            cell = self.state_cell
            feed, read = {}, {}
            for name, var in self._input_var_dict.items():
                if name not in cell._inputs:
                    raise ValueError("BeamSearchDecoder: input_var_dict's %r is not an "
                                     "input of the StateCell" % name)
                read[name] = self.read_array(init=var)
                feed[name] = layers.sequence_expand(read[name], prev_scores)
            for name in cell._state_names:
                cell.set_state(name, layers.sequence_expand(cell.get_state(name),
                                                            prev_scores))
            for name in cell._inputs:
                feed.setdefault(name, prev_embedding)
            cell.compute_state(inputs=feed)
            state = layers.lod_reset(x=cell.out_state(), y=prev_scores)
            probs = layers.fc(input=state, size=self._target_dict_dim, act="softmax")
            topk_scores, topk_indices = layers.topk(probs, k=self._topk_size)
            accumulated = layers.elementwise_add(
                x=layers.log(topk_scores), y=layers.reshape(prev_scores, shape=[-1]), axis=0)
            selected_ids, selected_scores = layers.beam_search(
                prev_ids, prev_scores, topk_indices, accumulated, self._beam_size,
                end_id=self._end_id, level=0)
            with layers.Switch() as switch:
                with switch.case(layers.is_empty(selected_ids)):
                    self.early_stop()
                with switch.default():
                    cell.update_states()
                    self.update_array(prev_ids, selected_ids)
                    self.update_array(prev_scores, selected_scores)
                    for name, value in read.items():
                        self.update_array(value, feed[name])

    def __call__(self):
        self._check_after()
        if self._ids_array is None or self._scores_array is None:
            raise ValueError("BeamSearchDecoder: no ids / scores arrays were read (call "
                             "decode(), or read_array(..., is_ids=True / is_scores=True))")
        return layers.beam_search_decode(ids=self._ids_array, scores=self._scores_array,
                                         beam_size=self._beam_size, end_id=self._end_id)
