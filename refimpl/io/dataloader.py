"""paddle.io.DataLoader: batches of a Dataset, read in the main process or by worker
processes, handed out as lists (return_list=True) or as feed dicts for Executor.run; each
array of a batch through the output converter (eager Tensors in dynamic mode, LoDTensors
in static mode)."""
import itertools
import os
import queue
import threading
import time
import weakref
from multiprocessing import connection

import numpy as np

from ..framework.errors import (ArgumentTypeAssertionError, LayerAssertionError,
                                WorkerProcessError)
from ..framework.place import CPUPlace, Place
from ..framework.program import Variable
from ..parallel.cores import process_threads
from ..versions import switch
from .collate import (default_collate_fn, default_convert_fn, leaves, list_fields_as_arrays,
                      map_arrays)
from .dataset import IterableDataset
from .fetcher import Exhausted, Fetcher
from .sampler import BatchSampler
from . import worker as _worker
from .processes import (erase_process_pids, exit_description, loader_context, set_process_pids,
                        stop_process)

__all__ = ["DataLoader", "DataLoaderIter", "set_output_converter"]

WAIT_SLICE_S = 5.0        # how long one wait for workers lasts when timeout=0 (no limit)
SHUTDOWN_GRACE_S = 5.0    # how long workers get to exit before they are terminated


def _as_is(array):
    return array


_output_converter = _as_is


def set_output_converter(fn=None):
    """The ONE hook from batch arrays to what a DataLoader yields: fn(ndarray) -> value is
    applied to every array of every batch (return_list lists and feed dicts). None restores
    the default (the arrays themselves). refimpl points it at dygraph's batch_value."""
    global _output_converter
    if fn is not None and not callable(fn):
        raise TypeError("set_output_converter: expected a callable or None, got %s"
                        % type(fn).__name__)
    _output_converter = fn or _as_is


def static_feed_list(feed_list, owner, why_required):
    """feed_list as a list of static Variables (paddle.static.data / fluid.data), for the
    loaders whose batches become feed dicts; `why_required` ends the error of an empty one."""
    if not feed_list:
        raise ValueError("%s: feed_list %s" % (owner, why_required))
    for i, var in enumerate(feed_list):
        if not isinstance(var, Variable):
            raise TypeError("%s: feed_list[%d] must be a Variable from paddle.static.data, "
                            "got %s" % (owner, i, type(var).__name__))
    return list(feed_list)


