"""paddle.fluid.evaluator (Paddle 1.8, deprecated there for fluid.metrics): evaluators
that keep their running counts in persistable state variables of the main program. The
constructor appends the metric's ops and `state += batch count` ops to the program;
reset(executor) zeroes the states (call it before the first run, as in Paddle);
eval(executor) reads them and returns the metric. specs/fluid_metrics.md."""
import warnings

import numpy as np

from ..framework import unique_name
from ..framework.program import Program, default_main_program, program_guard
from .metrics import DetectionMAP

__all__ = ["ChunkEvaluator", "EditDistance", "DetectionMAP"]


class Evaluator:
    def __init__(self, name):
        warnings.warn("The %s is deprecated, because maintain a modified program inside "
                      "evaluator cause bug easily, please use fluid.metrics.%s instead."
                      % (type(self).__name__, type(self).__name__), Warning)
        self._name = name
        self.states = []
        self.metrics = []
        if default_main_program().current_block().idx != 0:
            raise ValueError("%s: you can only invoke Evaluator in root block"
                             % type(self).__name__)

    def _create_state(self, suffix, dtype):
        block = default_main_program().global_block()
        state = block.create_var(name="_".join([unique_name.generate(self._name), suffix]),
                                 shape=[1], dtype=dtype, persistable=True)
        self.states.append(state)
        return state

    def _accumulate(self, state, batch_value):
        from . import layers
        layers.sums([state, batch_value], out=state)

    def _read_states(self, executor, program):
        block = program.global_block()
        copies = [block.create_var(name=s.name, shape=s.shape, dtype=s.dtype,
                                   persistable=True) for s in self.states]
        return [np.asarray(v).reshape(-1)[0] for v in executor.run(program, fetch_list=copies)]

    def reset(self, executor, reset_program=None):
        """Set every state to 0 (runs `reset_program`, default a new one, on executor)."""
        from .layers import fill_constant
        reset_program = reset_program or Program()
        with program_guard(reset_program):
            block = reset_program.global_block()
            for state in self.states:
                copy = block.create_var(name=state.name, shape=state.shape, dtype=state.dtype,
                                        persistable=True)
                fill_constant(shape=[1], dtype=state.dtype, value=0, out=copy)
        executor.run(reset_program)

    def eval(self, executor, eval_program=None):
        raise NotImplementedError("%s must implement eval" % type(self).__name__)


class ChunkEvaluator(Evaluator):
    """Counts of layers.chunk_eval summed over batches; eval -> [precision], [recall],
    [f1] float32 arrays (0 where a denominator is 0)."""

    def __init__(self, input, label, chunk_scheme, num_chunk_types, excluded_chunk_types=None):
        from .layers import chunk_eval
        super().__init__("chunk_eval")
        counts = [self._create_state(suffix, "int64") for suffix in
                  ("num_infer_chunks", "num_label_chunks", "num_correct_chunks")]
        self.num_infer_chunks, self.num_label_chunks, self.num_correct_chunks = counts
        outputs = chunk_eval(input=input, label=label, chunk_scheme=chunk_scheme,
                             num_chunk_types=num_chunk_types,
                             excluded_chunk_types=excluded_chunk_types)
        for state, batch_count in zip(counts, outputs[3:]):
            self._accumulate(state, batch_count)
        self.metrics.extend(outputs[:3])

    def eval(self, executor, eval_program=None):
        infer, label, correct = self._read_states(executor, eval_program or Program())
        precision = float(correct) / infer if infer else 0
        recall = float(correct) / label if label else 0
        f1 = 2 * precision * recall / (precision + recall) if correct else 0
        return tuple(np.array([v], dtype="float32") for v in (precision, recall, f1))


class EditDistance(Evaluator):
    """layers.edit_distance summed over batches: eval -> (mean distance, fraction of
    sequences with a nonzero distance), as [1] arrays."""

    def __init__(self, input, label, ignored_tokens=None, **kwargs):
        from . import layers as L
        super().__init__("edit_distance")
        self.total_distance = self._create_state("total_distance", "float32")
        self.seq_num = self._create_state("seq_num", "int64")
        self.instance_error = self._create_state("instance_error", "int64")
        distances, seq_num = L.edit_distance(input=input, label=label,
                                             ignored_tokens=ignored_tokens)
        zero = L.fill_constant(shape=[1], value=0.0, dtype="float32")
        right = L.reduce_sum(L.cast(L.equal(distances, zero), "int64"))
        errors = L.elementwise_sub(seq_num, right)
        total = L.reduce_sum(distances)
        self._accumulate(self.total_distance, total)
        self._accumulate(self.seq_num, seq_num)
        self._accumulate(self.instance_error, errors)
        self.metrics.extend([total, errors])

    def eval(self, executor, eval_program=None):
        total, seqs, errors = self._read_states(executor, eval_program or Program())
        return (np.array([total / seqs], dtype="float32"),
                np.array([errors / seqs], dtype="float32"))
