"""DataLoader worker processes: the loop each one runs, the WorkerInfo it exposes, and
the shared-memory transport of large arrays.

Protocol (one task queue per worker, one result pipe per worker):
  main -> worker: ("fetch", epoch, task_id, request) | ("epoch", epoch) | None (exit)
  worker -> main: ("batch", epoch, task_id, batch) | ("exhausted", epoch, task_id)
                  | ("error", epoch, task_id, exception type, traceback text)
Arrays of at least SHARED_MIN_BYTES travel as a SharedArray: the worker writes them into a
new shared-memory segment named `<prefix>_<worker>_<n>`; the main process copies them out
and unlinks the segment (and unlinks any left by a worker that died, by prefix)."""
import os
import pickle
import queue
import random
import signal
import traceback
from multiprocessing import shared_memory

import numpy as np

from .collate import map_arrays
from .fetcher import Exhausted, Fetcher

__all__ = ["WorkerInfo", "get_worker_info"]

SHARED_MIN_BYTES = 16 * 1024  # smaller arrays are cheaper through the pipe
PARENT_POLL_S = 1.0           # how often an idle worker checks that its parent lives
SHM_DIR = "/dev/shm"          # where POSIX shared memory shows as files (Linux)


class WorkerInfo:
    """What get_worker_info() returns inside a worker: its id in [0, num_workers), the
    worker count, its copy of the dataset, and the seed its random generators got."""

    def __init__(self, id, num_workers, dataset, seed):
        self.id = id
        self.num_workers = num_workers
        self.dataset = dataset
        self.seed = seed

    def __repr__(self):
        return "WorkerInfo(id=%d, num_workers=%d, seed=%d)" % (self.id, self.num_workers,
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


def worker_main(worker_id, num_workers, dataset, auto_collate, collate_fn, drop_last,
                worker_init_fn, seed, tasks, results, shared_prefix, parent_pid):
    """The loop of worker `worker_id` (runs in the worker process)."""
    global _worker_info
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the main process's to handle
    _worker_info = WorkerInfo(worker_id, num_workers, dataset, seed)
    random.seed(seed)
    np.random.seed(seed % 2 ** 32)
    from ..framework import random as framework_random
    framework_random.seed(seed % 2 ** 32)
    sent = [0]

    def share(array):
        if shared_prefix is None or array.nbytes < SHARED_MIN_BYTES:
            return array
        sent[0] += 1
        return to_shared(array, "%s_%d_%x" % (shared_prefix, worker_id, sent[0]))

    fetcher = Fetcher(dataset, auto_collate, collate_fn, drop_last)
    init_error = None
    if worker_init_fn is not None:
        try:
            worker_init_fn(worker_id)
        except Exception as exc:  # reported with the first task, as the fetch errors are
            init_error = _error_report(exc, "worker_init_fn(%d)" % worker_id)
    while True:
        try:
            message = tasks.get(timeout=PARENT_POLL_S)
        except queue.Empty:
            if os.getppid() != parent_pid:  # the main process is gone: nobody will read
                return
            continue
        if message is None:
            return
        if message[0] == "epoch":
            fetcher.restart()
            continue
        _, epoch, task_id, request = message
        if init_error is not None:
            _send(results, ("error", epoch, task_id) + init_error)
            continue
        try:
            batch = fetcher.fetch(request)
            reply = ("batch", epoch, task_id, map_arrays(share, batch))
        except Exhausted:
            reply = ("exhausted", epoch, task_id)
        except Exception as exc:
            reply = ("error", epoch, task_id) + _error_report(exc, "fetching %r" % (request,))
        _send(results, reply)


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
