"""Which device a thread is running for, so communication ops (which must not import the
engine) can find their communicator. The engine sets it around each device's run; outside
one, the process's own device once paddle.distributed.init_parallel_env has set it (its
World: eager collectives and sync_batch_norm span the processes)."""
import threading

_local = threading.local()


class DeviceContext:
    """A device's view of the job: its global index, the communicator it talks through,
    and the collective op it is running (set by stall.label_collectives; a place runs one
    collective at a time)."""

    def __init__(self, communicator, local_rank):
        self.communicator = communicator
        self.local_rank = local_rank
        self.collective = None

    @property
    def watch(self):
        """The StallWatch of the run this device takes part in."""
        return self.communicator.watch

    @property
    def global_rank(self):
        return self.communicator.global_rank(self.local_rank)

    @property
    def nranks(self):
        return self.communicator.nranks


_process = None


def set_current(ctx):
    _local.ctx = ctx


def set_process_default(ctx):
    """The context of every thread that has none set (init_parallel_env: the World)."""
    global _process
    _process = ctx


def current():
    """The running device's context, else the process's, else None (one device)."""
    return getattr(_local, "ctx", None) or _process
