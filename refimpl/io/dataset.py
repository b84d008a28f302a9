"""Datasets: map-style (`Dataset`: __getitem__ + __len__) and iterable-style
(`IterableDataset`: __iter__), and the compositions paddle.io offers over them."""
import numpy as np

from ..framework import random as _random
from ..framework.errors import NoLengthError

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "ComposeDataset", "ChainDataset",
           "Subset", "random_split"]


class Dataset:
    """A map-style dataset: subclasses implement __getitem__(idx) -> sample and __len__."""

    def __getitem__(self, idx):
        raise NotImplementedError("'__getitem__' is not implemented in class %s"
                                  % type(self).__name__)

    def __len__(self):
        raise NotImplementedError("'__len__' is not implemented in class %s"
                                  % type(self).__name__)


class IterableDataset(Dataset):
    """An iterable-style dataset: subclasses implement __iter__ yielding samples. Under a
    DataLoader with workers each worker iterates its own copy: split the stream with
    paddle.io.get_worker_info() to avoid duplicates."""

    def __iter__(self):
        raise NotImplementedError("'__iter__' is not implemented in class %s"
                                  % type(self).__name__)

    def __getitem__(self, idx):
        raise RuntimeError("%s is an IterableDataset: it has no __getitem__; iterate it"
                           % type(self).__name__)

    def __len__(self):
        raise NoLengthError("%s is an IterableDataset: it has no __len__"
                            % type(self).__name__)


class TensorDataset(Dataset):
    """Samples are the idx-th rows of each of `tensors` (arrays or tensors sharing dim 0):
    dataset[i] == (tensors[0][i], tensors[1][i], ...)."""

    def __init__(self, tensors):
        if not isinstance(tensors, (list, tuple)) or not tensors:
            raise TypeError("TensorDataset: tensors must be a non-empty list or tuple of "
                            "arrays, got %r" % (tensors,))
        lengths = []
        # eager Tensors give their values: a row is then an array, not an indexing op
        tensors = [t.numpy() if _is_eager_tensor(t) else t for t in tensors]
        for i, tensor in enumerate(tensors):
            if _is_static_variable(tensor):
                raise TypeError("TensorDataset: tensors[%d] %r is a static-graph Variable, "
                                "which holds no values; pass numpy arrays"
                                % (i, tensor.name))
            if not hasattr(tensor, "shape") or not hasattr(tensor, "__getitem__"):
                raise TypeError("TensorDataset: tensors[%d] must be an array or tensor "
                                "(with shape and indexing), got %s" % (i, type(tensor).__name__))
            if len(tensor.shape) == 0:
                raise ValueError("TensorDataset: tensors[%d] is a scalar; each tensor needs a "
                                 "first (sample) dimension" % i)
            lengths.append(tensor.shape[0])
        if len(set(lengths)) != 1:
            raise ValueError("TensorDataset: the tensors must have the same size in dim 0, got "
                             "sizes %s" % lengths)
        self.tensors = tensors

    def __getitem__(self, idx):
        return tuple(tensor[idx] for tensor in self.tensors)

    def __len__(self):
        return self.tensors[0].shape[0]


def _is_static_variable(obj):
    from ..framework.program import Variable
    return isinstance(obj, Variable) and not _is_eager_tensor(obj)


def _is_eager_tensor(obj):
    from ..dygraph.tensor import Tensor
    return isinstance(obj, Tensor)


def _fields(sample):
    return list(sample) if isinstance(sample, (list, tuple)) else [sample]


class ComposeDataset(Dataset):
    """Map-style datasets of equal length side by side: sample i is the fields of every
    dataset's sample i, concatenated into one tuple."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("ComposeDataset: datasets must not be empty")
        for i, dataset in enumerate(self.datasets):
            if not isinstance(dataset, Dataset):
                raise TypeError("ComposeDataset: datasets[%d] must be a paddle.io.Dataset, "
                                "got %s" % (i, type(dataset).__name__))
            if isinstance(dataset, IterableDataset):
                raise TypeError("ComposeDataset: datasets[%d] is an IterableDataset; only "
                                "map-style datasets can be composed" % i)
        lengths = [len(d) for d in self.datasets]
        if len(set(lengths)) != 1:
            raise ValueError("ComposeDataset: the datasets must have the same length, got %s"
                             % lengths)

    def __len__(self):
        return len(self.datasets[0])

    def __getitem__(self, idx):
        sample = []
        for dataset in self.datasets:
            sample.extend(_fields(dataset[idx]))
        return tuple(sample)


class ChainDataset(IterableDataset):
    """Iterable datasets one after the other: every sample of datasets[0], then of
    datasets[1], ..."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        for i, dataset in enumerate(self.datasets):
            if not isinstance(dataset, IterableDataset):
                raise TypeError("ChainDataset: datasets[%d] must be a paddle.io.IterableDataset"
                                ", got %s" % (i, type(dataset).__name__))

    def __iter__(self):
        for dataset in self.datasets:
            yield from dataset


class Subset(Dataset):
    """The samples of `dataset` at `indices`, in that order."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = list(indices)

    def __getitem__(self, idx):
        return self.dataset[self.indices[idx]]

    def __len__(self):
        return len(self.indices)


def random_split(dataset, lengths, generator=None):
    """Split `dataset` into Subsets of the given lengths (summing to len(dataset)), over a
    random permutation from the global generator (paddle.seed) or `generator` (a
    numpy RandomState / Generator)."""
    lengths = list(lengths)
    for n in lengths:
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 0:
            raise ValueError("random_split: lengths must be non-negative ints, got %r"
                             % (lengths,))
    if sum(lengths) != len(dataset):
        raise ValueError("random_split: the lengths %s sum to %d, but the dataset has %d "
                         "samples" % (lengths, sum(lengths), len(dataset)))
    rng = generator if generator is not None else _random.rng_for(0)
    order = rng.permutation(len(dataset)).tolist()
    ends = np.cumsum(lengths).tolist()
    return [Subset(dataset, order[end - n:end]) for n, end in zip(lengths, ends)]
