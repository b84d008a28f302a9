"""paddle.distributed.fleet for collective training: what Paddle 2.0 users write
(`fleet.init(is_collective=True)`, `fleet.distributed_optimizer`, `fleet.distributed_model`,
the worker queries, fleet.util), mapped onto refimpl's data parallelism -- DataParallel in
dynamic mode, CompiledProgram.with_data_parallel (spanning mpirun's processes) in static
mode -- and 2.0's non-distributed fallback of `fleet.init()` (specs/distributed.md#fleet).
Parameter-server training is not implemented. Also the data_generator writers and 2.0's
datasets of fluid.dataset's MultiSlot lines, and fleet.utils' file systems."""
import warnings

from ...dygraph import mode
from . import data_generator, dataset, metrics
from .dataset import (BoxPSDataset, DatasetBase, FileInstantDataset, InMemoryDataset,
                      QueueDataset)
from .data_generator import MultiSlotDataGenerator, MultiSlotStringDataGenerator
from ..env import init_parallel_env
from .role_maker import PaddleCloudRoleMaker, Role, UserDefinedRoleMaker
from .strategy import DistributedStrategy
from .util import UtilBase

__all__ = ["init", "DistributedStrategy", "Role", "PaddleCloudRoleMaker", "UserDefinedRoleMaker",
           "UtilBase", "util", "distributed_optimizer", "distributed_model", "worker_index",
           "worker_num", "is_first_worker", "is_worker", "worker_endpoints", "barrier_worker",
           "server_num", "server_index", "server_endpoints", "is_server", "init_worker",
           "stop_worker", "init_server", "run_server", "data_generator", "dataset", "metrics",
           "DatasetBase", "InMemoryDataset", "QueueDataset", "FileInstantDataset",
           "BoxPSDataset", "MultiSlotDataGenerator", "MultiSlotStringDataGenerator"]

_state = {"strategy": None, "role": None}
util = UtilBase()


def _parameter_servers(what):
    return NotImplementedError(
        "fleet.%s: parameter-server training is not implemented in refimpl; use "
        "fleet.init(is_collective=True) (collective data parallelism over mpirun)" % what)


def init(role_maker=None, is_collective=False, strategy=None):
    """Generate this process's role (fleet.role_maker); a collective worker joins the job
    (init_parallel_env). `strategy` is the default of distributed_optimizer and
    distributed_model."""
    if role_maker is None:
        role_maker = PaddleCloudRoleMaker(is_collective=is_collective)
    elif not isinstance(role_maker, PaddleCloudRoleMaker):
        raise ValueError("fleet.init: role_maker must be a PaddleCloudRoleMaker or "
                         "UserDefinedRoleMaker, got %s" % type(role_maker).__name__)
    if strategy is not None and not isinstance(strategy, DistributedStrategy):
        raise TypeError("fleet.init: strategy must be a fleet.DistributedStrategy, got %s"
                        % type(strategy).__name__)
    role_maker._generate_role()
    if role_maker._is_collective:
        init_parallel_env()
    _state["role"] = role_maker
    _state["strategy"] = strategy or DistributedStrategy()
    util._set_role_maker(role_maker)


def _role(what):
    if _state["role"] is None:
        raise RuntimeError("fleet.%s: call fleet.init() first" % what)
    return _state["role"]


def _strategy(strategy, what):
    if strategy is None:
        if _state["strategy"] is None:
            raise RuntimeError("fleet.%s: call fleet.init(is_collective=True) first" % what)
        return _state["strategy"]
    if not isinstance(strategy, DistributedStrategy):
        raise TypeError("fleet.%s: strategy must be a fleet.DistributedStrategy, got %s"
                        % (what, type(strategy).__name__))
    _state["strategy"] = strategy
    return strategy


def _training(what):
    """The role of a process that trains: a collective or a non-distributed worker."""
    role = _role(what)
    if role._server_endpoints:
        raise _parameter_servers(what)
    return role


def worker_index():
    return _role("worker_index")._current_id


def worker_num():
    return _role("worker_num")._worker_num


def is_first_worker():
    role = _role("is_first_worker")
    return role._role == Role.WORKER and role._current_id == 0


def is_worker():
    return _role("is_worker")._role == Role.WORKER


def worker_endpoints(to_string=False):
    endpoints = _role("worker_endpoints")._worker_endpoints
    return ",".join(endpoints) if to_string else endpoints


def server_num():
    return len(_role("server_num")._server_endpoints)


def server_index():
    return _role("server_index")._current_id


def server_endpoints(to_string=False):
    endpoints = _role("server_endpoints")._server_endpoints
    return ",".join(endpoints) if to_string else endpoints


def is_server():
    return _role("is_server")._role == Role.SERVER


def barrier_worker():
    """Every worker waits here for the others."""
    if _training("barrier_worker")._is_collective:
        from ..collective import barrier
        barrier()


def _non_distributed(what):
    """Paddle 2.0 warns that a parameter-server call does nothing in a non-distributed
    fleet; True there. A collective job has nothing to start or stop (None); a
    parameter-server one is not implemented."""
    role = _role(what)
    if role._non_distributed:
        warnings.warn("%s() function doesn't work when use non_distributed fleet." % what)
        return True
    if role._server_endpoints or not role._is_collective:
        raise _parameter_servers(what)
    return None


def init_worker():
    """Nothing to start for collective training."""
    _non_distributed("init_worker")


def stop_worker():
    """Nothing to stop for collective training."""
    _non_distributed("stop_worker")


def init_server(*args, **kwargs):
    if _non_distributed("init_server") is None:
        raise _parameter_servers("init_server")


def run_server():
    if _non_distributed("run_server") is None:
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
    if mode.dynamic:        # static mode: checked by minimize, which applies the strategy
        strategy._check_implemented("fleet.distributed_optimizer")
        if strategy.recompute:
            raise NotImplementedError("fleet.distributed_optimizer: strategy.recompute in "
                                      "dynamic mode is not implemented in refimpl (static "
                                      "mode only)")
    return DistributedOptimizer(optimizer, strategy)
