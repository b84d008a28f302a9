"""fluid.DistributeTranspiler in "nccl2" (collective) mode, mapped onto refimpl's MPI data
parallelism: with_data_parallel already spans every mpirun rank, so transpile() checks
that the trainer count and id agree with the MPI world and records them on the program.
The parameter-server modes are not part of refimpl."""
from ..framework.program import default_main_program, default_startup_program
from ..parallel.launch import world
from .compat import memory_optimize, release_memory

__all__ = ["DistributeTranspiler", "DistributeTranspilerConfig", "memory_optimize",
           "release_memory"]


class DistributeTranspilerConfig:
    def __init__(self):
        self.mode = "pserver"
        self.slice_var_up = True
        self.split_method = None
        self.min_block_size = 8192
        self.sync_mode = True


class DistributeTranspiler:
    def __init__(self, config=None):
        self.config = config or DistributeTranspilerConfig()

    def transpile(self, trainer_id, program=None, pservers="127.0.0.1:6174", trainers=1,
                  sync_mode=True, startup_program=None, current_endpoint="127.0.0.1:6174"):
        if self.config.mode != "nccl2":
            raise NotImplementedError("DistributeTranspiler: only mode 'nccl2' (collective) is "
                                      "supported; set config.mode = 'nccl2' and launch with "
                                      "mpirun")
        n = len(trainers.split(",")) if isinstance(trainers, str) else int(trainers)
        rank, size = world()
        if (n, trainer_id) != (size, rank):
            raise ValueError("DistributeTranspiler: trainers=%d, trainer_id=%d but the MPI "
                             "world is %d processes and this is rank %d; launch with "
                             "`mpirun -n %d`" % (n, trainer_id, size, rank, n))
        self.program = program or default_main_program()
        self.startup_program = startup_program or default_startup_program()
        self.program._num_trainers, self.program._trainer_id = n, trainer_id
        return self.program
