"""Paddle 1.8's LoDTensorBlockingQueue, between the Python thread that reads a generator
and the program (or iterable loader) that takes its batches, and that thread.

A queue holds at most `capacity` batches (lists of LoDTensors). push() waits while it is
full; pop() waits while it is empty. close(): no more batches -- push() returns False, pop()
hands out what is left, then raises EOFException. kill() (the generator raised): push() and
pop() raise EnforceNotMet at once. reset() empties and reopens it. Every wait ends after
`timeout` seconds with an EnforceNotMet saying what was awaited, so a reader nobody feeds
fails instead of hanging (Paddle waits for ever). FedQueue is a queue with its feeding
thread: a PyReader, and what an iterable DataLoader's pass reads from.
specs/fluid_io.md#blocking-queue."""
import collections
import logging
import threading

import numpy as np

from .errors import EnforceNotMet, EOFException, ReaderKilledError
from .scope import LoDTensor

__all__ = ["BlockingQueue", "FeedingThread", "FedQueue", "QUEUE_TIMEOUT_S", "as_lod_tensors"]

# how long push() and pop() wait by default (Paddle's DataLoader waits 60 s for a worker)
QUEUE_TIMEOUT_S = 120.0

KILLED = "Blocking queue is killed because the data reader raises an exception"


class BlockingQueue:
    """fluid.core.LoDTensorBlockingQueue: push / pop / close / kill / reset / size /
    capacity / wait_for_inited."""

    def __init__(self, capacity, name="lod_tensor_blocking_queue"):
        if not isinstance(capacity, (int, np.integer)) or isinstance(capacity, bool) \
                or capacity < 1:
            raise ValueError("%s: capacity must be a positive int (batches to hold), got %r"
                             % (name, capacity))
        self.name = name
        self._capacity = int(capacity)
        self._items = collections.deque()
        self._ready = threading.Condition()
        self._closed = False
        self._killed = None       # the generator's exception once killed (or True)

    def capacity(self):
        return self._capacity

    def size(self):
        with self._ready:
            return len(self._items)

    def is_closed(self):
        return self._closed

    def wait_for_inited(self, timeout):
        """Paddle's queue waits for its reader to be created; this one is ready at once."""
        return True

    def _raise_if_killed(self):
        if self._killed is not None:
            cause = self._killed if isinstance(self._killed, BaseException) else None
            raise ReaderKilledError("%s: %s%s" % (self.name, KILLED, " (%s: %s)" % (
                type(cause).__name__, cause) if cause is not None else "")) from cause

    def _wait(self, ready, timeout, what):
        if not self._ready.wait_for(ready, timeout):
            raise EnforceNotMet("%s: waited %g s for %s; is the reader started (start(), or a "
                                "thread pushing) and its consumer running?"
                                % (self.name, timeout, what))

    def push(self, tensors, timeout=QUEUE_TIMEOUT_S):
        """Append one batch (a list of LoDTensors); False when the queue is closed (before
        or while waiting for room); timeout None waits until room, close or kill."""
        with self._ready:
            self._wait(lambda: len(self._items) < self._capacity or self._closed
                       or self._killed is not None, timeout, "room to push a batch")
            self._raise_if_killed()
            if self._closed:
                return False
            self._items.append(list(tensors))
            self._ready.notify_all()
            return True

    def pop(self, timeout=QUEUE_TIMEOUT_S):
        """The oldest batch; EOFException once closed and empty."""
        with self._ready:
            self._wait(lambda: self._items or self._closed or self._killed is not None,
                       timeout, "a batch to read")
            self._raise_if_killed()
            if not self._items:
                raise EOFException("%s: no more batches (the reader's data is exhausted); "
                                   "reset() the reader and start() it to read again"
                                   % self.name)
            batch = self._items.popleft()
            self._ready.notify_all()
            return batch

    def close(self):
        with self._ready:
            self._closed = True
            self._ready.notify_all()

    def kill(self, cause=None):
        with self._ready:
            self._killed = cause if cause is not None else True
            self._ready.notify_all()

    def reset(self):
        """Empty and open again (what a reader's reset() does to its queue)."""
        with self._ready:
            self._items.clear()
            self._closed = False
            self._killed = None
            self._ready.notify_all()


def as_lod_tensors(batch, check_array):
    """A batch (a tuple / list of fields, or one field) as a list of LoDTensors: a
    LoDTensor as it is, anything else through `check_array` (-> an ndarray)."""
    fields = list(batch) if isinstance(batch, (list, tuple)) else [batch]
    return [f if isinstance(f, LoDTensor) else LoDTensor(value=check_array(f))
            for f in fields]


class FeedingThread:
    """The daemon thread that pushes a generator's batches into a queue, as Paddle's
    readers run one: at the end it closes the queue; if the generator raises, it kills the
    queue (the reader's consumer gets the EnforceNotMet) and the exception is reported
    by the thread. stop() makes it end early."""

    def __init__(self, queue, batches, to_tensors):
        self.queue = queue
        self.exited = False
        self._thread = threading.Thread(target=self._main, args=(batches, to_tensors),
                                        name="%s feeder" % queue.name, daemon=True)
        self._thread.start()

    def _main(self, batches, to_tensors):
        try:
            for batch in batches():
                if self.exited or not self.queue.push(to_tensors(batch), timeout=None):
                    break
            self.queue.close()
        except Exception as e:
            self.queue.kill(e)
            logging.warning("%s: the reader raised an exception", self.queue.name)
            raise

    def is_alive(self):
        return self._thread.is_alive()

    def join(self, timeout=QUEUE_TIMEOUT_S):
        self._thread.join(timeout)
        if self._thread.is_alive():
            raise EnforceNotMet("%s: the reader's thread did not stop within %g s (its "
                                "generator is still computing a batch)"
                                % (self.queue.name, timeout))

    def stop(self):
        """End the thread (it is waiting in push() or running the generator) and wait for
        it; the queue is left closed."""
        self.exited = True
        self.queue.close()
        self.join()


class FedQueue:
    """A queue and the FeedingThread filling it (`thread`, None when not started): what a
    reader reads from, the program's PyReader (layers/readers.py) and an iterable
    DataLoader's pass alike."""

    def __init__(self, capacity, name):
        self.queue = BlockingQueue(capacity, name=name)
        self.thread = None

    def feed_from(self, batches, to_tensors):
        """Start the thread that pushes `batches()`'s batches, through `to_tensors`."""
        self.thread = FeedingThread(self.queue, batches, to_tensors)

    def reset(self):
        """Stop the feeding thread (waiting for it) and empty and reopen the queue."""
        if self.thread is not None:
            self.thread.stop()
            self.thread = None
        self.queue.reset()
