"""paddle.distributed: the process's place in an `mpirun` job (rank 0 of 1 otherwise)."""
from ..parallel.launch import world

__all__ = ["get_rank", "get_world_size", "init_parallel_env", "ParallelEnv"]


def get_rank():
    return world()[0]


def get_world_size():
    return world()[1]


class ParallelEnv:
    @property
    def rank(self):
        return get_rank()

    local_rank = rank

    @property
    def world_size(self):
        return get_world_size()

    nranks = world_size

    @property
    def dev_id(self):
        return 0


def init_parallel_env():
    """Nothing to set up: MPI is initialized on import of mpi4py; returns the ParallelEnv."""
    return ParallelEnv()
