"""paddle.fluid.profiler (Paddle 1.8): the profiler switches with Paddle's argument checks.
refimpl records no per-op events here (Paddle's C++ tracer has no counterpart): stopping
prints the wall time between start and stop and writes no profile file; per-op times come
from `python -m refimpl.bench_cli --profile`. cuda_profiler needs nvprof; specs/fluid_misc.md."""
import contextlib
import time

__all__ = ["cuda_profiler", "reset_profiler", "profiler", "start_profiler", "stop_profiler"]

_STATES = ("CPU", "GPU", "All")
_TRACER_OPTIONS = ("Default", "OpDetail", "AllOpDetail")
_SORTED_KEYS = (None, "default", "calls", "total", "max", "min", "ave")
_started = [None]       # time.perf_counter() at start_profiler, None when stopped


def cuda_profiler(output_file, output_mode=None, config=None):
    if output_mode not in (None, "kvp", "csv"):
        raise ValueError("The output mode must be 'kvp' or 'csv'.")
    raise NotImplementedError("fluid.profiler.cuda_profiler drives NVIDIA's nvprof through "
                              "Paddle's C++ core; refimpl has no nvprof binding (profile "
                              "the process with nsys instead)")


def reset_profiler():
    """Restart the timing of a running profiler."""
    if _started[0] is not None:
        _started[0] = time.perf_counter()


def start_profiler(state, tracer_option="Default"):
    if state not in _STATES:
        raise ValueError("The state must be 'CPU' or 'GPU' or 'All'.")
    if tracer_option not in _TRACER_OPTIONS:
        raise ValueError("tracer option must be 'Default', 'OpDetail', 'AllOpDetail'.")
    _started[0] = time.perf_counter()


def stop_profiler(sorted_key=None, profile_path="/tmp/profile"):
    """Print the wall time since start_profiler (nothing when not started, as Paddle)."""
    if _started[0] is None:
        return
    if sorted_key not in _SORTED_KEYS:
        raise ValueError("The sorted_key must be None or in 'calls', 'total', 'max', 'min' "
                         "and 'ave'")
    elapsed = time.perf_counter() - _started[0]
    _started[0] = None
    print("------------------------->     Profiling Report     <-------------------------\n"
          "refimpl profiler: %.3f ms wall time; per-op events are not recorded (use "
          "`python -m refimpl.bench_cli --profile`), no file written to %s"
          % (elapsed * 1e3, profile_path))


@contextlib.contextmanager
def profiler(state, sorted_key=None, profile_path="/tmp/profile", tracer_option="Default"):
    start_profiler(state, tracer_option)
    try:
        yield
    finally:
        stop_profiler(sorted_key, profile_path)
