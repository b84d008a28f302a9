"""paddle.distributed: the job's processes (mpirun's ranks, or spawn's children), the
collectives on Tensors, DataParallel and a minimal fleet (specs/distributed.md); Paddle 3's
auto-parallel names, which fail when used (auto_parallel.py)."""
from .auto_parallel import Partial, Placement, ProcessMesh, Replicate, Shard, shard_tensor
from .collective import ReduceOp, all_gather, all_reduce, barrier, broadcast, reduce, scatter
from .env import ParallelEnv, get_rank, get_world_size, init_parallel_env
from .spawn import spawn
from .fleet.dataset import InMemoryDataset, QueueDataset

__all__ = ["get_rank", "get_world_size", "init_parallel_env", "ParallelEnv", "ReduceOp",
           "all_reduce", "broadcast", "reduce", "all_gather", "scatter", "barrier", "spawn",
           "InMemoryDataset", "QueueDataset", "Placement", "Shard", "Replicate", "Partial",
           "ProcessMesh", "shard_tensor"]
