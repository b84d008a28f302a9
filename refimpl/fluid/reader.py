"""DataLoader.from_generator (fluid.io.DataLoader is paddle.io.DataLoader, as in Paddle 2.0)
and fluid.io.PyReader (Paddle 1.8): feed a program from a Python generator.

A loader has a source (set_sample_generator: one sample at a time, batched here;
set_sample_list_generator: lists of samples; set_batch_generator: whole batches) and is
either iterable -- `for feed in loader(): exe.run(feed=feed)`, each step a list of one feed
dict per place, or with return_list=True a list of arrays per place -- or not: then
`loader.start()` and each `exe.run()` takes the next batch itself until EOFException,
then `loader.reset()` (a fluid.layers PyReader over the feed variables, layers/readers.py).
A loader made in dynamic mode (Paddle 1.8's dygraph loader) needs no feed_list and is
always iterable: each step is one batch, a list of eager Tensors (one per field).
"""
import numpy as np

from ..framework import mode
from ..framework.errors import EnforceNotMet
from ..framework.program import Variable
from ..io import DataLoader
from ..io.collate import default_collate_fn as _collate
from ..layers.readers import PyReader as _ProgramReader

__all__ = ["DataLoader", "PyReader", "GeneratorLoader", "default_collate_fn"]


def default_collate_fn(batch):
    """Paddle 1.8's collate: a list of samples -> a list with one stacked array per field
    (a sample that is one ndarray is one field)."""
    if isinstance(batch[0], np.ndarray):
        return [_collate(batch)]
    return list(_collate(batch))


def _places_count(places):
    if places is None:
        return 1
    if isinstance(places, (list, tuple)):
        if not places:
            raise ValueError("DataLoader: places must not be empty")
        return len(places)
    return 1


class GeneratorLoader:
    """What DataLoader.from_generator returns."""

    def __init__(self, feed_list=None, capacity=None, use_double_buffer=True, iterable=True,
                 return_list=False, drop_last=True):
        if capacity is None:
            raise ValueError("DataLoader.from_generator: Please give value to capacity. (the "
                             "number of batches to queue, a positive int)")
        self._dynamic = mode.dynamic
        if self._dynamic:
            feed_list, iterable, return_list = [], True, True
        elif not feed_list:
            raise ValueError("DataLoader.from_generator: feed_list (the data Variables to "
                             "fill) is required in static mode")
        for i, v in enumerate(feed_list):
            if not isinstance(v, Variable):
                raise TypeError("DataLoader.from_generator: feed_list[%d] must be a Variable, "
                                "got %s" % (i, type(v).__name__))
        if not isinstance(capacity, int) or capacity < 1:
            raise ValueError("DataLoader.from_generator: capacity must be a positive int, "
                             "got %r" % (capacity,))
        self._feed_list = list(feed_list)
        self._iterable = bool(iterable)
        self._return_list = bool(return_list)
        self._drop_last = bool(drop_last)
        self._batches = None        # () -> iterator of batches (lists of arrays)
        self._places = 1
        self._reader = None if self._iterable else _ProgramReader(self._feed_list,
                                                                  "DataLoader")
        if self._reader is not None:
            self._reader.drop_last = self._drop_last

    # -- sources
    def set_sample_generator(self, reader, batch_size, drop_last=True, places=None):
        """`reader()` yields samples (one field per feed variable), batched here."""
        if not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError("set_sample_generator: batch_size must be a positive int, got %r"
                             % (batch_size,))

        def sample_lists():
            samples = []
            for sample in reader():
                samples.append(sample)
                if len(samples) == batch_size:
                    yield samples
                    samples = []
            if samples and not drop_last:
                yield samples
        return self.set_sample_list_generator(sample_lists, places)

    def set_sample_list_generator(self, reader, places=None):
        """`reader()` yields lists of samples; each list becomes one batch."""
        def batches():
            for samples in reader():
                fields = [list(f) for f in zip(*samples)]
                yield [np.stack([np.asarray(v) for v in field]) for field in fields]
        return self.set_batch_generator(batches, places)

    def set_batch_generator(self, reader, places=None):
        """`reader()` yields batches: a tuple / list of arrays, one per feed variable."""
        if not callable(reader):
            raise TypeError("DataLoader: the generator must be a callable returning an "
                            "iterator, got %s" % type(reader).__name__)
        self._batches = reader
        self._places = _places_count(places)
        if self._reader is not None:
            self._reader.decorate_batch_generator(reader)
        return self

    @property
    def iterable(self):
        return self._iterable

    @property
    def return_list(self):
        return self._return_list

    # -- iterable use
    def _feed(self, batch):
        batch = list(batch) if isinstance(batch, (list, tuple)) else [batch]
        if self._dynamic:
            return self._tensors(batch)
        if len(batch) != len(self._feed_list):
            raise ValueError("DataLoader: a batch has %d fields but feed_list has %d "
                             "variables %s" % (len(batch), len(self._feed_list),
                                               [v.name for v in self._feed_list]))
        arrays = [np.asarray(b, dtype=v.dtype.name) for v, b in zip(self._feed_list, batch)]
        if self._return_list:
            return arrays
        return {v.name: a for v, a in zip(self._feed_list, arrays)}

    def __iter__(self):
        if not self._iterable:
            raise RuntimeError("DataLoader: this loader is not iterable (iterable=False); "
                               "call start() and run the program until EOFException")
        if self._batches is None:
            raise RuntimeError("DataLoader: set a generator first (set_sample_generator, "
                               "set_sample_list_generator or set_batch_generator)")
        step = []
        for batch in self._batches():
            if self._dynamic:
                yield self._feed(batch)
                continue
            step.append(self._feed(batch))
            if len(step) == self._places:
                yield step
                step = []
        if step and not self._drop_last:
            yield step

    def __call__(self):
        return iter(self)

    @staticmethod
    def _tensors(batch):
        """Dynamic mode: the batch's fields as eager Tensors."""
        tensors = []
        for i, field in enumerate(batch):
            try:
                array = np.asarray(field.numpy() if hasattr(field, "numpy") else field)
                if array.dtype == object:
                    raise ValueError("its samples have different shapes")
            except ValueError as e:
                raise EnforceNotMet(
                    "DataLoader: field %d of a batch cannot be one array (%s); Blocking "
                    "queue is killed because the data reader raised an exception" % (i, e)) \
                    from None
            tensors.append(mode.eager.Tensor(array))
        return tensors

    # -- non-iterable use
    def _program_reader(self, what):
        if self._reader is None:
            raise RuntimeError("DataLoader.%s(): only for loaders made with iterable=False"
                               % what)
        return self._reader

    def start(self):
        self._program_reader("start").start()

    def reset(self):
        self._program_reader("reset").reset()

    # PyReader's spellings
    decorate_sample_generator = set_sample_generator
    decorate_sample_list_generator = set_sample_list_generator
    decorate_batch_generator = set_batch_generator


class PyReader(GeneratorLoader):
    """fluid.io.PyReader(feed_list, capacity, use_double_buffer, iterable, return_list)."""

    def __init__(self, feed_list=None, capacity=None, use_double_buffer=True, iterable=True,
                 return_list=False):
        super().__init__(feed_list, capacity, use_double_buffer, iterable, return_list)
