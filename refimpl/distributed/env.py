"""This process's place in the job: get_rank, get_world_size, ParallelEnv,
init_parallel_env (specs/distributed.md#environment)."""
import os

from ..dygraph import tracer
from ..parallel.group import DeviceGroup, set_process_group
from ..parallel.world import process_world

__all__ = ["get_rank", "get_world_size", "init_parallel_env", "ParallelEnv",
           "require_parallel_env", "FIRST_PORT"]

# Paddle's launcher numbers its trainers' ports from 6170 (`started_port`)
FIRST_PORT = 6170
_initialized = False


def get_rank():
    """This process's rank: from mpirun or paddle.distributed.spawn, else 0."""
    return process_world().rank


def get_world_size():
    """The number of processes in the job: from mpirun or spawn, else 1."""
    return process_world().size


def _endpoints(size):
    """PADDLE_TRAINER_ENDPOINTS when it names one endpoint per rank, else
    127.0.0.1:6170, :6171, ... (names only: refimpl opens no socket)."""
    given = [e for e in os.environ.get("PADDLE_TRAINER_ENDPOINTS", "").split(",") if e]
    if len(given) == size:
        return given
    return ["127.0.0.1:%d" % (FIRST_PORT + r) for r in range(size)]


class ParallelEnv:
    """paddle.distributed.ParallelEnv: the trainer's rank, the world size, its device and
    the endpoints, as Paddle 2.0 reports them (local_rank and nranks are rank and
    world_size; dev_id is device_id: FLAGS_selected_gpus, else 0)."""

    @property
    def rank(self):
        return get_rank()

    @property
    def world_size(self):
        return get_world_size()

    local_rank = rank
    nranks = world_size

    @property
    def device_id(self):
        selected = os.environ.get("FLAGS_selected_gpus", "").split(",")[0]
        return int(selected) if selected.strip().isdigit() else 0

    dev_id = device_id

    @property
    def nrings(self):
        """FLAGS_nccl_nrings (default 1): the NCCL rings a trainer opens, 1 to 8 in Paddle
        (refimpl's collectives take no rings; the value is reported as set)."""
        rings = int(os.environ.get("FLAGS_nccl_nrings", "1"))
        if not 0 < rings < 9:
            raise AssertionError("FLAGS_nccl_nrings must be an integer in [1, 8], got %d"
                                 % rings)
        return rings

    @property
    def trainer_endpoints(self):
        return _endpoints(self.world_size)

    @property
    def current_endpoint(self):
        return self.trainer_endpoints[self.rank]

    def __repr__(self):
        return "ParallelEnv(rank=%d, world_size=%d, device_id=%d)" % (
            self.rank, self.world_size, self.device_id)


def init_parallel_env():
    """Join the job's collectives: from now on paddle.distributed's functions, collective
    ops run by an Executor and sync_batch_norm span every process. Idempotent. Returns
    the ParallelEnv."""
    global _initialized
    if not _initialized:
        world = process_world()
        if world.size > 1:     # one process: collective ops stay identities
            group = DeviceGroup(world, 0)
            set_process_group(group)             # for the Executor
            tracer.set_process_group(group)      # for eager ops
        _initialized = True
    return ParallelEnv()


def require_parallel_env(what):
    """Refuse `what` in a job of several processes before init_parallel_env: its
    collectives would silently stay local."""
    if not _initialized and get_world_size() > 1:
        raise RuntimeError("%s: call paddle.distributed.init_parallel_env() first (this job "
                           "has %d processes; without it they do not communicate)"
                           % (what, get_world_size()))
