"""DataLoader worker processes: the loop each one runs, the WorkerInfo it exposes, and
the shared-memory transport of large arrays.

Protocol (one task queue per worker, one result pipe per worker):
  main -> worker: ("fetch", epoch, task_id, request) | ("epoch", epoch) | None (exit)
  worker -> main: ("batch", epoch, task_id, batch) | ("exhausted", epoch, task_id)
                  | ("error", epoch, task_id, exception type, traceback text)
Arrays of at least SHARED_MIN_BYTES travel as a SharedArray: the worker writes them into a
new shared-memory segment named `<prefix>_<worker>_<n>`; the main process copies them out
and unlinks the segment (and unlinks any left by a worker that died, by prefix).
start_worker + serve are every worker's start and loop: worker_main runs them over the
queue and pipe above, worker_loop over Paddle's queues of (index, request) and (index,
batch) pairs (fluid.dataloader.dataloader_iter._worker_loop)."""
import os
import pickle
import queue
import random
import traceback
from multiprocessing import shared_memory

import numpy as np

from .collate import map_arrays
from .fetcher import Exhausted, Fetcher
from .processes import set_up_loader_process

__all__ = ["WorkerInfo", "get_worker_info", "worker_loop", "WorkerExhausted"]

SHARED_MIN_BYTES = 16 * 1024  # smaller arrays are cheaper through the pipe
PARENT_POLL_S = 1.0           # how often an idle worker checks that its parent lives
SHM_DIR = "/dev/shm"          # where POSIX shared memory shows as files (Linux)


class WorkerInfo:
    """What get_worker_info() returns inside a worker: its id in [0, num_workers), the
    worker count, its copy of the dataset, and the seed its random generators got (None:
    a worker loop run in the caller's own process, which seeds nothing)."""

    def __init__(self, id, num_workers, dataset, seed):
        self.id = id
        self.num_workers = num_workers
        self.dataset = dataset
        self.seed = seed

    def __repr__(self):
        return "WorkerInfo(id=%d, num_workers=%d, seed=%s)" % (self.id, self.num_workers,
                                                             self.seed)


_worker_info = None


def get_worker_info():
    """The WorkerInfo of this DataLoader worker process; None in the main process."""
    return _worker_info


class SharedArray:
    """A reference to an array in a shared-memory segment."""

    def __init__(self, name, shape, dtype):
        self.name, self.shape, self.dtype = name, shape, dtype


def to_shared(array, name):
    segment = shared_memory.SharedMemory(name=name, create=True, size=max(array.nbytes, 1))
    try:
        np.ndarray(array.shape, array.dtype, buffer=segment.buf)[...] = array
    finally:
        segment.close()
    return SharedArray(name, array.shape, array.dtype.str)


class SegmentWriter:
    """share(array) -> the array itself when small, else a SharedArray in a new segment
    named `<prefix>_<n>` (n counting up)."""

    def __init__(self, prefix):
        self.prefix = prefix
        self.count = 0

    def __call__(self, array):
        if array.nbytes < SHARED_MIN_BYTES:
            return array
        self.count += 1
        return to_shared(array, "%s_%x" % (self.prefix, self.count))


def from_shared(ref):
    """The array, copied out of its segment; the segment is unlinked."""
    segment = shared_memory.SharedMemory(name=ref.name)
    try:
        view = np.ndarray(ref.shape, np.dtype(ref.dtype), buffer=segment.buf)
        array = view.copy()
        del view
    finally:
        segment.close()
        segment.unlink()
    return array


def take_shared(batch):
    """`batch` with every SharedArray replaced by its array."""
    if isinstance(batch, SharedArray):
        return from_shared(batch)
    if isinstance(batch, dict):
        return {key: take_shared(value) for key, value in batch.items()}
    if isinstance(batch, (list, tuple)):
        return type(batch)(take_shared(value) for value in batch)
    return batch


def discard_shared(batch):
    """Unlink the segments a batch refers to, without reading them."""
    if isinstance(batch, SharedArray):
        unlink_segment(batch.name)
    elif isinstance(batch, dict):
        for value in batch.values():
            discard_shared(value)
    elif isinstance(batch, (list, tuple)):
        for value in batch:
            discard_shared(value)


def clear_queue(data_queue):
    """Drop what a multiprocessing queue holds now (unlinking the shared memory of the
    batches in it)."""
    while True:
        try:
            discard_shared(data_queue.get_nowait())
        except (queue.Empty, OSError, ValueError):  # empty, or already closed
            return


def close_queue(data_queue):
    """Empty and close a multiprocessing queue nobody reads any more, without waiting for
    its feeder thread at exit."""
    clear_queue(data_queue)
    data_queue.cancel_join_thread()
    data_queue.close()


def unlink_segment(name):
    try:
        segment = shared_memory.SharedMemory(name=name)
    except FileNotFoundError:
        return
    segment.close()
    segment.unlink()


def unlink_segments_with_prefix(prefix):
    """Unlink what workers left under `prefix` (a worker killed between writing a segment
    and sending it). Only where segments are visible as files (Linux); elsewhere the
    multiprocessing resource tracker removes them when the program ends."""
    if not os.path.isdir(SHM_DIR):
        return
    for name in os.listdir(SHM_DIR):
        if name.startswith(prefix + "_"):
            unlink_segment(name)


