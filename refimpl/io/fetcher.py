"""Turning one request into one batch, the same way in the main process and in a worker.

A request is what the main process sends for one batch: a list of indices (map-style
dataset, automatic batching), one index (map-style, batch_size=None), or the number of
samples to take (iterable dataset: batch_size, or None for one sample)."""
from .dataset import IterableDataset


class Exhausted(Exception):
    """An iterable dataset has no more samples for this request."""


class Fetcher:
    def __init__(self, dataset, auto_collate, collate_fn, drop_last):
        self.dataset = dataset
        self.iterable = isinstance(dataset, IterableDataset)
        self.auto_collate = auto_collate
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self._samples = None   # the iterable dataset's iterator, opened on first use
        self._ended = False

    def restart(self):
        """A new epoch: an iterable dataset is iterated afresh."""
        self._samples = None
        self._ended = False

    def fetch(self, request):
        if not self.iterable:
            if self.auto_collate:
                return self.collate_fn([self.dataset[i] for i in request])
            return self.collate_fn(self.dataset[request])
        if self._ended:
            raise Exhausted()
        if self._samples is None:
            self._samples = iter(self.dataset)
        samples = []
        for _ in range(request if self.auto_collate else 1):
            try:
                samples.append(next(self._samples))
            except StopIteration:
                self._ended = True
                break
        if not samples or (self.drop_last and self._ended):
            raise Exhausted()
        return self.collate_fn(samples if self.auto_collate else samples[0])
