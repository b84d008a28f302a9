"""DataLoader.from_generator (fluid.io.DataLoader is paddle.io.DataLoader, as in Paddle 2.0,
but for 1.8's places check) and fluid.io.PyReader (Paddle 1.8): feed a program from a Python generator.

A loader has a source (set_sample_generator: one sample at a time, batched here;
set_sample_list_generator: lists of samples, converted as fluid.DataFeeder does;
set_batch_generator: whole batches) and, as in Paddle, a thread that reads the source and
pushes its batches (lists of LoDTensors) into a bounded blocking queue (`loader.queue`,
framework/blocking_queue.py). The loader is either iterable -- `for feed in loader():
exe.run(feed=feed)`, each step a list of one feed dict (name -> LoDTensor) per place, or
with return_list=True a list of LoDTensors per place; each pass starts the source again,
`_reset()` stops a pass left early -- or not: then its `read` op is in the main program,
`loader.start()` starts the thread and each `exe.run()` takes the next batch itself until
EOFException, then `loader.reset()` (a fluid.layers PyReader over the feed variables,
layers/readers.py). If the source raises, the queue is killed and the reading side gets an
EnforceNotMet. A loader made in dynamic mode (Paddle 1.8's dygraph loader) needs no
feed_list and is always iterable: each step is one batch, a list of eager Tensors.
specs/fluid_io.md#dataloaderfrom_generator-and-pyreader.
"""

import os
import queue
import time
import traceback

import numpy as np

from ..framework import mode
from ..framework.blocking_queue import KILLED, FedQueue, as_lod_tensors
from ..framework.errors import (EOFException, ReaderKilledError, TensorValueError,
                                WorkerProcessError)
from ..framework.place import CPUPlace
from ..io import DataLoader as _DataLoader
from ..io.collate import default_collate_fn as _collate
from ..io.dataloader import static_feed_list
from ..layers.readers import PyReader as _ProgramReader, read_file
from ..reader.decorator import batch
from .data_feeder import DataFeeder
from .dataset import DatasetBase
# CleanupFuncRegistrar, _cleanup: Paddle's fluid.reader has them from multiprocess_utils too
from .multiprocess_utils import (CleanupFuncRegistrar, _cleanup,  # noqa: F401
                                 multiprocess_queue_set)
from ..io.worker import SegmentWriter, close_queue, take_shared, unlink_segments_with_prefix
from ..io.processes import (erase_process_pids, exit_description, loader_context,
                            set_process_pids, set_up_loader_process, stop_process)

__all__ = ["DataLoader", "PyReader", "GeneratorLoader", "DygraphGeneratorLoader",
           "DataLoaderBase", "default_collate_fn", "keep_data_loader_order", "use_pinned_memory"]

QUEUE_GET_TIMEOUT = 60   # seconds a multi-process reader may take for one batch (Paddle's)

_keep_order = [True]
_pinned_memory = [None]


def keep_data_loader_order(*args):
    """keep_data_loader_order() -> whether loaders made from now on keep the order of
    their batches across places; keep_data_loader_order(flag) sets it (a bool). Paddle
    1.8's unordered loaders let each place take whichever batch comes next; refimpl's
    places read their batches in turn either way (one of the orders Paddle allows)."""
    if not args:
        return _keep_order[0]
    if len(args) != 1 or not isinstance(args[0], bool):
        raise AssertionError("keep_data_loader_order: takes one bool, got %r" % (args,))
    _keep_order[0] = args[0]


def use_pinned_memory(*args):
    """use_pinned_memory() -> the pinned-memory flag of loaders made from now on (None: not
    set); use_pinned_memory(flag) sets it (a bool; Paddle 2.0). refimpl's loaders hold
    their batches in host memory either way: the flag changes no value."""
    if not args:
        return _pinned_memory[0]
    if len(args) != 1 or not isinstance(args[0], bool):
        raise AssertionError("use_pinned_memory: takes one bool, got %r" % (args,))
    _pinned_memory[0] = args[0]


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


def _check_capacity(capacity):
    if capacity is None:
        raise ValueError("DataLoader.from_generator: Please give value to capacity. (the "
                         "number of batches to queue, a positive int)")
    if not isinstance(capacity, int) or capacity < 1:
        raise ValueError("DataLoader.from_generator: capacity must be a positive int, "
                         "got %r" % (capacity,))


