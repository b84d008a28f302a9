"""fluid.DistributeTranspiler in "nccl2" (collective) mode, mapped onto refimpl's MPI data
parallelism: with_data_parallel already spans every mpirun rank, so transpile() checks
that the trainer count and id agree with the MPI world and records them on the program.
The parameter-server modes are not part of refimpl."""
from ...framework.program import default_main_program, default_startup_program
from ...parallel.launch import world
from ...submodules import group
from ..compat import memory_optimize, release_memory

__all__ = ["DistributeTranspiler", "DistributeTranspilerConfig", "memory_optimize",
           "release_memory", "HashName", "RoundRobin"]


def _is_bool(v):
    return isinstance(v, bool)


def _is_count(v):
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


# field -> (Paddle 1.8.5's default, what it accepts, how to say that); every field a user
# sets is checked when set. Only `mode` changes what refimpl does (nccl2 = MPI data
# parallel); the parameter-server fields are kept so configuring scripts run.
_CONFIG_FIELDS = {
    "slice_var_up": (True, _is_bool, "a bool"),
    "split_method": (None, lambda v: v is None or isinstance(v, type), "None or a class"),
    "min_block_size": (8192, _is_count, "a non-negative int"),
    "enable_dc_asgd": (False, _is_bool, "a bool"),
    "mode": ("pserver", lambda v: v in ("pserver", "nccl2", "collective"),
             "'pserver', 'nccl2' or 'collective'"),
    "print_log": (False, _is_bool, "a bool"),
    "wait_port": (True, _is_bool, "a bool"),
    "half_async": (False, _is_bool, "a bool"),
    "completely_not_async": (False, _is_bool, "a bool"),
    "geo_sgd_mode": (False, _is_bool, "a bool"),
    "geo_sgd_need_push_nums": (100, _is_count, "a non-negative int"),
    "nccl_comm_num": (1, lambda v: _is_count(v) and v >= 1, "a positive int"),
    "use_hierarchical_allreduce": (False, _is_bool, "a bool"),
    "hierarchical_allreduce_inter_nranks": (0, _is_count, "a non-negative int"),
    "collective_mode": (None, lambda v: v in (None, "grad_allreduce", "local_sgd"),
                        "None, 'grad_allreduce' or 'local_sgd'"),
    "sync_mode": (True, _is_bool, "a bool"),
    "runtime_split_send_recv": (False, _is_bool, "a bool"),
}


class DistributeTranspilerConfig:
    """fluid.DistributeTranspilerConfig: Paddle 1.8.5's fields and defaults, each checked
    when set; as in Paddle, runtime_split_send_recv=True needs sync_mode=False first (and
    the other way round)."""

    def __init__(self):
        for name, (default, _, _) in _CONFIG_FIELDS.items():
            object.__setattr__(self, name, default)

    def __setattr__(self, name, value):
        if name not in _CONFIG_FIELDS:
            raise AttributeError("DistributeTranspilerConfig has no field %r; the fields are %s"
                                 % (name, sorted(_CONFIG_FIELDS)))
        _, accepts, expected = _CONFIG_FIELDS[name]
        if not accepts(value):
            raise ValueError("DistributeTranspilerConfig.%s must be %s, got %r"
                             % (name, expected, value))
        if value is True and name == "runtime_split_send_recv" and self.sync_mode:
            raise ValueError("runtime_split_send_recv=True needs config.sync_mode = False first")
        if value is True and name == "sync_mode" and self.runtime_split_send_recv:
            raise ValueError("sync_mode=True needs config.runtime_split_send_recv = False first")
        object.__setattr__(self, name, value)


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


class PSDispatcher:
    """Paddle 1.8's parameter-server dispatchers: which endpoint each variable goes to
    (the split_method of DistributeTranspilerConfig). Variables are anything with a name
    (a str, a Variable, or a var desc whose name() is a method)."""

    def __init__(self, pserver_endpoints):
        if isinstance(pserver_endpoints, str) or not pserver_endpoints:
            raise ValueError("%s: pserver_endpoints must be a non-empty list of 'ip:port', "
                             "got %r" % (type(self).__name__, pserver_endpoints))
        self._eps = list(pserver_endpoints)
        self._step = 0

    @property
    def eps(self):
        return self._eps

    def reset(self):
        self._step = 0

    def dispatch(self, varlist):
        raise NotImplementedError


def _var_name(var):
    name = var if isinstance(var, str) else var.name
    return name() if callable(name) else name


class HashName(PSDispatcher):
    """Endpoint hash(name) % len(endpoints): Python's str hash, so (as in Paddle) the
    placement changes between processes unless PYTHONHASHSEED is fixed."""

    def dispatch(self, varlist):
        return [self._eps[hash(_var_name(v)) % len(self._eps)] for v in varlist]


class RoundRobin(PSDispatcher):
    """Endpoints in turn, continuing where the previous dispatch stopped (reset() restarts)."""

    def dispatch(self, varlist):
        chosen = []
        for _ in varlist:
            chosen.append(self._eps[self._step])
            self._step = (self._step + 1) % len(self._eps)
        return chosen


# Paddle 1.8 code imports the dispatchers from their module:
# fluid.transpiler.ps_dispatcher.RoundRobin
globals().update(group(__name__, globals(),
                       {"ps_dispatcher": ["PSDispatcher", "HashName", "RoundRobin"]}))
