"""A place's handle on its communicator: the `group` the executor binds to collective ops
(c_allreduce_sum, c_broadcast, sync_batch_norm, ...), so ops never import parallel."""

__all__ = ["DeviceGroup", "set_process_group", "process_group"]


class DeviceGroup:
    """Place `local_rank` of `communicator`: the communicator's collectives, called for this
    place. `collective` names the op making the calls (the executor binds each collective
    op a group of its own, `for_op`), so a mismatch or a stall report names it."""

    def __init__(self, communicator, local_rank, collective=None):
        self.communicator = communicator
        self.local_rank = local_rank
        self.collective = collective

    def for_op(self, label):
        """This place's group, its calls made by the op `label` describes."""
        return DeviceGroup(self.communicator, self.local_rank, label)

    @property
    def watch(self):
        """The StallWatch of the runs this place takes part in."""
        return self.communicator.watch

    @property
    def global_rank(self):
        return self.communicator.global_rank(self.local_rank)

    @property
    def nranks(self):
        return self.communicator.nranks

    def allreduce(self, arrays, reduction="sum"):
        """The sums (max, min, products) over places of `arrays` (new arrays)."""
        return self.communicator.allreduce(self.local_rank, arrays, op=self.collective,
                                           reduction=reduction)

    def broadcast(self, arrays, roots):
        """In place: array i takes place roots[i]'s value."""
        self.communicator.broadcast(self.local_rank, arrays, roots, op=self.collective)

    def allgather(self, array):
        """Every place's `array`, in global rank order (a list)."""
        return self.communicator.allgather(self.local_rank, array)

    def barrier(self):
        self.communicator.barrier(self.local_rank)


_process_group = None


def set_process_group(group):
    """This process's own device in the job (paddle.distributed.init_parallel_env): the
    group an Executor binds to collective ops outside a data-parallel program."""
    global _process_group
    _process_group = group


def process_group():
    """The group set by set_process_group, or None (collectives stay local)."""
    return _process_group