def _sample_lists(reader, batch_size, drop_last):
    """`reader()`'s samples in lists of batch_size (the last shorter one unless
    drop_last)."""
    if not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError("set_sample_generator: batch_size must be a positive int, got %r"
                         % (batch_size,))
    return batch(reader, batch_size, drop_last)


class DataLoader(_DataLoader):
    """fluid.io.DataLoader: paddle.io's, except that Paddle 1.8's over a Dataset needs its
    places (switch dataloader_places_required; 1.8.5's AssertionError)."""
    _places_required = "dataloader_places_required"


class DataLoaderBase:
    """What Paddle 1.8's loaders share: calling one gives itself (to iterate), and the
    check of a generator's fields."""

    def __call__(self):
        return self

    def __iter__(self):
        raise NotImplementedError("%s does not iterate" % type(self).__name__)

    def __next__(self):
        raise NotImplementedError("%s does not iterate" % type(self).__name__)

    def next(self):
        return self.__next__()

    def set_sample_generator(self, reader, batch_size, drop_last=True, places=None):
        """`reader()` yields samples (one field per feed variable), batched here."""
        return self.set_sample_list_generator(_sample_lists(reader, batch_size, drop_last),
                                              places)

    decorate_sample_generator = set_sample_generator    # PyReader's spelling

    @staticmethod
    def _check_batch_generator(reader):
        if not callable(reader):
            raise TypeError("DataLoader: the generator must be a callable returning an "
                            "iterator, got %s" % type(reader).__name__)

    @classmethod
    def _check_input_array(cls, item):
        """A generator's field as an ndarray; a TypeError when it is ragged (nested lists of
        different lengths), which only a LoDTensor can hold."""
        try:
            arr = np.asarray(item)
        except ValueError:      # numpy >= 1.24 refuses ragged nests itself
            arr = None
        if arr is None or arr.dtype == object:
            raise TypeError(
                "Failed to convert input data to a regular ndarray: the data contains nested "
                "lists of different lengths. Check the generator passed to "
                "set_batch_generator / decorate_batch_generator; use "
                "fluid.create_lod_tensor to make a LoDTensor of such data.")
        return arr


