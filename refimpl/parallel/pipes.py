"""The world of the processes paddle.distributed.spawn starts: no MPI, no sockets -- two
pipes between the parent and each child, and the parent combines.

A child's PipeWorld sends each collective call (its number, signature and array) to the
parent; the parent's Hub, once every rank has sent call n, checks that the calls agree
(else every rank gets CollectiveMismatch), combines the arrays in rank order and sends
each rank its result. Calls are numbered, so a child may have several in flight
(DataParallel's buckets). A writer thread per child keeps the hub reading while a child
is not reading its results, so neither side can block the other.

Messages (pickled tuples; the parent and its children trust each other as
multiprocessing's do):
  child -> parent  ("call", number, signature, array)  ("done",)  ("failed", traceback)
  parent -> child  ("setup", dict) first; ("result", number, value);
                   ("error", number, exception class name, message)
A rank that is done while the others wait in a call it never made gets them an error at
once; a rank that fails or dies is the spawning process's business (spawn.py ends the
job).
"""
import os
import pickle
import queue
import threading
from multiprocessing.connection import Connection, wait

import numpy as np

from .communicator import REDUCTION_UFUNCS, CollectiveMismatch, CommunicationAborted
from .world import KINDS, REDUCTIONS, Pending, World, _mismatch

__all__ = ["PipeWorld", "Hub", "spawned", "ENV"]

ENV = "REFIMPL_SPAWN"     # "rank,size,read fd,write fd" in a spawned child's environment
_ERRORS = {"CollectiveMismatch": CollectiveMismatch,
           "CommunicationAborted": CommunicationAborted}


def spawned():
    """Whether this process is a child of paddle.distributed.spawn."""
    return bool(os.environ.get(ENV))


def _send(conn, message):
    conn.send_bytes(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))


def _receive(conn):
    return pickle.loads(conn.recv_bytes())


class PipeWorld(World):
    """A spawned child's side: calls go to the parent, results come back by number."""

    backend = "pipes to the spawning process"

    def __init__(self, rank, size, reader, writer):
        super().__init__()
        self.rank, self.size = rank, size
        self._reader, self._writer = reader, writer
        self._results = {}       # call number -> result, or the error to raise

    @classmethod
    def from_environment(cls):
        rank, size, read_fd, write_fd = (int(v) for v in os.environ[ENV].split(","))
        return cls(rank, size, Connection(read_fd, writable=False),
                   Connection(write_fd, readable=False))

    def receive_setup(self):
        kind, setup = self._next()
        if kind != "setup":
            raise RuntimeError("spawned process: expected its setup first, got %r" % kind)
        return setup

    def finish(self):
        _send(self._writer, ("done",))

    def fail(self, traceback_text):
        _send(self._writer, ("failed", traceback_text))

    def _next(self):
        try:
            return _receive(self._reader)
        except EOFError:
            raise CommunicationAborted("the spawning process has gone (its pipe closed)") \
                from None

    def _arrived(self, number):
        """Read what has come; whether call `number`'s answer is here."""
        while number not in self._results and self._reader.poll(0):
            message = self._next()
            if message[0] == "result":
                self._results[message[1]] = (None, message[2])
            else:
                _, n, error, text = message
                self._results[n] = (_ERRORS.get(error, RuntimeError)(text), None)
        return number in self._results

    def _take(self, call):
        error, value = self._results.pop(call.number)
        if error is not None:
            raise error
        if call.in_place:
            np.copyto(call.array, value)
            return call.array
        return value

    def _start(self, call):
        _send(self._writer, ("call", call.number, call.signature(), call.array))
        return Pending(self, call, lambda: self._arrived(call.number),
                       lambda: self._take(call))