class DataLoader:
    """Iterate `dataset` in batches. Each batch is the collate_fn of batch_size samples
    (default_collate_fn stacks them); with return_list=True it is yielded as is (each array
    through the output converter), otherwise as a list with one feed dict
    {feed_list[i].name: i-th array of the batch, converted} per place, ready for
    Executor.run. return_list left None takes the release's default (True from Paddle 2.0
    on, False in fluid 1.8; switch dataloader_return_list)."""

    def __init__(self, dataset, feed_list=None, places=None, return_list=None,
                 batch_sampler=None, batch_size=1, shuffle=False, drop_last=False,
                 collate_fn=None, num_workers=0, use_buffer_reader=True,
                 use_shared_memory=True, timeout=0, worker_init_fn=None,
                 persistent_workers=False, prefetch_factor=2):
        from .. import in_dynamic_mode
        self.dataset = dataset
        self.iterable = isinstance(dataset, IterableDataset)
        if not self.iterable and not (hasattr(dataset, "__getitem__")
                                      and hasattr(dataset, "__len__")):
            raise ArgumentTypeAssertionError(
                "DataLoader: dataset must be a paddle.io.Dataset (__getitem__ and __len__) or "
                "IterableDataset, got %s" % type(dataset).__name__)
        self.dynamic = dynamic = in_dynamic_mode()
        if return_list is None:    # the release's default (switch dataloader_return_list)
            return_list = switch("dataloader_return_list")
        self.return_list = bool(return_list) or dynamic
        self.feed_list = self._check_feed_list(feed_list)
        self.places = self._check_places(places, dynamic)
        self._check_batching(batch_sampler, batch_size, shuffle, drop_last)
        self.auto_collate = batch_sampler is not None or batch_size is not None
        if batch_sampler is None and batch_size is not None and not self.iterable:
            batch_sampler = BatchSampler(dataset, shuffle=shuffle, batch_size=batch_size,
                                         drop_last=drop_last)
        self.batch_sampler = batch_sampler
        self.batch_size = batch_size
        self.drop_last = drop_last
        if collate_fn is not None and not callable(collate_fn):
            raise TypeError("DataLoader: collate_fn must be callable, got %s"
                            % type(collate_fn).__name__)
        self.collate_fn = collate_fn or (default_collate_fn if self.auto_collate
                                         else default_convert_fn)
        self.num_workers = _check_int(num_workers, "num_workers", 0)
        self.prefetch_factor = _check_int(prefetch_factor, "prefetch_factor", 1)
        if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout < 0:
            raise LayerAssertionError("DataLoader: timeout must be a number of seconds >= 0 "
                                      "(0: no limit), got %r" % (timeout,))
        self.timeout = timeout
        if worker_init_fn is not None and not callable(worker_init_fn):
            raise TypeError("DataLoader: worker_init_fn must be callable, got %s"
                            % type(worker_init_fn).__name__)
        self.worker_init_fn = worker_init_fn
        self.use_buffer_reader = bool(use_buffer_reader)
        self.use_shared_memory = bool(use_shared_memory)
        self.persistent_workers = bool(persistent_workers) and self.num_workers > 0
        self._persistent_pool = None

    # -- configuration checks
    def _check_feed_list(self, feed_list):
        if self.return_list:
            return list(feed_list or [])
        return static_feed_list(feed_list, "DataLoader", "must be given when return_list=False "
                                "(the batches become feed dicts keyed by the feed variables' "
                                "names)")

    # a switch naming the profiles where places must be given: fluid's DataLoader (fluid.io,
    # fluid.reader) under Paddle 1.8; paddle.io's takes none
    _places_required = None

    def _check_places(self, places, dynamic):
        if places is None:
            if self._places_required and switch(self._places_required):
                raise LayerAssertionError(
                    "DataLoader: places cannot be None (fluid 1.8's DataLoader over a Dataset "
                    "takes them: fluid.cpu_places(), fluid.cuda_places() or a Place)")
            return [CPUPlace()]
        places = list(places) if isinstance(places, (list, tuple)) else [places]
        for i, place in enumerate(places):
            if not isinstance(place, (Place, str)):
                raise TypeError("DataLoader: places[%d] must be a Place, got %s"
                                % (i, type(place).__name__))
        if not places:
            raise ValueError("DataLoader: places is empty")
        if len(places) > 1 and dynamic:
            raise ValueError("DataLoader: in dynamic mode each batch goes to one place, got "
                             "%d places" % len(places))
        return places

    def _check_batching(self, batch_sampler, batch_size, shuffle, drop_last):
        if batch_sampler is not None:
            if self.iterable:
                raise ValueError("DataLoader: an IterableDataset has no indices: batch_sampler "
                                 "must be None")
            if batch_size != 1 or shuffle or drop_last:
                raise LayerAssertionError(
                    "DataLoader: with a batch_sampler, batch_size, shuffle and drop_last must "
                    "keep their defaults (1, False, False): the batch_sampler decides them")
            if not hasattr(batch_sampler, "__iter__"):
                raise ArgumentTypeAssertionError(
                    "DataLoader: batch_sampler must be iterable (a BatchSampler), got %s"
                    % type(batch_sampler).__name__)
            return
        if batch_size is not None:
            _check_int(batch_size, "batch_size", 1)
        elif shuffle:
            raise ValueError("DataLoader: shuffle=True needs batching (batch_size or "
                             "batch_sampler); with batch_size=None samples are read in order")
        if self.iterable and shuffle:
            raise ValueError("DataLoader: an IterableDataset cannot be shuffled (it has no "
                             "indices): shuffle must be False")
        if not isinstance(drop_last, bool):
            raise TypeError("DataLoader: drop_last must be a bool, got %r" % (drop_last,))

    # -- iteration
    def __len__(self):
        if self.iterable:
            raise TypeError("DataLoader over an IterableDataset (%s) has no length"
                            % type(self.dataset).__name__)
        return len(self.batch_sampler) if self.auto_collate else len(self.dataset)

    def __call__(self):
        return iter(self)

    def __iter__(self):
        return DataLoaderIter(self)

    def _requests(self):
        """One request per batch (see fetcher.py)."""
        if self.iterable:
            return itertools.repeat(self.batch_size if self.auto_collate else None)
        return iter(self.batch_sampler) if self.auto_collate else iter(range(len(self.dataset)))

    def _batches(self):
        if self.num_workers == 0:
            batches = _InProcessBatches(self)
            # on one thread a reader thread could only take turns with the caller for the
            # core and the GIL: each batch would cost a thread hand-off and gain nothing
            return _Prefetched(batches) if self.use_buffer_reader and process_threads() > 1 \
                else batches
        if self.persistent_workers:
            if self._persistent_pool is None or self._persistent_pool.closed:
                self._persistent_pool = _WorkerPool(self)
                weakref.finalize(self, self._persistent_pool.shutdown)
            return _WorkerBatches(self, self._persistent_pool, owns_pool=False)
        return _WorkerBatches(self, _WorkerPool(self), owns_pool=True)

    def _formatted(self):
        batches = self._batches()   # at the first next(): nothing starts for an unused iter()
        # Paddle <= 2.0 made each list field of a batch one array (versions.py)
        as_fields = list_fields_as_arrays if switch("dataloader_list_fields") == "arrays" \
            else (lambda batch: batch)
        try:
            if self.return_list:
                # Paddle <= 2.0 yields the batch of one-field samples as [data] (the
                # cyclegan tutorial's next(loader())[0]); 2.1 and later yield data itself.
                # What a collate_fn of one's own returns is yielded as it is.
                listed = (switch("dataloader_single_field") == "listed"
                          and self.collate_fn in (default_collate_fn, default_convert_fn))
                outs = (self._returned(as_fields(batch), listed) for batch in batches)
                if len(self.places) == 1 and (
                        self.dynamic or switch("static_dataloader_one_place") == "batch"):
                    yield from outs
                    return
                # static mode, several places (or one under Paddle 1.8): one batch per
                # place, listed (Paddle's read_next_list)
                yield from self._per_place(outs)
                return
            yield from self._per_place(self._feed_dict(as_fields(batch)) for batch in batches)
        finally:
            batches.close()

    @staticmethod
    def _returned(batch, listed):
        out = map_arrays(_output_converter, batch)
        return [out] if listed and not isinstance(batch, (list, tuple, dict)) else out

    def _per_place(self, items):
        """Consecutive items grouped one per place (the last group may be shorter)."""
        group = []
        for item in items:
            group.append(item)
            if len(group) == len(self.places):
                yield group
                group = []
        if group:
            yield group

    def _feed_dict(self, batch):
        values = leaves(batch)
        if len(values) != len(self.feed_list):
            raise ValueError("DataLoader: a batch has %d fields but feed_list has %d variables "
                             "%s" % (len(values), len(self.feed_list),
                                     [v.name for v in self.feed_list]))
        return {var.name: _output_converter(value)
                for var, value in zip(self.feed_list, values)}

    # -- Paddle 2.0 keeps the fluid constructors on this class (fluid/reader.py)
    @staticmethod
    def from_generator(feed_list=None, capacity=None, use_double_buffer=True, iterable=True,
                       return_list=False, use_multiprocess=False, drop_last=True):
        """A loader filling `feed_list` from a Python generator (fluid.reader)."""
        from ..fluid.reader import from_generator
        return from_generator(feed_list, capacity, use_double_buffer, iterable, return_list,
                              drop_last, use_multiprocess)

    @staticmethod
    def from_dataset(dataset, places, drop_last=True):
        """A loader of a fluid.dataset dataset's batches, a feed dict per place (fluid)."""
        from ..fluid.reader import from_dataset
        return from_dataset(dataset, places, drop_last)