def start_worker(worker_id, num_workers, dataset, seed, worker_init_fn):
    """What a worker does before its first task: in a process multiprocessing started,
    ignore SIGINT and install the fault handler (set_up_loader_process) and seed its
    generators with `seed` (None: one drawn from numpy's generator); then set its
    WorkerInfo and call worker_init_fn. Run in a caller's own process (Paddle's tests call
    the worker loop there) the caller's signal handling, fault handler and generators are
    left alone (WorkerInfo.seed is None). Returns the error report of a failing
    worker_init_fn (sent with the first task, as fetch errors are), else None."""
    global _worker_info
    worker_seed = None
    if set_up_loader_process():
        worker_seed = int(np.random.randint(2 ** 31)) if seed is None else seed
        random.seed(worker_seed)
        np.random.seed(worker_seed % 2 ** 32)
        from ..framework import random as framework_random
        framework_random.seed(worker_seed % 2 ** 32)
    _worker_info = WorkerInfo(worker_id, num_workers, dataset, worker_seed)
    if worker_init_fn is not None:
        try:
            worker_init_fn(worker_id)
        except Exception as exc:
            return _error_report(exc, "worker_init_fn(%d)" % worker_id)
    return None


def serve(fetcher, next_task, reply, share, init_error):
    """The loop of a worker: next_task() -> ("fetch", epoch, task_id, request) |
    ("epoch", epoch) | None (exit); each fetch is answered with reply(("batch", epoch,
    task_id, batch with its arrays through share) | ("exhausted", epoch, task_id) |
    ("error", epoch, task_id, exception type, traceback text))."""
    while True:
        message = next_task()
        if message is None:
            return
        if message[0] == "epoch":
            fetcher.restart()
            continue
        _, epoch, task_id, request = message
        if init_error is not None:
            reply(("error", epoch, task_id) + init_error)
            continue
        try:
            batch = fetcher.fetch(request)
            answer = ("batch", epoch, task_id, map_arrays(share, batch))
        except Exhausted:
            answer = ("exhausted", epoch, task_id)
        except Exception as exc:
            answer = ("error", epoch, task_id) + _error_report(exc, "fetching %r" % (request,))
        reply(answer)


def _next_task(source, parent_pid, skip=lambda: False):
    """The next message of `source` (a queue), polling so that a worker whose main
    process is gone (re-parented) exits; None then. Messages read while skip() is true
    are dropped (the reader has stopped wanting them)."""
    while True:
        try:
            message = source.get(timeout=PARENT_POLL_S)
        except queue.Empty:
            if os.getppid() != parent_pid:  # the main process is gone: nobody will read
                return None
            continue
        if message is None or not skip():
            return message


def worker_main(worker_id, num_workers, dataset, auto_collate, collate_fn, drop_last,
                worker_init_fn, seed, tasks, results, shared_prefix, parent_pid):
    """The process of DataLoader worker `worker_id`: tasks from its queue, answers on its
    pipe, arrays of SHARED_MIN_BYTES or more in shared memory."""
    init_error = start_worker(worker_id, num_workers, dataset, seed, worker_init_fn)
    share = (lambda array: array) if shared_prefix is None \
        else SegmentWriter("%s_%d" % (shared_prefix, worker_id))
    serve(Fetcher(dataset, auto_collate, collate_fn, drop_last),
          lambda: _next_task(tasks, parent_pid), lambda answer: _send(results, answer),
          share, init_error)


class WorkerExhausted:
    """What worker_loop puts on its out queue when its iterable dataset has ended (Paddle's
    _IterableDatasetStopIteration)."""

    def __init__(self, worker_id):
        self.worker_id = worker_id


def worker_loop(dataset, indices_queue, out_queue, done_event, auto_collate, collate_fn,
                init_fn, worker_id, num_workers):
    """The worker loop over queues (Paddle's dataloader_iter._worker_loop): take
    (index, request) from indices_queue until None, put (index, batch) on out_queue, or
    (index, exception) whose message carries the worker's traceback, or a
    WorkerExhausted when an iterable dataset ends; requests read after done_event is set
    are dropped. The same start and loop as a DataLoader worker, without shared memory;
    it also runs in the calling process (Paddle's tests call it there), which it leaves
    as it was: its WorkerInfo is restored on return (start_worker changes nothing else
    there)."""
    global _worker_info

    def next_task():
        message = _next_task(indices_queue, os.getppid(), done_event.is_set)
        if message is None:
            return None
        index, request = message
        return ("fetch", 0, index, request)

    def reply(answer):
        if answer[0] == "batch":
            out_queue.put((answer[2], answer[3]))
        elif answer[0] == "error":
            out_queue.put((answer[2], worker_error(worker_id, answer)))
        else:
            out_queue.put(WorkerExhausted(worker_id))

    caller_info = _worker_info
    try:
        init_error = start_worker(worker_id, num_workers, dataset, None, init_fn)
        serve(Fetcher(dataset, auto_collate, collate_fn, False), next_task, reply,
              lambda array: array, init_error)
    finally:
        _worker_info = caller_info


def worker_error(worker_id, message):
    """The exception an ("error", ...) answer of worker `worker_id` stands for: of the
    worker's exception type when it can be built from one message (else RuntimeError),
    the message naming the worker and carrying its traceback."""
    kind, text = message[3], message[4]
    description = "DataLoader worker %d raised %s %s" % (worker_id, kind.__name__, text)
    try:
        return kind(description)
    except Exception:
        return RuntimeError(description)


def _error_report(exc, doing):
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    kind = type(exc)
    try:
        pickle.loads(pickle.dumps(kind))
    except Exception:
        kind = RuntimeError
    return kind, "while %s:\n%s" % (doing, text)


def _send(results, reply):
    try:
        results.send(reply)
    except (BrokenPipeError, OSError):
        raise SystemExit(0)  # the main process closed the pipe: it is shutting down
    except Exception as exc:   # e.g. a batch that cannot be pickled
        discard_shared(reply[3] if reply[0] == "batch" else None)
        results.send(("error", reply[1], reply[2]) +
                     _error_report(exc, "sending the batch to the main process"))
