"""paddle.fluid.profiler (Paddle 1.8): between start_profiler and stop_profiler every op an
Executor (or a CompiledProgram's place) runs is timed (executor/op_events.py); stopping
prints Paddle's event summary and writes the events to `profile_path` in Paddle's profile
format (proto/profiler/profiler_pb2). cuda_profiler needs nvprof; specs/fluid_misc.md."""
import contextlib
import threading
import time

from ..executor.op_events import set_recorder
from ..framework import atomic_file
from .proto.profiler import profiler_pb2

__all__ = ["cuda_profiler", "reset_profiler", "profiler", "start_profiler", "stop_profiler",
           "is_profiler_enabled"]

_STATES = ("CPU", "GPU", "All")
_TRACER_OPTIONS = ("Default", "OpDetail", "AllOpDetail")
# sorted_key -> (what Paddle 1.8.5's report says it sorts by, the key, descending)
_SORTS = {"default": ("event first end time", lambda e: e.first_end, False),
          "calls": ("number of calls", lambda e: e.calls, True),
          "total": ("total time", lambda e: e.total, True),
          "max": ("maximum time", lambda e: e.max, True),
          "min": ("minimum time", lambda e: e.min, True),
          "ave": ("average time", lambda e: e.total / e.calls, True)}
_SORTS[None] = _SORTS["default"]


class _Summary:
    """One event name's line of the report: its calls and times (ns)."""

    def __init__(self, first_end):
        self.first_end, self.calls, self.total = first_end, 0, 0
        self.min, self.max = None, 0

    def add(self, ns):
        self.calls += 1
        self.total += ns
        self.min = ns if self.min is None else min(self.min, ns)
        self.max = max(self.max, ns)


class _Session:
    """A started profiler: the op events recorded so far (wall-clock ns)."""

    def __init__(self, state):
        self.state = state
        self.lock = threading.Lock()
        self.restart()

    def restart(self):
        self.events = []
        # perf_counter_ns for the intervals, placed on the wall clock as Paddle's are
        self.wall_offset = time.time_ns() - time.perf_counter_ns()
        self.start_ns = time.time_ns()

    def record(self, op_type, start, end, place):
        with self.lock:
            self.events.append((op_type, start + self.wall_offset, end + self.wall_offset,
                                place))

    def profile(self, end_ns):
        profile = profiler_pb2.Profile(start_ns=self.start_ns, end_ns=end_ns)
        for name, start, end, place in self.events:
            profile.events.add(name=name, type=profiler_pb2.Event.CPU, start_ns=start,
                               end_ns=end, device_id=place, sub_device_id=0)
        return profile

    def report(self, sorted_key):
        what, key, descending = _SORTS[sorted_key]
        lines = {}
        for name, start, end, place in self.events:
            label = "thread%d::%s" % (place, name)
            lines.setdefault(label, _Summary(end)).add(end - start)
        total = sum(s.total for s in lines.values())
        rows = sorted(lines.items(), key=lambda item: key(item[1]), reverse=descending)
        ms = lambda ns: "%g" % (ns / 1e6)
        out = ["", "------------------------->     Profiling Report     "
               "<-------------------------", "", "Place: %s" % self.state, "Time unit: ms",
               # 1.8.5 says "descending" for every key, the first-end-time order included
               "Sorted by %s in descending order in the same thread" % what,
               "", "Total time: %s" % ms(total), "",
               "-------------------------       Event Summary       "
               "-------------------------", "",
               "%-37s%-12s%-12s%-12s%-12s%-12s%-12s" % ("Event", "Calls", "Total", "Min.",
                                                       "Max.", "Ave.", "Ratio.")]
        for label, s in rows:
            out.append("%-37s%-12d%-12s%-12s%-12s%-12s%-12s" % (
                label, s.calls, ms(s.total), ms(s.min), ms(s.max), ms(s.total / s.calls),
                "%g" % (s.total / total if total else 0)))
        return "\n".join(out) + "\n"


_session = [None]       # the started profiler's _Session, None when stopped


def cuda_profiler(output_file, output_mode=None, config=None):
    if output_mode not in (None, "kvp", "csv"):
        raise ValueError("The output mode must be 'kvp' or 'csv'.")
    raise NotImplementedError("fluid.profiler.cuda_profiler drives NVIDIA's nvprof through "
                              "Paddle's C++ core; refimpl has no nvprof binding (profile "
                              "the process with nsys instead)")


def is_profiler_enabled():
    """Whether a profiler is recording (Paddle's core.is_profiler_enabled)."""
    return _session[0] is not None


def reset_profiler():
    """Forget the events recorded so far (a running profiler goes on recording)."""
    session = _session[0]
    if session is not None:
        with session.lock:
            session.restart()


def start_profiler(state, tracer_option="Default"):
    """Record every op run from now on (a second start while started: nothing)."""
    if state not in _STATES:
        raise ValueError("The state must be 'CPU' or 'GPU' or 'All'.")
    if tracer_option not in _TRACER_OPTIONS:
        raise ValueError("tracer option must be 'Default', 'OpDetail', 'AllOpDetail'.")
    if _session[0] is None:
        _session[0] = _Session(state)
        set_recorder(_session[0].record)


def stop_profiler(sorted_key=None, profile_path="/tmp/profile"):
    """Stop recording, print the event summary sorted by `sorted_key` and write the
    events to `profile_path` (nothing when not started, as Paddle)."""
    session = _session[0]
    if session is None:
        return
    set_recorder(None)          # stopped even when the key is refused
    _session[0] = None
    if sorted_key not in _SORTS:
        raise ValueError("The sorted_key must be None or in 'calls', 'total', 'max', 'min' "
                         "and 'ave'")
    atomic_file.write_bytes(profile_path,
                            session.profile(time.time_ns()).SerializeToString())
    print(session.report(sorted_key))


@contextlib.contextmanager
def profiler(state, sorted_key=None, profile_path="/tmp/profile", tracer_option="Default"):
    start_profiler(state, tracer_option)
    try:
        yield
    finally:
        stop_profiler(sorted_key, profile_path)