class DataLoaderIter:
    """What iter(DataLoader) returns: one pass over the loader's batches, read (its workers
    started) from the first next() on; len() is the loader's. close() -- or the end of the
    pass, an error, garbage collection -- stops what the pass started.

    Paddle 1.8 / 2.0's own tests run the queue-based worker loop (worker.worker_loop) in
    their process over an iterator's `_dataset`, `_data_queue` and `_workers_done_event`
    (1.8 through the iterator's `_worker_loop`). refimpl's workers answer on pipes of their
    own: that queue and event are made at their first use, for such a loop, and closed
    with the iterator."""

    def __init__(self, loader):
        self._loader = loader
        self._dataset = loader.dataset
        self._use_shared_memory = loader.use_shared_memory
        self._batches = loader._formatted()
        self._loop_ends = None     # (queue, event) of a worker loop run by the caller
        self._close_loop_queue = None

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._batches)

    next = __next__     # Paddle 1.8's iterators have it

    def __len__(self):
        return len(self._loader)

    def close(self):
        self._batches.close()
        if self._close_loop_queue is not None:
            self._close_loop_queue()

    def _worker_loop_ends(self):
        if self._loop_ends is None:
            context = loader_context(shares_memory=False)
            self._loop_ends = (context.Queue(), context.Event())
            self._close_loop_queue = weakref.finalize(self, _worker.close_queue,
                                                      self._loop_ends[0])
        return self._loop_ends

    @property
    def _data_queue(self):
        return self._worker_loop_ends()[0]

    @property
    def _workers_done_event(self):
        return self._worker_loop_ends()[1]

    def _worker_loop(self, dataset, indices_queue, out_queue, done_event, collate_fn,
                     init_fn, worker_id):
        """Paddle 1.8's spelling of the worker loop (its iterator's method): batches
        collated by collate_fn, num_workers the loader's."""
        _worker.worker_loop(dataset, indices_queue, out_queue, done_event, True, collate_fn,
                            init_fn, worker_id, self._loader.num_workers)


