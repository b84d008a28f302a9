"""Op events for Paddle 1.8's profiler (fluid.profiler): while a recorder is installed,
every Executor run, and every place of a CompiledProgram run, times each op of the global
block (a control-flow op as one event, its sub-block inside it) and hands the recorder
(op type, start ns, end ns, place index). Plans run unchanged otherwise."""
import time

__all__ = ["set_recorder", "timed_runs"]

_recorder = [None]


def set_recorder(record):
    """From now on runs call `record(op_type, start_ns, end_ns, place)` after every op
    (time.perf_counter_ns); None: they record nothing."""
    _recorder[0] = record


def timed_runs(plan, place=0):
    """The plan's op closures, each calling the installed recorder; None when none is."""
    record = _recorder[0]
    if record is None:
        return None

    def timed(op_type, run):
        def run_timed(env):
            start = time.perf_counter_ns()
            run(env)
            record(op_type, start, time.perf_counter_ns(), place)
        return run_timed
    return [timed(op.type, run) for op, run in zip(plan.ops, plan.runs)]
