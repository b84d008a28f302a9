"""A device's handle on its communicator: the `group` the executor binds to collective ops
(c_allreduce_sum, c_broadcast, sync_batch_norm, ...), so ops never import parallel."""

__all__ = ["DeviceGroup"]


class DeviceGroup:
    """Device `local_rank` of `communicator`: the collectives of refimpl.parallel's
    communicators, called for this device."""

    def __init__(self, communicator, local_rank):
        self.communicator = communicator
        self.local_rank = local_rank

    @property
    def global_rank(self):
        return self.communicator.global_rank(self.local_rank)

    @property
    def nranks(self):
        return self.communicator.nranks

    def allreduce(self, arrays):
        """The sums over devices of `arrays` (new arrays)."""
        return self.communicator.allreduce(self.local_rank, arrays)

    def broadcast(self, arrays, roots):
        """In place: array i takes device roots[i]'s value."""
        self.communicator.broadcast(self.local_rank, arrays, roots)
