"""paddle.io: datasets, samplers and the DataLoader (specs/io_dataloader.md)."""
from .collate import default_collate_fn, default_convert_fn
from .dataloader import DataLoader, set_output_converter
from .dataset import (ChainDataset, ComposeDataset, Dataset, IterableDataset, Subset,
                      TensorDataset, random_split)
from .sampler import (BatchSampler, DistributedBatchSampler, RandomSampler, Sampler,
                      SequenceSampler, SubsetRandomSampler, WeightedRandomSampler)
from .worker import WorkerInfo, get_worker_info

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "ComposeDataset", "ChainDataset",
           "Subset", "random_split", "Sampler", "SequenceSampler", "RandomSampler",
           "SubsetRandomSampler", "WeightedRandomSampler", "BatchSampler", "DistributedBatchSampler", "DataLoader",
           "get_worker_info"]
