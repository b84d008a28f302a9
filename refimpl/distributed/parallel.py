"""paddle.DataParallel: a Layer trained by every process of the job on its share of the
batch, its gradients averaged over the processes during backward (reducer.py), its
parameters and buffers broadcast from rank 0 when it is made
(specs/distributed.md#dataparallel). Paddle 1.8's fluid.dygraph.DataParallel,
prepare_context and ParallelStrategy are here too."""
import contextlib
import warnings
import zlib

import numpy as np

from .. import versions
from ..dygraph import mode
from ..dygraph.dispatch import run_eagerly
from ..nn.layer.base import Layer, accepts_stat_dict
from ..parallel.world import process_world
from .env import ParallelEnv, require_parallel_env
from .reducer import MB, Reducer

__all__ = ["DataParallel", "ParallelStrategy", "prepare_context", "sync_params_buffers"]


def _manual_reduction():
    """Paddle 1.8: DataParallel leaves gradients local; scale_loss divides the loss by the
    world size and apply_collective_grads sums the gradients. From 2.0 a reducer averages
    them during backward and both are no-ops (specs/distributed.md#versions)."""
    return versions.switch("dp_manual_reduction")


def _positive(value, what):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ValueError("paddle.DataParallel: %s must be a number of MB > 0, got %r"
                         % (what, value))
    return value


# Paddle's gradient buckets (1.8: DataParallel methods; 2.0: functions of
# fluid.dygraph.parallel); private, but Paddle's own tests call them
def _coalesce_tensors(var_groups):
    """For each group of var_groups ({group: [tensors]}): [the tensors flattened and
    concatenated into one, the tensors, their shapes]."""
    coalesced = []
    for tensors in var_groups.values():
        flat = [_reshaped(t, [-1]) for t in tensors]
        coalesced.append([run_eagerly("concat", {"X": flat}, {"axis": 0}), list(tensors),
                          [list(t.shape) for t in tensors]])
    return coalesced


def _split_tensors(coalesced):
    """Write each concatenation of _coalesce_tensors back into its tensors (in place,
    each keeping its shape)."""
    for flat, tensors, shapes in coalesced:
        values, start = flat._array(), 0
        for tensor, shape in zip(tensors, shapes):
            size = int(np.prod(shape))
            tensor.set_value(values[start:start + size].reshape(shape))
            start += size


def _reshape_inplace(x, shape):
    """x takes `shape` in place (Paddle: a reshape2 op whose output is x)."""
    x._inplace_from(_reshaped(x, shape))


def _reshaped(x, shape):
    return run_eagerly("reshape2", {"X": [x]}, {"shape": list(shape)},
                       extra_outputs=[("XShape", None)])[0]


