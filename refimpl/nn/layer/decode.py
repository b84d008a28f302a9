"""paddle.nn.BeamSearchDecoder and paddle.nn.dynamic_decode (Paddle 2.0).

With max_step_num, dynamic_decode appends `max_step_num + 1` decoder steps (the most
Paddle runs) to the program; a decoder keeps finished entries finished (beam search masks
a finished beam's next-token scores to end_token only), so the extra steps change nothing
but the output length. Without it a `while` op runs the steps until every entry has
finished, the step outputs gathered in tensor arrays. In dynamic mode the loop stops once
every entry has finished, as Paddle's dygraph decoding does. See specs/nn_rnn.md."""
import collections
import itertools

import numpy as np

from ...dygraph.tensor import Tensor
from ...framework.nest import map_structure, pack_sequence_as
from ...layers.activation import log_softmax
from ...layers.common import append_op_out
from ...layers.control_flow import While, array_write, create_array, in_parent_block, \
    tensor_array_to_tensor
from ...layers.creation import assign, fill_constant, fill_constant_batch_size_like
from ...layers.functional_nn import gather_tree
from ...layers.indexing import gather_nd
from ...layers.loss import topk
from ...layers.manipulation import cumsum
from ...layers.math import _bool_out, cast
from ...layers.tensor import flatten, reshape, shape, stack, tile, transpose, unsqueeze

__all__ = ["BeamSearchDecoder", "dynamic_decode"]

_NEG_INF = -1e9   # Paddle's -kInf: finite, so masked scores stay comparable


def _leaves(structure):
    found = []
    map_structure(found.append, structure)
    return found


def _binary(op_type, x, y):
    return append_op_out(op_type, {"X": [x], "Y": [y]}, {"axis": -1})


def _logical_or(x, y):
    return _bool_out("logical_or", {"X": [x], "Y": [y]}, {}, None, None)


def _kept_where(finished, old, new):
    """old in the rows of a finished entry ([batch] bool), new elsewhere (a bool state
    through float32, as Paddle 1.8 does)."""
    dtype = "float32" if old.dtype.name == "bool" else old.dtype.name
    mask = cast(finished, dtype)
    mask.stop_gradient = True
    kept = append_op_out("elementwise_add", {
        "X": [append_op_out("elementwise_mul", {"X": [cast(old, dtype)], "Y": [mask]},
                            {"axis": 0})],
        "Y": [append_op_out("elementwise_mul", {"X": [cast(new, dtype)],
                                                "Y": [1.0 - mask]}, {"axis": 0})]},
        {"axis": -1})
    return cast(kept, "bool") if old.dtype.name == "bool" else kept


def _logical_not(x):
    return _bool_out("logical_not", {"X": [x]}, {}, None, None)


class Decoder:
    """Base of the decoders dynamic_decode drives: initialize(inits) -> (inputs, states,
    finished); step(time, inputs, states, **kwargs) -> (outputs, next_states, next_inputs,
    finished); finalize(outputs, final_states, sequence_lengths) -> (outputs, states)."""
    tracks_own_finished = False

    def initialize(self, inits):
        raise NotImplementedError("%s.initialize" % type(self).__name__)

    def step(self, time, inputs, states, **kwargs):
        raise NotImplementedError("%s.step" % type(self).__name__)

    def finalize(self, outputs, final_states, sequence_lengths):
        return outputs, final_states


