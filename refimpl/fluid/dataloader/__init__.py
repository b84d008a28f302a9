"""paddle.fluid.dataloader (Paddle 2.0's package behind paddle.io): the datasets and
samplers (refimpl/io's own, under the names 2.0 exports here and fluid.io re-exports;
fluid 1.8's fluid.io has Dataset and BatchSampler) and the worker loop under Paddle's
name (dataloader_iter)."""
from ...io import (BatchSampler, ChainDataset, ComposeDataset, Dataset,
                   DistributedBatchSampler, IterableDataset, RandomSampler, Sampler,
                   SequenceSampler, TensorDataset, WeightedRandomSampler, get_worker_info)
from . import dataloader_iter  # noqa: F401

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "ComposeDataset", "ChainDataset",
           "BatchSampler", "DistributedBatchSampler", "Sampler", "SequenceSampler",
           "RandomSampler", "WeightedRandomSampler", "get_worker_info"]