class GeneratorLoader(DataLoaderBase):
    """What DataLoader.from_generator returns in static mode."""

    def __init__(self, feed_list=None, capacity=None, use_double_buffer=True, iterable=True,
                 return_list=False, drop_last=True):
        _check_capacity(capacity)
        self._feed_list = static_feed_list(feed_list, "DataLoader.from_generator",
                                           "(the data Variables to fill) is required in "
                                           "static mode")
        self._iterable = bool(iterable)
        self._return_list = bool(return_list)
        self._drop_last = bool(drop_last)
        self._keep_order = keep_data_loader_order()
        self._batches = None        # () -> iterator of batches
        self._places = 1
        if self._iterable:      # each pass starts a thread filling the queue
            self._reader = FedQueue(capacity, "DataLoader queue")
        else:   # Paddle puts the loader's read op in the main program at once
            self._reader = _ProgramReader(self._feed_list, "DataLoader", capacity,
                                          use_double_buffer)
            self._reader.drop_last = self._drop_last
            read_file(self._reader)

    # -- sources
    def set_sample_list_generator(self, reader, places=None):
        """`reader()` yields lists of samples; each list becomes one batch, each field
        converted to its variable's dtype and shape (and LoD) as fluid.DataFeeder does."""
        feeder = DataFeeder(self._feed_list, CPUPlace())

        def batches():
            for samples in reader():
                fed = feeder.feed(samples)
                yield [fed[v.name] for v in self._feed_list]
        return self.set_batch_generator(batches, places)

    def set_batch_generator(self, reader, places=None):
        """`reader()` yields batches: a tuple / list of arrays or LoDTensors, one per feed
        variable."""
        self._check_batch_generator(reader)
        self._batches = reader
        self._places = _places_count(places)
        if not self._iterable:
            self._reader.decorate_batch_generator(reader)
        return self

    @property
    def queue(self):
        return self._reader.queue

    @property
    def iterable(self):
        return self._iterable

    @property
    def return_list(self):
        return self._return_list

    def _to_tensors(self, batch):
        return as_lod_tensors(batch, self._check_input_array)

    # -- iterable use
    def __iter__(self):
        if not self._iterable:
            raise RuntimeError("DataLoader: this loader is not iterable (iterable=False); "
                               "call start() and run the program until EOFException")
        if self._batches is None:
            raise RuntimeError("DataLoader: set a generator first (set_sample_generator, "
                               "set_sample_list_generator or set_batch_generator)")
        self._reset()           # a pass left early: its thread stops
        self._reader.feed_from(self._batches, self._to_tensors)
        return self

    def __next__(self):
        if self._reader.thread is None:
            raise StopIteration
        step = []
        try:
            while len(step) < self._places:
                step.append(self._feed(self._reader.queue.pop()))
        except EOFException:
            if self._drop_last or not step:
                self._reset()
                raise StopIteration from None
        return step

    def _feed(self, batch):
        if len(batch) != len(self._feed_list):
            raise ValueError("DataLoader: a batch has %d fields but feed_list has %d "
                             "variables %s" % (len(batch), len(self._feed_list),
                                               [v.name for v in self._feed_list]))
        if self._return_list:
            return batch
        return {v.name: t for v, t in zip(self._feed_list, batch)}

    def _reset(self):
        """Stop the reading thread (a pass left early, or the end of the data) and empty
        and reopen the queue (Paddle's name: its loader tests call it too)."""
        self._reader.reset()

    # -- non-iterable use
    def _program_reader(self, what):
        if self._iterable:
            raise RuntimeError("DataLoader.%s(): only for loaders made with iterable=False"
                               % what)
        return self._reader

    def start(self):
        self._program_reader("start").start(self._check_input_array)

    def reset(self):
        self._program_reader("reset").reset()

    # PyReader's spellings
    decorate_sample_list_generator = set_sample_list_generator
    decorate_batch_generator = set_batch_generator


def _batch_arrays(batch):
    """A generator's batch as the list of its fields' arrays (a batch that is not a list
    or tuple is one field); TensorValueError (an EnforceNotMet and a ValueError) when a
    field cannot be one array (None, samples of different shapes)."""
    fields = list(batch) if isinstance(batch, (list, tuple)) else [batch]
    arrays = []
    for i, field in enumerate(fields):
        try:
            array = np.asarray(field.numpy() if hasattr(field, "numpy") else field)
            if array.dtype == object:
                raise ValueError("it is %s" % ("None" if field is None else
                                               "samples of different shapes"))
        except ValueError as e:
            raise TensorValueError(
                "DataLoader: field %d of a batch cannot be one array (%s); %s"
                % (i, e, KILLED)) from None
        arrays.append(array)
    return arrays


def _segment_prefix(pid):
    """The names of the shared-memory segments reader process `pid` writes."""
    return "rfrd%x" % pid


def _reader_process_loop(batch_reader, data_queue):
    """What a multi-process from_generator reader runs (Paddle's fluid.reader function):
    put each batch of `batch_reader()` on `data_queue` as its list of arrays (those of 16
    KiB or more in shared memory, as a DataLoader worker sends them: the queue's pipe
    carries only their names), then None. A batch that cannot be arrays raises here
    (TensorValueError). In the reader process SIGINT is ignored and the fault handler
    installed first; run in the caller's own process (Paddle's tests do) it leaves them
    as they were (set_up_loader_process)."""
    set_up_loader_process()
    share = SegmentWriter(_segment_prefix(os.getpid()))
    for fields in batch_reader():
        data_queue.put([share(array) for array in _batch_arrays(fields)])
    data_queue.put(None)


class _ReaderFailure:
    """What the reader process puts on its queue when the generator raised."""

    def __init__(self, kind, text):
        self.kind, self.text = kind, text


def _reader_process_main(batch_reader, data_queue):
    try:
        _reader_process_loop(batch_reader, data_queue)
    except Exception as exc:
        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        data_queue.put(_ReaderFailure(type(exc).__name__, text))
        data_queue.close()
        data_queue.join_thread()   # the report is in the pipe before the exit status
        raise SystemExit(1)