class BeamSearchDecoder(Decoder):
    """Beam search over `cell` (an RNN cell: cell(inputs, states) -> (outputs, states)).
    Each step: log_softmax of output_fn(cell outputs) [B, beam, V] (finished beams may only
    emit end_token, at no cost) plus the beam's score; the top beam_size of the beam * V
    candidates per batch entry become the new beams (their cell states, finished flags and
    lengths gathered from the parent beams). finalize backtracks with gather_tree."""
    tracks_own_finished = True
    OutputWrapper = collections.namedtuple("OutputWrapper",
                                           ("scores", "predicted_ids", "parent_ids"))
    StateWrapper = collections.namedtuple("StateWrapper",
                                          ("cell_states", "log_probs", "finished", "lengths"))

    def __init__(self, cell, start_token, end_token, beam_size, embedding_fn=None,
                 output_fn=None):
        if int(beam_size) < 1:
            raise ValueError("BeamSearchDecoder: beam_size must be >= 1, got %r" % (beam_size,))
        self.cell, self.embedding_fn, self.output_fn = cell, embedding_fn, output_fn
        self.start_token, self.end_token = int(start_token), int(end_token)
        self.beam_size = int(beam_size)

    # -- reshaping between [B * beam, ...] and [B, beam, ...]
    @staticmethod
    def tile_beam_merge_with_batch(x, beam_size):
        """x [B, ...] -> [B * beam_size, ...], each batch entry repeated beam_size times."""
        expanded = tile(unsqueeze(x, [1]), [1, beam_size] + [1] * (len(x.shape) - 1))
        return flatten(expanded, 0, 1)      # other dims may be unknown when built

    def _split_batch_beams(self, x):
        return reshape(x, [-1, self.beam_size] + list(x.shape[1:]))

    def _merge_batch_beams(self, x):
        return flatten(x, 0, 1)

    def _expand_to_beam_size(self, x):
        return tile(unsqueeze(x, [1]), [1, self.beam_size] + [1] * (len(x.shape) - 1))

    def _gather(self, x, indices, batch_size=None):
        """x [B, beam, ...] at [b, indices[b, k]] -> [B, beam, ...] (gather_nd). Paddle 2.0's
        signature (subclasses call it so); the batch size is read from `indices`."""
        ones = fill_constant_batch_size_like(indices, [-1, self.beam_size], "float32", 1.0)
        batch_pos = cast(_binary("elementwise_sub", cumsum(ones, axis=0), ones), "int64")
        return gather_nd(x, stack([batch_pos, indices], axis=2))

    def _mask_probs(self, log_probs, finished):
        """Finished beams: -inf (a large negative) everywhere but end_token, which is 0."""
        vocab = log_probs.shape[-1]
        only_end = np.full([vocab], _NEG_INF, "float32")
        only_end[self.end_token] = 0.0
        only_end = cast(assign(only_end), log_probs.dtype)
        keep = unsqueeze(cast(_logical_not(finished), log_probs.dtype), [2])
        done = unsqueeze(cast(finished, log_probs.dtype), [2])
        return _binary("elementwise_add", _binary("elementwise_mul", log_probs, keep),
                       _binary("elementwise_mul", done, only_end))

    # -- the Decoder interface
    def initialize(self, initial_cell_states):
        """(inputs, StateWrapper, finished) from the cell states [B, ...]: every batch entry
        starts beam_size beams at start_token, only the first with score 0. Sets what
        Paddle 2.0's initialize leaves on the decoder for subclasses (PaddleNLP's
        TransformerBeamSearchDecoder reshapes with them): `batch_size`, the [1] int32 B of
        the first cell state, and `kinf`."""
        ref = _leaves(initial_cell_states)[0]
        self.batch_size, self.kinf = shape(ref)[0], -_NEG_INF
        cell_states = map_structure(self._expand_to_beam_size, initial_cell_states)
        inputs = fill_constant_batch_size_like(ref, [-1, self.beam_size], "int64",
                                               self.start_token)
        first_only = np.array([[0.0] + [_NEG_INF] * (self.beam_size - 1)], "float32")
        log_probs = _binary("elementwise_add", fill_constant_batch_size_like(
            ref, [-1, self.beam_size], "float32", 0.0), assign(first_only))
        finished = cast(fill_constant_batch_size_like(ref, [-1, self.beam_size], "int64", 0),
                        "bool")
        lengths = fill_constant_batch_size_like(ref, [-1, self.beam_size], "int64", 0)
        if self.embedding_fn is not None:
            inputs = self.embedding_fn(inputs)
        return inputs, self.StateWrapper(cell_states, log_probs, finished, lengths), finished

    def _beam_search_step(self, time, logits, next_cell_states, beam_state):
        """One beam search step on the step's logits [B, beam, V] (Paddle 2.0's signature,
        `time` unused, as there)."""
        vocab = logits.shape[-1]
        if vocab < 0:
            raise ValueError("BeamSearchDecoder: the vocabulary size (last dim of the "
                             "logits %r %s) must be known" % (logits.name, list(logits.shape)))
        step_log_probs = self._mask_probs(log_softmax(logits), beam_state.finished)
        log_probs = _binary("elementwise_add", step_log_probs,
                            unsqueeze(cast(beam_state.log_probs, step_log_probs.dtype), [2]))
        scores, flat_indices = topk(reshape(log_probs, [-1, self.beam_size * vocab]),
                                    self.beam_size)
        vocab_size = fill_constant_batch_size_like(flat_indices, [-1, self.beam_size],
                                                   "int64", vocab)
        beam_indices = _binary("elementwise_floordiv", flat_indices, vocab_size)
        token_indices = _binary("elementwise_mod", flat_indices, vocab_size)
        next_cell_states = map_structure(lambda x: self._gather(x, beam_indices),
                                         next_cell_states)
        next_finished = self._gather(beam_state.finished, beam_indices)
        next_lengths = _binary("elementwise_add", self._gather(beam_state.lengths,
                                                               beam_indices),
                               cast(_logical_not(next_finished), "int64"))
        end = fill_constant_batch_size_like(flat_indices, [-1, self.beam_size], "int64",
                                            self.end_token)
        next_finished = _logical_or(next_finished, _bool_out(
            "equal", {"X": [token_indices], "Y": [end]}, {"axis": -1}, None, None))
        return (self.OutputWrapper(scores, token_indices, beam_indices),
                self.StateWrapper(next_cell_states, scores, next_finished, next_lengths))

    def step(self, time, inputs, states, **kwargs):
        inputs = map_structure(self._merge_batch_beams, inputs)
        cell_states = map_structure(self._merge_batch_beams, states.cell_states)
        cell_outputs, next_cell_states = self.cell(inputs, cell_states, **kwargs)
        cell_outputs = map_structure(self._split_batch_beams, cell_outputs)
        next_cell_states = map_structure(self._split_batch_beams, next_cell_states)
        if self.output_fn is not None:
            cell_outputs = self.output_fn(cell_outputs)
        output, state = self._beam_search_step(time, cell_outputs, next_cell_states, states)
        sample_ids = output.predicted_ids
        sample_ids.stop_gradient = True
        next_inputs = self.embedding_fn(sample_ids) if self.embedding_fn else sample_ids
        return output, state, next_inputs, state.finished

    def finalize(self, outputs, final_states, sequence_lengths):
        """Time-major predicted ids [T, B, beam] backtracked through the parents."""
        return gather_tree(outputs.predicted_ids, outputs.parent_ids), final_states