def _check_int(value, what, minimum):
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < minimum:
        raise LayerAssertionError("DataLoader: %s must be an int >= %d, got %r"
                                  % (what, minimum, value))
    return int(value)


class _InProcessBatches:
    """Batches read in the calling thread."""

    def __init__(self, loader):
        self._requests = loader._requests()
        self._fetcher = Fetcher(loader.dataset, loader.auto_collate, loader.collate_fn,
                                loader.drop_last)

    def __iter__(self):
        return self

    def __next__(self):
        for request in self._requests:
            try:
                return self._fetcher.fetch(request)
            except Exhausted:
                break
        raise StopIteration

    def close(self):
        self._requests = iter(())


class _Prefetched:
    """Batches of `source` read ahead by a background thread (use_buffer_reader): the
    next batch is prepared while the caller runs the current one. An error in the thread
    is raised in the caller at the batch where it happened."""

    DEPTH = 2
    POLL_S = 0.1

    def __init__(self, source):
        self._source = source
        self._queue = queue.Queue(self.DEPTH)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, name="DataLoader buffer reader",
                                        daemon=True)
        self._thread.start()

    def _read(self):
        try:
            for batch in self._source:
                if not self._put(("batch", batch)):
                    return
            self._put(("end", None))
        except BaseException as exc:  # handed to the caller
            self._put(("error", exc))

    def _put(self, item):
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=self.POLL_S)
                return True
            except queue.Full:
                continue
        return False

    def __iter__(self):
        return self

    def __next__(self):
        if self._stop.is_set():
            raise StopIteration
        kind, value = self._queue.get()
        if kind == "batch":
            return value
        self.close()
        if kind == "error":
            raise value
        raise StopIteration

    def close(self):
        self._stop.set()
        self._thread.join()
        self._source.close()


