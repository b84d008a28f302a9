"""Which device a thread is running for, so communication ops (which must not import the
engine) can find their communicator. The engine sets it around each device's run."""
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


def set_current(ctx):
    _local.ctx = ctx


def current():
    """The running device's context, or None outside data-parallel execution."""
    return getattr(_local, "ctx", None)