class DataParallel(Layer):
    """Wraps `layers` for data-parallel training in dynamic mode (see the module doc).
    `comm_buffer_size` / `last_comm_buffer_size`: the bucket sizes in MB;
    `find_unused_parameters`: parameters a step does not use are averaged as zeros
    instead of being an error. `strategy` (1.8's ParallelStrategy) is accepted and
    unused: the job is mpirun's or spawn's."""

    def __init__(self, layers, strategy=None, comm_buffer_size=25, last_comm_buffer_size=1,
                 find_unused_parameters=False):
        if not mode.dynamic:
            raise RuntimeError(
                "paddle.DataParallel runs in dynamic mode; in static mode use "
                "static.CompiledProgram(main).with_data_parallel(loss_name=...) or "
                "fleet.distributed_optimizer (under mpirun both span the processes)")
        if not isinstance(layers, Layer):
            raise TypeError("paddle.DataParallel: layers must be a paddle.nn.Layer, got %s"
                            % type(layers).__name__)
        _positive(comm_buffer_size, "comm_buffer_size")
        _positive(last_comm_buffer_size, "last_comm_buffer_size")
        if not isinstance(find_unused_parameters, bool):
            raise TypeError("paddle.DataParallel: find_unused_parameters must be a bool, got "
                            "%r" % (find_unused_parameters,))
        super().__init__(layers.full_name() + "_data_parallel")
        self._layers = layers
        self._strategy = strategy
        self.comm_buffer_size = comm_buffer_size
        self.last_comm_buffer_size = last_comm_buffer_size
        self.find_unused_parameters = find_unused_parameters
        self.grad_need_sync = True
        self._reducer = None
        world = process_world()
        self._nranks = world.size
        if world.size == 1:
            return
        require_parallel_env("paddle.DataParallel")
        sync_params_buffers(layers, world)
        if not _manual_reduction():
            params = [p for p in layers.parameters() if p.trainable and not p.stop_gradient]
            if params:
                self._reducer = Reducer(params, world, [last_comm_buffer_size * MB,
                                                        comm_buffer_size * MB],
                                        find_unused_parameters)

    def forward(self, *inputs, **kwargs):
        outputs = self._layers(*inputs, **kwargs)
        if self._reducer is not None and mode.grad_enabled:
            if self.grad_need_sync:
                self._reducer.prepare(outputs)
            else:
                self._reducer.local_step()
        return outputs

    @contextlib.contextmanager
    def no_sync(self):
        """Inside, forward/backward accumulate gradients locally; the first synchronized
        backward after averages what accumulated."""
        old, self.grad_need_sync = self.grad_need_sync, False
        try:
            yield
        finally:
            self.grad_need_sync = old

    def scale_loss(self, loss):
        """Paddle 1.8: loss / world size (before backward and apply_collective_grads).
        From 2.0: the loss itself (the reducer averages), with a DeprecationWarning."""
        if not _manual_reduction():
            warnings.warn("DataParallel.scale_loss does nothing since Paddle 2.0 (gradients "
                          "are averaged during backward)", DeprecationWarning, stacklevel=2)
            return loss
        return loss / float(self._nranks) if self._nranks > 1 else loss

    def apply_collective_grads(self):
        """Paddle 1.8: sum every trainable parameter's gradient over the ranks. From 2.0:
        nothing, with a DeprecationWarning."""
        if not _manual_reduction():
            warnings.warn("DataParallel.apply_collective_grads does nothing since Paddle 2.0 "
                          "(gradients are averaged during backward)", DeprecationWarning,
                          stacklevel=2)
            return
        if self._nranks == 1:
            return
        params = [p for p in self._layers.parameters()
                  if p.trainable and p.gradient() is not None]
        sums = process_world().allreduce(0, [p.gradient() for p in params])
        for p, g in zip(params, sums):
            p._grad, p._zeroed, p._grad_rows = g, False, None     # summed dense

    # Paddle 1.8's gradient buckets: private methods, but its own tests call them (2.0
    # made them functions of fluid.dygraph.parallel, above)
    _coalesce_tensors = staticmethod(_coalesce_tensors)
    _split_tensors = staticmethod(_split_tensors)
    _reshape_inplace = staticmethod(_reshape_inplace)

    def state_dict(self, destination=None, include_sublayers=True, structured_name_prefix=""):
        return self._layers.state_dict(destination, include_sublayers, structured_name_prefix)

    @accepts_stat_dict
    def set_state_dict(self, state_dict, use_structured_name=True, scope=None):
        return self._layers.set_state_dict(state_dict, use_structured_name, scope)

    set_dict = load_dict = set_state_dict


def _model_signature(tensors):
    """[tensor count, values, crc32 of the shapes and dtypes]: equal on every rank iff the
    ranks built the same model (as far as broadcasting it is concerned)."""
    text = ";".join("%s:%s" % (list(t.shape), t._array().dtype.str) for t in tensors)
    return np.array([len(tensors), sum(t._array().size for t in tensors),
                     zlib.crc32(text.encode())], np.int64)


def sync_params_buffers(layer, world):
    """Every parameter and persistable buffer of `layer` takes rank 0's value (after
    checking that every rank's layer has the same tensors)."""
    tensors = layer.parameters() + [b for name, b in layer.named_buffers()
                                    if b is not None and b._value is not None]
    signatures = world.allgather_array(_model_signature(tensors))
    if any(not np.array_equal(s, signatures[0]) for s in signatures[1:]):
        raise ValueError(
            "paddle.DataParallel: the ranks' layers differ, so rank 0's parameters cannot be "
            "given to the others (per rank: tensors, values, shape checksum): %s"
            % "; ".join("rank %d: %s" % (r, s.tolist()) for r, s in enumerate(signatures)))
    arrays = [t._array() for t in tensors]
    world.broadcast(0, arrays, [0] * len(arrays))


class ParallelStrategy:
    """Paddle 1.8's fluid.dygraph.ParallelStrategy: the job as prepare_context sees it."""

    def __init__(self):
        env = ParallelEnv()
        self.nranks = env.nranks
        self.local_rank = env.local_rank
        self.trainer_endpoints = env.trainer_endpoints
        self.current_endpoint = env.current_endpoint


def prepare_context(strategy=None):
    """Paddle 1.8's fluid.dygraph.prepare_context: init_parallel_env, then the strategy."""
    from .env import init_parallel_env
    init_parallel_env()
    return strategy if strategy is not None else ParallelStrategy()