class _ReaderProcess:
    """A process reading `batch_reader` into a bounded multiprocessing queue (capacity
    batches), its pid registered with the loader-process registry and the queue in
    multiprocess_queue_set (drained at exit) while it runs. next() waits at most
    QUEUE_GET_TIMEOUT seconds for a batch, noticing the process's death within
    POLL_S. Its owner close()s it once, when the pass ends, is left or fails."""

    POLL_S = 0.5

    def __init__(self, batch_reader, capacity):
        context = loader_context(shares_memory=True)
        self.queue = context.Queue(capacity)
        multiprocess_queue_set.add(self.queue)
        self.process = context.Process(target=_reader_process_main,
                                       args=(batch_reader, self.queue),
                                       name="DataLoader reader process", daemon=True)
        self.process.start()
        try:
            set_process_pids(id(self), [self.process.pid])
        except BaseException:   # it has failed already
            self.close()
            raise

    def next(self):
        """The next batch's arrays, None at the end of the data."""
        deadline = time.monotonic() + QUEUE_GET_TIMEOUT
        while True:
            try:
                item = self.queue.get(timeout=self.POLL_S)
                break
            except queue.Empty:
                pass
            if not self.process.is_alive():
                try:            # what it sent just before it ended
                    item = self.queue.get(timeout=self.POLL_S)
                    break
                except queue.Empty:
                    raise WorkerProcessError(
                        "%s: the DataLoader reader process (pid %d) exited unexpectedly "
                        "with %s" % (KILLED, self.process.pid,
                                     exit_description(self.process.exitcode))) from None
            if time.monotonic() >= deadline:
                raise ReaderKilledError(
                    "%s: the DataLoader reader process has sent no batch for %d s (a "
                    "generator that slow, or one that hangs)" % (KILLED, QUEUE_GET_TIMEOUT))
        if isinstance(item, list):
            return take_shared(item)
        if isinstance(item, _ReaderFailure):
            raise ReaderKilledError("%s: the DataLoader reader process raised %s:\n%s"
                                    % (KILLED, item.kind, item.text))
        return None     # the end of the data

    def close(self):
        """Stop the process (terminated if it still runs), drop what it queued."""
        erase_process_pids(id(self))
        stop_process(self.process, 5.0)
        multiprocess_queue_set.discard(self.queue)
        close_queue(self.queue)
        unlink_segments_with_prefix(_segment_prefix(self.process.pid))


class DygraphGeneratorLoader(DataLoaderBase):
    """What DataLoader.from_generator returns in dynamic mode: no feed_list, always
    iterable, each step one batch as a list of eager Tensors (one per field), read in the
    calling thread, or with use_multiprocess by a reader process (_ReaderProcess)."""

    def __init__(self, capacity=None, use_multiprocess=False):
        _check_capacity(capacity)
        self._capacity = capacity
        self._use_multiprocess = bool(use_multiprocess)
        self._batch_reader = None
        self._data_queue = None     # the reader process's queue while one runs

    iterable = True
    return_list = True

    def set_sample_list_generator(self, reader, places=None):
        def batches():
            for samples in reader():
                fields = [list(f) for f in zip(*samples)]
                yield [np.stack([np.asarray(v) for v in field]) for field in fields]
        return self.set_batch_generator(batches, places)

    def set_batch_generator(self, reader, places=None):
        self._check_batch_generator(reader)
        _places_count(places)
        self._batch_reader = reader
        return self

    def _reader_process_loop(self):
        """Paddle 1.8's spelling: the reader process's loop over this loader's generator
        and data queue, in the calling process."""
        _reader_process_loop(self._batch_reader, self._data_queue)

    def __iter__(self):
        if self._batch_reader is None:
            raise RuntimeError("DataLoader: set a generator first (set_sample_generator, "
                               "set_sample_list_generator or set_batch_generator)")
        if not self._use_multiprocess:
            for fields in self._batch_reader():
                yield self._tensors(_batch_arrays(fields))
            return
        reader = _ReaderProcess(self._batch_reader, self._capacity)
        self._data_queue = reader.queue
        try:
            while True:
                arrays = reader.next()
                if arrays is None:
                    return
                yield self._tensors(arrays)
        finally:
            reader.close()
            self._data_queue = None

    @staticmethod
    def _tensors(arrays):
        return [mode.eager.Tensor(array) for array in arrays]

    decorate_sample_list_generator = set_sample_list_generator
    decorate_batch_generator = set_batch_generator


