"""A place's handle on its communicator: the `group` the executor binds to collective ops
(c_allreduce_sum, c_broadcast, sync_batch_norm, ...), so ops never import parallel.

On a GPU place the arrays are CuPy arrays: the group stages them through the host for the
communicator (threads in one process, MPI across processes), or, where every place of the
process is a GPU and CuPy has NCCL, hands them to an NcclClique instead (specs/gpu.md)."""
from ..xp import device, is_device_array, to_device, to_host

__all__ = ["DeviceGroup", "set_process_group", "process_group"]


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

    def allreduce(self, arrays, reduction="sum"):
        """The sums (max, min, products) over places of `arrays` (new arrays)."""
        if self.nccl is not None and reduction == "sum":
            return self.nccl.allreduce(self.local_rank, arrays)
        on_gpu = any(is_device_array(a) for a in arrays)
        results = self.communicator.allreduce(
            self.local_rank, [to_host(a) for a in arrays] if on_gpu else arrays,
            op=self.collective, reduction=reduction)
        return self._like(on_gpu, results)

    def broadcast(self, arrays, roots):
        """In place: array i takes place roots[i]'s value."""
        staged = [to_host(a) for a in arrays]
        self.communicator.broadcast(self.local_rank, staged, roots, op=self.collective)
        for a, s in zip(arrays, staged):
            if s is not a:
                a[...] = to_device(s)

    def allgather(self, array):
        """Every place's `array`, in global rank order (a list)."""
        parts = self.communicator.allgather(self.local_rank, to_host(array))
        return self._like(is_device_array(array), parts)

    def barrier(self):
        self.communicator.barrier(self.local_rank)

    def _like(self, on_gpu, host_arrays):
        """`host_arrays` moved to this place's GPU when the inputs were there."""
        if not on_gpu:
            return host_arrays
        with device(self.device_id):
            return [to_device(a) for a in host_arrays]


_process_group = None


def set_process_group(group):
    """This process's own device in the job (paddle.distributed.init_parallel_env): the
    group an Executor binds to collective ops outside a data-parallel program."""
    global _process_group
    _process_group = group


def process_group():
    """The group set by set_process_group, or None (collectives stay local)."""
    return _process_group
