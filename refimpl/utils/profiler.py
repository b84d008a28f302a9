"""paddle.utils' profiler (Paddle 2.0): ProfilerOptions, a Profiler context that starts
and stops fluid.profiler over a range of steps (record_step), and get_profiler."""
import sys
import warnings

from ..fluid import profiler as _fluid_profiler

__all__ = ["ProfilerOptions", "Profiler", "get_profiler"]

_UNSET = "none"     # an unset path reads as None, as Paddle's options


class ProfilerOptions:
    _DEFAULTS = {"state": "All", "sorted_key": "default", "tracer_level": "Default",
                 "batch_range": [0, sys.maxsize], "output_thread_detail": False,
                 "profile_path": _UNSET, "timeline_path": _UNSET, "op_summary_path": _UNSET}

    def __init__(self, options=None):
        self.options = dict(self._DEFAULTS)
        for key in self.options:
            if options is not None and options.get(key) is not None:
                self.options[key] = options[key]

    def with_state(self, state):
        self.options["state"] = state
        return self

    def __getitem__(self, name):
        if self.options.get(name) is None:
            raise ValueError("ProfilerOptions does not have an option named %s." % name)
        value = self.options[name]
        return None if value == _UNSET else value


_current = [None]       # the innermost entered Profiler (get_profiler makes one if none)


class Profiler:
    """Profiles the steps [batch_range[0], batch_range[1]) counted by record_step; a
    range starting at 0 starts when the context is entered."""

    def __init__(self, enabled=True, options=None):
        self.profiler_options = options if options is not None else ProfilerOptions()
        self.batch_id = 0
        self.enabled = enabled
        self.previous_profiler = None

    def __enter__(self):
        self.previous_profiler, _current[0] = _current[0], self
        if self.enabled and self.profiler_options["batch_range"][0] == 0:
            self.start()
        return self

    def __exit__(self, *exc):
        _current[0] = self.previous_profiler
        if self.enabled:
            self.stop()

    def start(self):
        if self.enabled:
            self._warn_on_error("enabled", _fluid_profiler.start_profiler,
                                self.profiler_options["state"],
                                self.profiler_options["tracer_level"])

    def stop(self):
        if self.enabled:
            path = self.profiler_options["profile_path"]
            self._warn_on_error("disabled", _fluid_profiler.stop_profiler,
                                self.profiler_options["sorted_key"],
                                "/tmp/profile" if path is None else path)

    @staticmethod
    def _warn_on_error(what, call, *args):
        try:    # as Paddle: a profiler that fails warns and lets the program go on
            call(*args)
        except (ValueError, OSError) as e:
            warnings.warn("Profiler is not %s because of the following exception:\n%s"
                          % (what, e))

    def reset(self):
        if self.enabled and _fluid_profiler.is_profiler_enabled():
            _fluid_profiler.reset_profiler()

    def record_step(self, change_profiler_status=True):
        if not self.enabled:
            return
        self.batch_id += 1
        if change_profiler_status:
            first, last = self.profiler_options["batch_range"]
            if self.batch_id == first:
                if _fluid_profiler.is_profiler_enabled():
                    self.reset()
                else:
                    self.start()
            if self.batch_id == last:
                self.stop()


def get_profiler():
    if _current[0] is None:
        _current[0] = Profiler()
    return _current[0]