def dynamic_decode(decoder, inits=None, max_step_num=None, output_time_major=False,
                   impute_finished=False, is_test=False, return_length=False, **kwargs):
    """(final_outputs, final_states[, sequence_lengths]) after max_step_num + 1 unrolled
    decoder steps, or (no max_step_num) a while loop's steps until every entry finished;
    outputs stacked on a time axis (axis 1 unless output_time_major)."""
    if not isinstance(decoder, Decoder):
        raise TypeError("dynamic_decode: decoder must be a Decoder (e.g. "
                        "BeamSearchDecoder), got %s" % type(decoder).__name__)
    if max_step_num is not None and int(max_step_num) < 0:
        raise ValueError("dynamic_decode: max_step_num must be >= 0, got %r" % (max_step_num,))
    inputs, states, finished = decoder.initialize(inits)
    lengths = cast(finished, "int64")
    lengths = _binary("elementwise_sub", lengths, lengths)
    eager = isinstance(finished, Tensor)
    if max_step_num is None and not eager:
        final_outputs, states, lengths = _decode_until_finished(
            decoder, inputs, states, finished, lengths, impute_finished, is_test, kwargs)
    else:
        step_outputs = []
        times = itertools.count() if max_step_num is None else range(int(max_step_num) + 1)
        for time in times:
            # eagerly the step is an int64 [1] tensor, as Paddle's dygraph decode passes it
            outputs, states, inputs, finished, lengths = _decode_step(
                decoder, fill_constant([1], "int64", time) if eager else time, inputs, states,
                finished, lengths, impute_finished, kwargs)
            step_outputs.append(outputs)
            if eager and finished.numpy().all():
                break     # eagerly, as Paddle's dygraph: stop once every entry has finished
        final_outputs = map_structure(lambda *steps: stack(list(steps), axis=0),
                                      *step_outputs)
    final_outputs, final_states = decoder.finalize(final_outputs, states, lengths)
    if not output_time_major:
        final_outputs = map_structure(
            lambda x: transpose(x, [1, 0] + list(range(2, len(x.shape)))), final_outputs)
    return (final_outputs, final_states, lengths) if return_length else \
        (final_outputs, final_states)


