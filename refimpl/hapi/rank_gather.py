"""Evaluation and prediction under mpirun (specs/hapi_model.md, "Under mpirun").

Each rank runs its share of every global batch (DistributedBatchSampler: rank r takes
slice r of it), so the per-sample results of all ranks, concatenated in rank order, are
the global batch in the dataset's order. The sampler pads the dataset with its own head to
a multiple of the world size; the padding is the tail of the last merged batch and is cut
off, so every sample is counted once."""
import numpy as np

from ..parallel.launch import mpi_comm

__all__ = ["BatchMerger"]


class BatchMerger:
    """Merges one run's per-rank results. `total`: the number of samples of the run (None
    when unknown: nothing is cut)."""

    def __init__(self, total):
        self.total = total
        self.seen = 0
        self.last_batch = None     # samples of the last merged batch

    @staticmethod
    def active():
        return mpi_comm() is not None

    def merge(self, arrays):
        """The arrays (first dim: samples) of every rank, concatenated in rank order, the
        padding cut off; each rank gets the same result."""
        arrays = [np.asarray(a) for a in arrays]
        comm = mpi_comm()
        if comm is not None:
            by_rank = comm.allgather(arrays)
            arrays = [np.concatenate(parts, axis=0) for parts in zip(*by_rank)]
        if self.total is not None and arrays:
            keep = max(self.total - self.seen, 0)
            arrays = [a[:keep] for a in arrays]
        self.last_batch = len(arrays[0]) if arrays else 0
        self.seen += self.last_batch
        return arrays