class _WorkerPool:
    """num_workers worker processes, each with its task queue and result pipe. Lives for
    one iteration, or for the DataLoader's life with persistent_workers."""

    _serial = itertools.count()

    def __init__(self, loader):
        context = loader_context(loader.use_shared_memory)
        self.closed = False
        self.epoch = 0
        self.prefix = None
        if loader.use_shared_memory:
            self.prefix = "rfio%x_%x" % (os.getpid(), next(self._serial))
        base_seed = int(np.random.randint(0, 2 ** 31))
        self.workers, self.tasks, self.results = [], [], []
        try:
            for worker_id in range(loader.num_workers):
                tasks = context.Queue()
                reader, writer = context.Pipe(duplex=False)
                process = context.Process(
                    target=_worker.worker_main, name="DataLoader worker %d" % worker_id,
                    daemon=True,
                    args=(worker_id, loader.num_workers, loader.dataset, loader.auto_collate,
                          loader.collate_fn, loader.drop_last, loader.worker_init_fn,
                          base_seed + worker_id, tasks, writer, self.prefix, os.getpid()))
                self.workers.append(process)
                self.tasks.append(tasks)
                self.results.append(reader)
                process.start()
                writer.close()  # the worker's end: its death then reads as EOF here
            set_process_pids(id(self), [process.pid for process in self.workers])
        except BaseException:
            self.shutdown()
            raise

    def shutdown(self):
        """Stop every worker (asked first, then terminated, then killed), drop the
        batches still in flight and unlink their shared memory. Idempotent."""
        if self.closed:
            return
        self.closed = True
        erase_process_pids(id(self))   # stopped on purpose from here on: not a failure
        for tasks in self.tasks:
            try:
                tasks.put(None)
            except (OSError, ValueError):
                pass
        deadline = time.monotonic() + SHUTDOWN_GRACE_S
        alive = {w for w, process in enumerate(self.workers) if process.pid is not None}
        while alive and time.monotonic() < deadline:
            watched = {self.results[w]: w for w in alive}
            watched.update({self.workers[w].sentinel: w for w in alive})
            for ready in connection.wait(list(watched), timeout=0.1):
                w = watched[ready]
                if not self.drain(w):
                    alive.discard(w)
        for process in self.workers:
            if process.pid is not None:
                stop_process(process, 1.0)
        for w, results in enumerate(self.results):
            self.drain(w)
            results.close()
        for tasks in self.tasks:
            _worker.close_queue(tasks)
        if self.prefix is not None:
            _worker.unlink_segments_with_prefix(self.prefix)

    def drain(self, w):
        """Read and drop what worker w has sent; False once its pipe is at its end."""
        results = self.results[w]
        try:
            while results.poll():
                message = results.recv()
                if message[0] == "batch":
                    _worker.discard_shared(message[3])
        except (EOFError, OSError):
            return False
        return True

    def start_epoch(self):
        self.epoch += 1
        for tasks in self.tasks:
            tasks.put(("epoch", self.epoch))
        return self.epoch


