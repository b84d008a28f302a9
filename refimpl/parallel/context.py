"""Which device a thread is running for, so communication ops (which must not import the
engine) can find their communicator. The engine sets it around each device's run."""
import threading

_local = threading.local()


class DeviceContext:
    """A device's view of the job: its global index and the communicator it talks through."""

    def __init__(self, communicator, local_rank):
        self.communicator = communicator
        self.local_rank = local_rank

    @property
    def global_rank(self):
        return self.communicator.global_rank(self.local_rank)

    @property
    def nranks(self):
        return self.communicator.nranks


def set_current(ctx):
    _local.ctx = ctx


def current():
    """The running device's context, or None outside data-parallel execution."""
    return getattr(_local, "ctx", None)
