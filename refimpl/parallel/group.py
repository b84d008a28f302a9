"""A place's handle on its communicator: the `group` the executor binds to collective ops
(c_allreduce_sum, c_broadcast, sync_batch_norm, ...), so ops never import parallel.

On a GPU place the arrays are CuPy arrays: the group stages them through the host for the
communicator (threads in one process, MPI across processes), or, where every place of the
process is a GPU and CuPy has NCCL, hands them to an NcclClique instead (specs/gpu.md)."""
from ..xp import device, is_device_array, to_device, to_host

__all__ = ["DeviceGroup"]


class DeviceGroup:
    """Place `local_rank` of `communicator`: the communicator's collectives, called for this
    place. `collective` names the op making the calls (the executor binds each collective
    op a group of its own, `for_op`), so a mismatch or a stall report names it.
    `device_id`: the GPU the place's arrays live on (None: the CPU); `nccl`: the
    process's NcclClique when its places are all GPUs and NCCL is there."""

    def __init__(self, communicator, local_rank, collective=None, device_id=None, nccl=None):
        self.communicator = communicator
        self.local_rank = local_rank
        self.collective = collective
        self.device_id = device_id
        self.nccl = nccl

    def for_op(self, label):
        """This place's group, its calls made by the op `label` describes."""
        return DeviceGroup(self.communicator, self.local_rank, label, self.device_id,
                           self.nccl)

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

    def allreduce(self, arrays):
        """The sums over places of `arrays` (new arrays)."""
        if self.nccl is not None:
            return self.nccl.allreduce(self.local_rank, arrays)
        on_gpu = any(is_device_array(a) for a in arrays)
        sums = self.communicator.allreduce(
            self.local_rank, [to_host(a) for a in arrays] if on_gpu else arrays,
            op=self.collective)
        if not on_gpu:
            return sums
        with device(self.device_id):
            return [to_device(s) for s in sums]

    def broadcast(self, arrays, roots):
        """In place: array i takes place roots[i]'s value."""
        staged = [to_host(a) for a in arrays]
        self.communicator.broadcast(self.local_rank, staged, roots, op=self.collective)
        for a, s in zip(arrays, staged):
            if s is not a:
                a[...] = to_device(s)
