"""paddle.distributed.fleet, collective training only: what Paddle 2.0 users write
(`fleet.init(is_collective=True)`, `fleet.distributed_optimizer`, `fleet.distributed_model`,
the worker queries), mapped onto refimpl's data parallelism -- DataParallel in dynamic
mode, CompiledProgram.with_data_parallel (spanning mpirun's processes) in static mode
(specs/distributed.md#fleet). Parameter-server training is not implemented. Also the
data_generator writers of fluid.dataset's MultiSlot lines."""
from ...dygraph import mode
from . import data_generator
from .data_generator import MultiSlotDataGenerator, MultiSlotStringDataGenerator
from ..env import ParallelEnv, get_rank, get_world_size, init_parallel_env
from .strategy import DistributedStrategy

__all__ = ["init", "DistributedStrategy", "PaddleCloudRoleMaker", "UserDefinedRoleMaker",
           "distributed_optimizer", "distributed_model", "worker_index", "worker_num",
           "is_first_worker", "is_worker", "worker_endpoints", "barrier_worker",
           "server_num", "is_server", "init_worker", "stop_worker", "init_server",
           "run_server", "data_generator", "MultiSlotDataGenerator",
           "MultiSlotStringDataGenerator"]

_state = {"strategy": None}


class PaddleCloudRoleMaker:
    """The role maker Paddle 2.0 scripts pass to fleet.init; only is_collective=True."""

    def __init__(self, is_collective=False, **kwargs):
        self._is_collective = is_collective


UserDefinedRoleMaker = PaddleCloudRoleMaker


def _parameter_servers(what):
    return NotImplementedError(
        "fleet.%s: parameter-server training is not implemented in refimpl; use "
        "fleet.init(is_collective=True) (collective data parallelism over mpirun)" % what)


def init(role_maker=None, is_collective=False, strategy=None):
    """Join the job (init_parallel_env) as a collective trainer; `strategy` is the default
    of distributed_optimizer and distributed_model."""
    if role_maker is not None:
        if not isinstance(role_maker, PaddleCloudRoleMaker):
            raise TypeError("fleet.init: role_maker must be a PaddleCloudRoleMaker, got %s"
                            % type(role_maker).__name__)
        is_collective = is_collective or role_maker._is_collective
    if not is_collective:
        raise _parameter_servers("init(is_collective=False)")
    if strategy is not None and not isinstance(strategy, DistributedStrategy):
        raise TypeError("fleet.init: strategy must be a fleet.DistributedStrategy, got %s"
                        % type(strategy).__name__)
    init_parallel_env()
    _state["strategy"] = strategy or DistributedStrategy()


def _strategy(strategy, what):
    if _state["strategy"] is None:
        raise RuntimeError("fleet.%s: call fleet.init(is_collective=True) first" % what)
    if strategy is None:
        return _state["strategy"]
    if not isinstance(strategy, DistributedStrategy):
        raise TypeError("fleet.%s: strategy must be a fleet.DistributedStrategy, got %s"
                        % (what, type(strategy).__name__))
    _state["strategy"] = strategy
    return strategy


def worker_index():
    return get_rank()


def worker_num():
    return get_world_size()


def is_first_worker():
    return get_rank() == 0


def is_worker():
    return True


def worker_endpoints(to_string=False):
    endpoints = ParallelEnv().trainer_endpoints
    return ",".join(endpoints) if to_string else endpoints


def server_num():
    return 0


def is_server():
    return False


def barrier_worker():
    """Every worker waits here for the others."""
    from ..collective import barrier
    barrier()


def init_worker():
    """Nothing to start for collective training."""


def stop_worker():
    """Nothing to stop for collective training."""


def init_server(*args, **kwargs):
    raise _parameter_servers("init_server")


def run_server():
    raise _parameter_servers("run_server")


def distributed_model(model):
    """Dynamic mode: `model` as a paddle.DataParallel, with the strategy's bucket sizes
    (fuse_grad_size_in_MB, last_comm_group_size_MB), find_unused_parameters, and its batch
    norms made SyncBatchNorm when sync_batch_norm is set."""
    from ..parallel import DataParallel
    strategy = _strategy(None, "distributed_model")
    if strategy.sync_batch_norm:
        from ...nn.layer.norm import SyncBatchNorm
        model = SyncBatchNorm.convert_sync_batchnorm(model)
    return DataParallel(model, comm_buffer_size=strategy.fuse_grad_size_in_MB,
                        last_comm_buffer_size=strategy.last_comm_group_size_MB,
                        find_unused_parameters=strategy.find_unused_parameters)


def distributed_optimizer(optimizer, strategy=None):
    """The optimizer for collective training with `strategy` (default: fleet.init's)."""
    from .optimizer import DistributedOptimizer
    strategy = _strategy(strategy, "distributed_optimizer")
    if mode.dynamic and strategy.recompute:
        raise NotImplementedError("fleet.distributed_optimizer: strategy.recompute in dynamic "
                                  "mode is not implemented in refimpl (static mode only)")
    return DistributedOptimizer(optimizer, strategy)