def _decode_step(decoder, time, inputs, states, finished, lengths, impute_finished, kwargs):
    """One decoder step -> (outputs, states, inputs, finished, lengths) after it: a finished
    entry stays finished (and keeps its states with impute_finished) and stops counting."""
    outputs, next_states, next_inputs, next_finished = decoder.step(time, inputs, states,
                                                                    **kwargs)
    if decoder.tracks_own_finished:
        lengths = getattr(next_states, "lengths", lengths)
    else:
        if impute_finished:      # a finished entry keeps its states
            next_states = map_structure(lambda old, new: _kept_where(finished, old, new),
                                        states, next_states)
        next_finished = _logical_or(next_finished, finished)
        lengths = _binary("elementwise_add", lengths, cast(_logical_not(finished), "int64"))
    return outputs, next_states, next_inputs, next_finished, lengths


def _decode_until_finished(decoder, inputs, states, finished, lengths, impute_finished,
                           is_test, kwargs):
    """Static decoding without max_step_num: a while op runs steps while some entry has not
    finished; the step (an int64 [1] counter) indexes tensor arrays of the step outputs,
    stacked on axis 0 afterwards. The loop runs on copies of the initial values (their
    producers' gradients read the originals); each step's results are assigned to them at
    the step's end, so no body op reads a loop variable after it was written."""
    carried = (inputs, states, finished, lengths)
    loop_vars = [assign(v) for v in _leaves(carried)]
    inputs, states, finished, lengths = pack_sequence_as(carried, loop_vars)
    time = fill_constant([1], "int64", 0)
    more = _logical_not(_reduce_all(finished))
    loop = While(more, is_test=is_test)
    with loop.block():
        outputs, *after = _decode_step(decoder, time, inputs, states, finished, lengths,
                                       impute_finished, kwargs)
        next_states, next_inputs, next_finished, next_lengths = after
        with in_parent_block():
            arrays = map_structure(lambda x: create_array(x.dtype), outputs)
        map_structure(lambda x, array: array_write(x, time, array=array), outputs, arrays)
        next_more = _logical_not(_reduce_all(next_finished))
        results = _leaves((next_inputs, next_states, next_finished, next_lengths))
        for var, value in zip(loop_vars, results):
            if value is not var:
                assign(value, var)
        assign(next_more, more)
        assign(_binary("elementwise_add", time, fill_constant([1], "int64", 1)), time)
    stacked = map_structure(
        lambda array: tensor_array_to_tensor(array, axis=0, use_stack=True)[0], arrays)
    return stacked, states, lengths


def _reduce_all(x):
    return _bool_out("reduce_all", {"X": [x]}, {"dim": [0], "keep_dim": False,
                                                 "reduce_all": True}, None, None)
