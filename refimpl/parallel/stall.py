"""Stall detection: a deadlock is never silent.

Threads of a run wait in two places: a scheduler thread for an op it may run, a place for
the others at a collective. Every such wait goes through `StallWatch.wait`. When every
thread taking part in the run has been waiting, with no thread starting or ending a wait,
for `stall_timeout()` seconds, nobody can wake anybody: each waiter raises a `StallError`
that says, place by place, what every thread is in or waiting for (the collective and
which places have reached it, the op that is running, the ops that are ready). A thread
running an op is working, however long the op takes, so a slow op is never a stall.
"""
import contextlib
import os
import threading
import time

__all__ = ["StallError", "StallWatch", "stall_timeout", "DEFAULT_STALL_TIMEOUT_S"]

DEFAULT_STALL_TIMEOUT_S = 300.0
# A waiter looks at the run at least this often (seconds), so it notices a stall that
# another thread declared within this time.
MAX_POLL_S = 1.0
# `poll` (MPI requests): MPI moves a non-blocking call on only inside a test, so a waiter
# tests back to back -- a collective of large buckets needs thousands of tests, and sleeps
# between them made a 45 MB allreduce take 0.75 s instead of tens of ms -- yielding the
# core between tests to any other process that wants it (as MPI's own blocking waits do
# when cores are shared). A wait still unfinished after SPIN_S is a peer that is late, not
# a transfer: then sleeps that double from FIRST_SLEEP_S to POLL_S between tests.
SPIN_S = 0.5
FIRST_SLEEP_S = 5e-5
POLL_S = 1e-3


class StallError(RuntimeError):
    """Every thread of a run waited, with nothing changing, for the stall timeout."""


def stall_timeout():
    """Seconds without progress before a run is declared stalled: REFIMPL_STALL_TIMEOUT
    (a positive number; 'inf' never declares one), default 300."""
    raw = os.environ.get("REFIMPL_STALL_TIMEOUT")
    if raw is None or raw.strip() == "":
        return DEFAULT_STALL_TIMEOUT_S
    try:
        seconds = float(raw)
    except ValueError:
        seconds = float("nan")
    if not seconds > 0:
        raise ValueError("REFIMPL_STALL_TIMEOUT must be a number of seconds > 0 (or 'inf'), "
                         "got %r" % raw)
    return seconds


class _Participant:
    """A thread taking part in a run: its place, its role, and what it waits for (None
    while it works; else a function that describes the wait)."""
    __slots__ = ("place", "role", "waiting")

    def __init__(self, place, role):
        self.place, self.role, self.waiting = place, role, None


class StallWatch:
    """The threads of one run (all places of a process) and when any of them last started
    or ended a wait."""

    def __init__(self, n_places=1):
        self.n_places = n_places
        self._lock = threading.Lock()
        self._participants = []
        self._local = threading.local()
        self.begin_run()

    def begin_run(self):
        """A new run: no stall yet; the timeout is read again (tests change it)."""
        self.timeout = stall_timeout()
        self.message = None          # set once a stall is declared
        self._changed_at = time.monotonic()

    # -- taking part -----------------------------------------------------------------

    def join(self, place, role):
        """The calling thread takes part in the run for `place` until `leave(token)`.
        Returns the token, or None if the thread already takes part (then leave is a no-op)."""
        if getattr(self._local, "me", None) is not None:
            return None
        me = _Participant(place, role)
        with self._lock:
            self._participants.append(me)
        self._local.me = me
        self._changed_at = time.monotonic()
        return me

    def leave(self, token):
        if token is None:
            return
        self._local.me = None
        with self._lock:
            self._participants.remove(token)
        self._changed_at = time.monotonic()

    # -- waiting -----------------------------------------------------------------------

    def wait(self, cond, ready, describe):
        """With `cond` held, wait on it until `ready()`. `describe()` says what this thread
        waits for (called only for a stall report). Raises StallError if the run stalls."""
        if ready():
            return
        poll = min(self.timeout / 2, MAX_POLL_S)
        with self._waiting(describe):
            while not ready():
                if not cond.wait(poll):
                    self._check()

    def poll(self, done, describe):
        """Wait until `done()` for something nothing can notify about (an MPI request):
        tested back to back, yielding the core between tests, for SPIN_S, then between
        sleeps that grow from FIRST_SLEEP_S to POLL_S (see SPIN_S). Raises StallError like
        `wait`."""
        if done():
            return
        spin_until = time.monotonic() + SPIN_S
        pause = FIRST_SLEEP_S
        with self._waiting(describe):
            while not done():
                if time.monotonic() < spin_until:
                    _yield_core()
                    continue
                time.sleep(pause)
                pause = min(2 * pause, POLL_S)
                self._check()

    @contextlib.contextmanager
    def _waiting(self, describe):
        """This thread waits (a thread outside any run takes part alone meanwhile)."""
        token = self.join(None, "thread %s" % threading.current_thread().name)
        me = self._local.me
        me.waiting = describe
        self._changed_at = time.monotonic()
        try:
            yield
        finally:
            me.waiting = None
            self._changed_at = time.monotonic()
            self.leave(token)

    def _check(self):
        """A wait timed out: raise the run's stall, declaring it first if every participant
        waits and nothing has changed for the timeout."""
        if self.message is not None:
            raise StallError(self.message)
        if time.monotonic() - self._changed_at < self.timeout:
            return
        with self._lock:
            if self.message is None:
                if any(p.waiting is None for p in self._participants):
                    return       # someone is running an op
                self.message = self._report()
        raise StallError(self.message)

    def _report(self):
        lines = ["no progress for %g s: every thread of this run is waiting and none can "
                 "wake another (a deadlock; REFIMPL_STALL_TIMEOUT sets the time)"
                 % self.timeout]
        places = sorted({p.place for p in self._participants}, key=lambda p: (p is None, p))
        for place in places:
            for p in self._participants:
                if p.place == place:
                    lines.append("  %s, %s: %s" % (
                        "place %d" % place if place is not None else "no place", p.role,
                        _safe(p.waiting)))
        idle = [d for d in range(self.n_places) if d not in places]
        if idle:
            lines.append("  place%s %s: no thread running (finished its run or failed)"
                         % ("s" if len(idle) > 1 else "", ", ".join(map(str, idle))))
        return "\n".join(lines)


def _yield_core():
    """Let another runnable thread or process have this core, if one waits for it (and
    another thread of this process have the GIL)."""
    os.sched_yield()


def _safe(describe):
    try:
        return describe()
    except Exception as e:  # a report must not fail because a description did
        return "(could not describe the wait: %s)" % e
