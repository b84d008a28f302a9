"""Samplers (indices of one epoch) and batch samplers (lists of indices, one per batch).
Random ones draw from numpy's global generator, as Paddle's do: np.random.seed fixes
the order."""
import math

import numpy as np

from ..reader.decorator import batched

__all__ = ["Sampler", "SequenceSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler", "DistributedBatchSampler"]


def _check_positive_int(value, what, owner):
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value <= 0:
        raise ValueError("%s: %s must be a positive int, got %r" % (owner, what, value))
    return int(value)


def _check_bool(value, what, owner):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError("%s: %s must be a bool, got %r" % (owner, what, value))
    return bool(value)


class Sampler:
    """Base class: __iter__ yields sample indices (and __len__, where known, counts them)."""

    def __init__(self, data_source=None):
        self.data_source = data_source

    def __iter__(self):
        raise NotImplementedError("%s.__iter__ is not implemented" % type(self).__name__)


class SequenceSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """A permutation of the indices (replacement=False), or num_samples indices drawn with
    replacement. `generator`, when given, is an iterator whose values are yielded as the
    indices instead (at most num_samples of them)."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = _check_bool(replacement, "replacement", "RandomSampler")
        if num_samples is not None and not self.replacement:
            raise ValueError("RandomSampler: num_samples=%r is only allowed with "
                             "replacement=True (without replacement every index is drawn "
                             "once)" % (num_samples,))
        self._num_samples = num_samples
        self.generator = generator
        _check_positive_int(self.num_samples, "num_samples", "RandomSampler")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        if self.generator is not None:
            for _, index in zip(range(self.num_samples), self.generator):
                yield index
            return
        n = len(self.data_source)
        if self.replacement:
            yield from np.random.choice(n, self.num_samples, replace=True).tolist()
        else:
            yield from np.random.permutation(n).tolist()

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order, each once (Paddle 2.2 on; an empty sequence is
    a ValueError, as 3.3.1's). The order comes from numpy's global generator like the
    other samplers here; Paddle 3.3.1 draws it with paddle.randperm (paddle.seed)."""

    def __init__(self, indices):
        if len(indices) == 0:
            raise ValueError("SubsetRandomSampler: indices must not be empty")
        self.indices = indices

    def __iter__(self):
        for i in np.random.permutation(len(self.indices)).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """num_samples indices in [0, len(weights)) drawn with probability proportional to
    `weights` (1-D; or 2-D: one draw of num_samples per row, rows concatenated).
    As Paddle's: the arguments are checked when it is made (ValueError), the weights when
    it is iterated (AssertionError: a sampler of bad weights can be made, not drawn from)."""

    def __init__(self, weights, num_samples, replacement=True):
        owner = "WeightedRandomSampler"
        self.num_samples = _check_positive_int(num_samples, "num_samples", owner)
        if not isinstance(replacement, (bool, np.bool_)):
            raise ValueError("%s: replacement must be a bool, got %r" % (owner, replacement))
        self.replacement = bool(replacement)
        w = np.asarray(weights, dtype=np.float64)
        if w.ndim not in (1, 2) or w.shape[-1] == 0:
            raise ValueError("%s: weights must be a non-empty 1-D or 2-D sequence, got shape %s"
                             % (owner, list(w.shape)))
        self.weights = weights
        self._rows = w.reshape(-1, w.shape[-1])

    def _probabilities(self):
        owner = "WeightedRandomSampler"
        rows = self._rows
        if not np.all(np.isfinite(rows)) or np.any(rows < 0):
            raise AssertionError("%s: weights must be finite and non-negative, got %s"
                                 % (owner, rows.tolist()))
        positive = (rows > 0).sum(axis=1)
        if np.any(positive == 0):
            raise AssertionError("%s: every row of weights needs a positive weight" % owner)
        if not self.replacement and np.any(positive < self.num_samples):
            raise AssertionError("%s: replacement=False draws num_samples=%d distinct indices, "
                                 "but a row of weights has only %d positive weights"
                                 % (owner, self.num_samples, positive.min()))
        return rows / rows.sum(axis=1, keepdims=True)

    def __iter__(self):
        draws = [np.random.choice(len(p), self.num_samples, self.replacement, p)
                 for p in self._probabilities()]
        return iter(np.concatenate(draws).tolist())

    def __len__(self):
        return self.num_samples * len(self._rows)