class _WorkerBatches:
    """One epoch of batches from a worker pool, in order. Requests go round-robin to the
    workers that still have data, at most prefetch_factor outstanding per worker."""

    def __init__(self, loader, pool, owns_pool):
        self._pool = pool
        self._owns_pool = owns_pool
        if owns_pool:
            self._finalizer = weakref.finalize(self, pool.shutdown)
        self._epoch = pool.start_epoch()
        self._requests = loader._requests()
        self._requests_done = False
        self._timeout = loader.timeout
        self._window = loader.prefetch_factor
        self._active = [True] * len(pool.workers)
        self._outstanding = {}   # task id -> worker id
        self._arrived = {}       # task id -> (worker id, message)
        self._next_send = 0
        self._next_yield = 0
        self._next_worker = 0
        self._closed = False

    def __iter__(self):
        return self

    def __next__(self):
        if self._closed:
            raise StopIteration
        if self._epoch != self._pool.epoch:
            self._closed = True
            raise RuntimeError("DataLoader: this iterator was superseded by a newer iter() of "
                               "the same DataLoader (persistent_workers=True serves one epoch "
                               "at a time)")
        deadline = time.monotonic() + self._timeout if self._timeout else None
        while True:
            self._dispatch()
            if self._next_yield in self._arrived:
                w, message = self._arrived.pop(self._next_yield)
                self._next_yield += 1
                if message[0] == "batch":
                    return _worker.take_shared(message[3])
                if message[0] == "error":
                    self.close()
                    raise _worker.worker_error(w, message)
                continue  # "exhausted": that worker's data has ended
            if self._next_yield == self._next_send:  # nothing outstanding, nothing to send
                self.close()
                raise StopIteration
            self._receive(deadline)

    def _dispatch(self):
        while not self._requests_done and any(self._active) \
                and len(self._outstanding) < self._window * sum(self._active):
            while not self._active[self._next_worker]:
                self._next_worker = (self._next_worker + 1) % len(self._active)
            try:
                request = next(self._requests)
            except StopIteration:
                self._requests_done = True
                return
            w = self._next_worker
            self._pool.tasks[w].put(("fetch", self._epoch, self._next_send, request))
            self._outstanding[self._next_send] = w
            self._next_send += 1
            self._next_worker = (w + 1) % len(self._active)

    def _receive(self, deadline):
        """Wait for results (or a worker's death) and file them."""
        pool = self._pool
        watched = {conn: w for w, conn in enumerate(pool.results)}
        watched.update({p.sentinel: w for w, p in enumerate(pool.workers)})
        wait_s = WAIT_SLICE_S if deadline is None else max(0.0, deadline - time.monotonic())
        ready = connection.wait(list(watched), timeout=wait_s)
        if not ready and deadline is not None and time.monotonic() >= deadline:
            w = self._outstanding.get(self._next_yield)
            self.close()
            raise RuntimeError("DataLoader: no batch from the workers within timeout=%ss "
                               "(waiting for batch %d from worker %s)"
                               % (self._timeout, self._next_yield, w))
        for obj in ready:
            w = watched[obj]
            if obj is pool.results[w]:
                self._read(w)
            else:
                self._read(w)
                self._worker_died(w)

    def _read(self, w):
        conn = self._pool.results[w]
        try:
            while conn.poll():
                self._file(w, conn.recv())
        except (EOFError, OSError):
            self._worker_died(w)

    def _file(self, w, message):
        kind, epoch, task_id = message[:3]
        if epoch != self._epoch:  # a batch of an epoch left early (persistent workers)
            if kind == "batch":
                _worker.discard_shared(message[3])
            return
        self._outstanding.pop(task_id, None)
        if kind == "exhausted":
            self._active[w] = False
        self._arrived[task_id] = (w, message)

    def _worker_died(self, w):
        process = self._pool.workers[w]
        process.join(1.0)
        self.close()
        raise WorkerProcessError(
            "DataLoader worker %d (pid %s) exited unexpectedly with %s; its batches are lost "
            "(run with num_workers=0 to see the failure in the main process)"
            % (w, process.pid, exit_description(process.exitcode)))

    def close(self):
        if self._closed:
            return
        self._closed = True
        if self._owns_pool:
            self._finalizer()