def _combine(kind, reduction, root, arrays):
    """Per rank, its result of the call all ranks made with `arrays` (in rank order)."""
    size = len(arrays)
    if kind == "allreduce":
        ufunc = REDUCTION_UFUNCS[reduction]
        total = arrays[0].copy()
        for a in arrays[1:]:
            ufunc(total, a, out=total)
        return [total] * size
    if kind == "broadcast":
        return [arrays[root]] * size
    if kind == "allgather":
        return [list(arrays)] * size
    return [None] * size


class Hub:
    """The spawning process's side: reads every child's calls, combines each call once all
    ranks made it, answers. Runs in a daemon thread until `stop()`; `on_failure(rank,
    text)` is called when a child reports an exception or its pipe closes early."""

    def __init__(self, readers, writers, on_failure):
        self.size = len(readers)
        self._readers = {conn: rank for rank, conn in enumerate(readers)}
        self._outboxes = [queue.Queue() for _ in writers]
        self._on_failure = on_failure
        self._calls = {}          # call number -> {rank: (signature, array)}
        self._done = set()
        self._stopped = threading.Event()
        self._threads = [threading.Thread(target=self._write, args=(conn, box), daemon=True,
                                          name="spawn hub writer %d" % rank)
                         for rank, (conn, box) in enumerate(zip(writers, self._outboxes))]
        self._threads.append(threading.Thread(target=self._read, daemon=True,
                                              name="spawn hub"))

    def start(self, setups):
        """Send each child its setup, then serve."""
        for box, setup in zip(self._outboxes, setups):
            box.put(("setup", setup))
        for t in self._threads:
            t.start()

    def stop(self):
        self._stopped.set()
        for box in self._outboxes:
            box.put(None)

    def _write(self, conn, box):
        while True:
            message = box.get()
            if message is None:
                return
            try:
                _send(conn, message)
            except OSError:       # the child is gone; its failure is reported elsewhere
                return

    def _read(self):
        open_readers = dict(self._readers)
        while open_readers and not self._stopped.is_set():
            for conn in wait(list(open_readers), timeout=0.2):
                rank = open_readers[conn]
                try:
                    message = _receive(conn)
                except (EOFError, OSError):
                    del open_readers[conn]
                    if rank not in self._done:
                        self._on_failure(rank, None)
                    continue
                if message[0] == "call":
                    self._arrive(rank, message[1], message[2], message[3])
                elif message[0] == "done":
                    self._done.add(rank)
                    self._refuse_waiting()
                else:
                    self._on_failure(rank, message[1])

    def _arrive(self, rank, number, signature, array):
        calls = self._calls.setdefault(number, {})
        calls[rank] = (signature, array)
        if len(calls) == self.size:
            del self._calls[number]
            self._answer(number, [calls[r] for r in range(self.size)])
        elif self._done:
            self._refuse_waiting()

    def _answer(self, number, calls):
        signatures = [s for s, _ in calls]
        failure = _mismatch(signatures, number)
        if failure is not None:
            for box in self._outboxes:
                box.put(("error", number, "CollectiveMismatch", str(failure)))
            return
        sig = signatures[0]
        reduction = REDUCTIONS[sig[1]] if sig[1] >= 0 else None
        results = _combine(KINDS[sig[0]], reduction, int(sig[2]), [a for _, a in calls])
        for box, result in zip(self._outboxes, results):
            box.put(("result", number, result))

    def _refuse_waiting(self):
        """Calls that a rank which is done will never make: an error to those waiting."""
        for number in sorted(self._calls):
            calls = self._calls[number]
            missing = sorted(self._done - set(calls))
            if not missing:
                continue
            del self._calls[number]
            text = ("rank%s %s finished without making collective call #%d, which rank%s "
                    "%s made" % ("s" if len(missing) > 1 else "",
                                 ", ".join(map(str, missing)), number,
                                 "s" if len(calls) > 1 else "",
                                 ", ".join(map(str, sorted(calls)))))
            for rank in calls:
                self._outboxes[rank].put(("error", number, "CommunicationAborted", text))
