"""paddle.utils' profiler (Paddle 2.0): ProfilerOptions, Profiler and get_profiler, a
batch-range front end of fluid.profiler's start / stop / reset (specs/fluid_misc.md)."""
import sys
import warnings

from ..fluid.profiler import is_profiler_enabled, reset_profiler, start_profiler, \
    stop_profiler

__all__ = ["ProfilerOptions", "Profiler", "get_profiler"]


class ProfilerOptions:
    """Profiler settings, each defaulted as Paddle 2.0's; a given option that is None keeps
    its default. Reading an unknown option is a ValueError; the paths default to None."""

    def __init__(self, options=None):
        self.options = {"state": "All", "sorted_key": "default", "tracer_level": "Default",
                        "batch_range": [0, sys.maxsize], "output_thread_detail": False,
                        "profile_path": None, "timeline_path": None, "op_summary_path": None}
        for key in self.options:
            if options is not None and options.get(key) is not None:
                self.options[key] = options[key]

    def with_state(self, state):
        self.options["state"] = state
        return self

    def __getitem__(self, name):
        if name not in self.options:
            raise ValueError("ProfilerOptions does not have an option named %s." % name)
        return self.options[name]


_current_profiler = None


class Profiler:
    """A `with` block that makes itself the current profiler (get_profiler()); when
    enabled it profiles the steps in options['batch_range'] = [begin, end): it starts at
    once for begin 0, else when record_step() counts `begin` (restarting the record if
    one is running), and stops when it counts `end` or at the block's end. Starting and
    stopping failures are warnings, as in Paddle (a profile_path of None: the profile
    cannot be written)."""

    def __init__(self, enabled=True, options=None):
        self.profiler_options = options if options is not None else ProfilerOptions()
        self.batch_id = 0
        self.enabled = enabled
        self.previous_profiler = None

    def __enter__(self):
        global _current_profiler
        self.previous_profiler, _current_profiler = _current_profiler, self
        if self.enabled and self.profiler_options["batch_range"][0] == 0:
            self.start()
        return self

    def __exit__(self, exception_type, exception_value, traceback):
        global _current_profiler
        _current_profiler = self.previous_profiler
        if self.enabled:
            self.stop()

    def start(self):
        if self.enabled:
            try:
                start_profiler(state=self.profiler_options["state"],
                               tracer_option=self.profiler_options["tracer_level"])
            except Exception as e:
                warnings.warn("Profiler is not enabled because of: %s" % e)

    def stop(self):
        if self.enabled:
            try:
                stop_profiler(sorted_key=self.profiler_options["sorted_key"],
                              profile_path=self.profiler_options["profile_path"])
            except Exception as e:
                warnings.warn("Profiler: stopping failed: %s" % e)

    def reset(self):
        if self.enabled and is_profiler_enabled():
            reset_profiler()

    def record_step(self, change_profiler_status=True):
        if not self.enabled:
            return
        self.batch_id += 1
        if change_profiler_status:
            begin, end = self.profiler_options["batch_range"]
            if self.batch_id == begin:
                if is_profiler_enabled():
                    self.reset()
                else:
                    self.start()
            if self.batch_id == end:
                self.stop()


def get_profiler():
    """The profiler of the innermost `with Profiler(...)` block, else a default one."""
    global _current_profiler
    if _current_profiler is None:
        _current_profiler = Profiler()
    return _current_profiler