def from_generator(feed_list=None, capacity=None, use_double_buffer=True, iterable=True,
                   return_list=False, drop_last=True, use_multiprocess=False):
    """DataLoader.from_generator: a DygraphGeneratorLoader in dynamic mode (use_multiprocess:
    read by a process), else a GeneratorLoader (read by a thread)."""
    if mode.dynamic:
        return DygraphGeneratorLoader(capacity, use_multiprocess)
    return GeneratorLoader(feed_list, capacity, use_double_buffer, iterable, return_list,
                           drop_last)


class DatasetLoader(DataLoaderBase):
    """What DataLoader.from_dataset returns: per step a list of one feed dict (name ->
    LoDTensor) per place, as Paddle 2.0's IterableDatasetWrapper: the dataset gets a
    reader per place (set_thread), each step takes the readers' next batches in turn,
    skipping exhausted readers (one reader may give several), and ends the pass when it
    cannot fill every place. With drop_last a batch short of batch_size exhausts its
    reader (the batch is dropped)."""

    def __init__(self, dataset, places, drop_last):
        if not isinstance(dataset, DatasetBase):
            raise TypeError("DataLoader.from_dataset: dataset must be a fluid.dataset "
                            "dataset (DatasetFactory().create_dataset()), got %s"
                            % type(dataset).__name__)
        if mode.dynamic:
            raise RuntimeError("DatasetLoader is not supported in dygraph mode yet")
        self._places = _places_count(places)
        if len(dataset.filelist) < self._places:
            raise ValueError("Filelist number of dataset %d must be not less than place "
                             "number %d" % (len(dataset.filelist), self._places))
        dataset.set_thread(self._places)
        self._dataset = dataset
        self._drop_last = drop_last
        self._readers = None

    def __iter__(self):
        self._readers = self._dataset._reader_batches(self._places)
        return self

    def __next__(self):
        if self._readers is None:
            raise RuntimeError("DatasetLoader: iterate it (for data in loader) before next()")
        group, size = [], self._dataset._batch_size()
        while len(group) < self._places and any(r is not None for r in self._readers):
            for i, reader in enumerate(self._readers):
                if reader is None:
                    continue
                count, feed = next(reader, (0, None))
                if feed is None or (self._drop_last and count != size):
                    self._readers[i] = None
                    continue
                # LoDTensors, as Paddle's loader hands its feeds (shape(), _place())
                group.append(dict(zip(feed, as_lod_tensors(list(feed.values()), np.asarray))))
                if len(group) == self._places:
                    break
        if len(group) < self._places:
            self._readers = None
            raise StopIteration
        return group


def from_dataset(dataset, places, drop_last=True):
    return DatasetLoader(dataset, places, drop_last)


class PyReader(DataLoaderBase):
    """fluid.io.PyReader(feed_list, capacity, use_double_buffer, iterable, return_list): a
    from_generator loader (`_loader`) under PyReader's method names."""

    def __init__(self, feed_list=None, capacity=None, use_double_buffer=True, iterable=True,
                 return_list=False):
        self._loader = from_generator(feed_list, capacity, use_double_buffer, iterable,
                                      return_list)

    @property
    def queue(self):
        return self._loader.queue

    @property
    def iterable(self):
        return self._loader.iterable

    def __iter__(self):
        return iter(self._loader)

    def __next__(self):
        return next(self._loader)

    def start(self):
        self._loader.start()

    def reset(self):
        self._loader.reset()

    def decorate_sample_generator(self, sample_generator, batch_size, drop_last=True,
                                  places=None):
        self._loader.set_sample_generator(sample_generator, batch_size, drop_last, places)

    def decorate_sample_list_generator(self, reader, places=None):
        self._loader.set_sample_list_generator(reader, places)

    def decorate_batch_generator(self, reader, places=None):
        self._loader.set_batch_generator(reader, places)