class BatchSampler(Sampler):
    """Lists of batch_size indices from `sampler`, or from a Sequence/RandomSampler over
    `dataset` (shuffle picks which); the last short batch is kept unless drop_last."""

    def __init__(self, dataset=None, sampler=None, shuffle=False, batch_size=1, drop_last=False):
        from .dataset import IterableDataset
        owner = "BatchSampler"
        shuffle = _check_bool(shuffle, "shuffle", owner)
        if dataset is None:
            if sampler is None:
                raise ValueError("BatchSampler: give either dataset or sampler")
            if not isinstance(sampler, Sampler):
                raise TypeError("BatchSampler: sampler must be a paddle.io.Sampler, got %s"
                                % type(sampler).__name__)
            if shuffle:     # AssertionError, as Paddle's
                raise AssertionError("BatchSampler: shuffle must be False when a sampler is given "
                                     "(the sampler decides the order)")
            self.sampler = sampler
        else:
            if sampler is not None:
                raise ValueError("BatchSampler: give either dataset or sampler, not both")
            if isinstance(dataset, IterableDataset):
                raise TypeError("BatchSampler: dataset is an IterableDataset, which has no "
                                "indices; pass it to DataLoader with batch_size instead")
            self.sampler = RandomSampler(dataset) if shuffle else SequenceSampler(dataset)
        self.batch_size = _check_positive_int(batch_size, "batch_size", owner)
        self.drop_last = _check_bool(drop_last, "drop_last", owner)

    def __iter__(self):
        return batched(self.sampler, self.batch_size, self.drop_last)

    def __len__(self):
        return _batch_count(len(self.sampler), self.batch_size, self.drop_last)


def _batch_count(samples, batch_size, drop_last):
    return samples // batch_size if drop_last else -(-samples // batch_size)


class DistributedBatchSampler(BatchSampler):
    """This rank's batches of a dataset shared by num_replicas ranks (defaults:
    paddle.distributed's world size and rank, from mpirun). The index list is padded with
    its own head to a multiple of num_replicas, so every rank gets ceil(n / num_replicas)
    samples; shuffle permutes it with seed = epoch (then epoch += 1; set_epoch sets it), so
    every rank draws the same permutation. Rank r takes the r-th batch_size slice of every
    global batch of batch_size * num_replicas indices, and the r-th equal share of the last,
    short global batch."""

    def __init__(self, dataset, batch_size, num_replicas=None, rank=None, shuffle=False,
                 drop_last=False):
        from .. import distributed
        owner = "DistributedBatchSampler"
        self.dataset = dataset
        self.batch_size = _check_positive_int(batch_size, "batch_size", owner)
        self.shuffle = _check_bool(shuffle, "shuffle", owner)
        self.drop_last = _check_bool(drop_last, "drop_last", owner)
        self.nranks = (distributed.get_world_size() if num_replicas is None
                       else _check_positive_int(num_replicas, "num_replicas", owner))
        if rank is None:
            rank = distributed.get_rank()
        if not isinstance(rank, (int, np.integer)) or isinstance(rank, bool) \
                or not 0 <= rank < self.nranks:
            raise ValueError("%s: rank must be an int in [0, num_replicas=%d), got %r"
                             % (owner, self.nranks, rank))
        self.local_rank = int(rank)
        self.epoch = 0
        self._shuffler = None    # (see _permuted)
        self.num_samples = int(math.ceil(len(dataset) / self.nranks))
        self.total_size = self.num_samples * self.nranks

    def _rank_indices(self):
        n = len(self.dataset)
        indices = list(range(n))
        indices += indices[:self.total_size - n]
        if self.shuffle:
            indices = self._permuted(indices)
            self.epoch += 1
        if self.nranks == 1:
            return indices
        global_batch = self.batch_size * self.nranks
        full = self.total_size - self.total_size % global_batch
        mine = []
        for start in range(0, full, global_batch):
            offset = start + self.local_rank * self.batch_size
            mine.extend(indices[offset:offset + self.batch_size])
        share = (self.total_size - full) // self.nranks
        offset = full + self.local_rank * share
        mine.extend(indices[offset:offset + share])
        return mine

    def _permuted(self, indices):
        """`indices` as np.random.RandomState(epoch).shuffle permutes them (Paddle's
        draw), from one generator reseeded each epoch and shuffling an array: making a
        RandomState seeds a fresh MT19937 from the OS first, and shuffling a list swaps
        Python objects (an epoch of 512 indices: 190-290 us -> 65-80 us here; the
        data-parallel bench's epoch is 4 steps), for the same permutation."""
        if self._shuffler is None:
            self._shuffler = np.random.RandomState()
        self._shuffler.seed(self.epoch)
        order = np.array(indices)
        self._shuffler.shuffle(order)
        return order.tolist()

    def __iter__(self):
        yield from batched(self._rank_indices(), self.batch_size, self.drop_last)

    def __len__(self):
        return _batch_count(self.num_samples, self.batch_size, self.drop_last)

    def set_epoch(self, epoch):
        """Seed of the next shuffle (use the epoch number: every rank then agrees)."""
        self.epoch = epoch
