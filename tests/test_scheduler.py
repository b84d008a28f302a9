"""ExecutionStrategy.num_threads: the dependency-graph thread-pool runner."""
import threading
import time

import numpy as np
import pytest

import refimpl as paddle
from refimpl import static
from refimpl.executor.scheduler import (MEASURED_RUNS, ThreadedRunner, max_parallelism,
                                        op_dependencies)
from refimpl.executor import Plan
from refimpl.framework.errors import OpError
from helpers import within_watchdog


def _two_branch_program():
    x = static.data("x", [None, 8], "float32")
    a = static.nn.fc(x, 16, activation="relu")
    b = static.nn.fc(x, 16, activation="relu")
    loss = paddle.mean(a) + paddle.mean(b)
    paddle.optimizer.SGD(0.1).minimize(loss)
    return loss


def test_dependencies_respect_read_and_write_order():
    _two_branch_program()
    ops = static.default_main_program().global_block().ops
    deps = op_dependencies(ops)
    for i, op in enumerate(ops):
        if op.type == "sgd":
            param = op.input("Param")[0]
            # every op that reads the parameter must finish before its update
            readers = [j for j, o in enumerate(ops) if param in o.input_arg_names and j < i]
            assert set(readers) <= _ancestors(deps, i)
    assert max_parallelism(deps) >= 2


def _ancestors(deps, i):
    seen, stack = set(), list(deps[i])
    while stack:
        j = stack.pop()
        if j not in seen:
            seen.add(j)
            stack.extend(deps[j])
    return seen


@pytest.mark.parametrize("threads", [1, 2, 4])
@pytest.mark.parametrize("min_handoff_s", [0, None])   # every op a helper may take; default
def test_threaded_run_equals_sequential(threads, min_handoff_s):
    loss = _two_branch_program()
    main = static.default_main_program()
    exe = static.Executor()
    exe.run(static.default_startup_program())
    scope = static.global_scope()
    init = {n: v.copy() for n, v in scope._values.items()}
    feed = {"x": np.random.RandomState(0).randn(4, 8).astype("float32")}

    def train(threaded):
        env = {n: v.copy() for n, v in init.items()}
        plan = Plan(main, list(feed), [loss.name])
        runner = ThreadedRunner(plan, threads, min_handoff_s) if threaded else plan
        losses = []
        for _ in range(4):
            env.update(feed)
            runner.run(env)
            losses.append(env[loss.name].copy())
            plan.drop_temporaries(env)
        return losses, env

    seq_losses, seq_env = train(False)
    par_losses, par_env = train(True)
    np.testing.assert_array_equal(np.array(seq_losses), np.array(par_losses))
    for n in init:
        np.testing.assert_array_equal(seq_env[n], par_env[n])


def test_threaded_runner_reports_failing_op():
    x = static.data("x", [None, 8], "float32")
    paddle.mean(static.nn.fc(x, 4))
    plan = Plan(static.default_main_program(), ["x"], [])
    with pytest.raises(OpError, match="has no value"):
        ThreadedRunner(plan, 2).run({"x": np.ones((2, 8), "float32")})


def test_runs_in_order_when_no_heavy_ops_can_overlap():
    """Measured cheap ops (or heavy ones on one chain) never pay for helpers: after the
    measured runs the runner keeps the plan's plain loop; independent heavy branches keep
    the thread pool."""
    loss = _two_branch_program()
    exe = static.Executor()
    exe.run(static.default_startup_program())
    env = dict(static.global_scope()._values)
    feed = {"x": np.ones((4, 8), "float32")}
    plan = Plan(static.default_main_program(), list(feed), [loss.name])
    cheap = ThreadedRunner(plan, 4, min_handoff_s=60.0)
    everything_heavy = ThreadedRunner(plan, 4, min_handoff_s=0)
    for _ in range(MEASURED_RUNS):
        for runner in (cheap, everything_heavy):
            assert not runner.in_order
            env.update(feed)
            runner.run(env)
            plan.drop_temporaries(env)
    assert cheap.in_order and not everything_heavy.in_order


def test_heavy_ops_overlap_only_when_independent():
    loss = _two_branch_program()
    plan = Plan(static.default_main_program(), ["x"], [loss.name])
    runner = ThreadedRunner(plan, 2)
    muls = [i for i, op in enumerate(plan.ops) if op.type == "mul"]
    runner.heavy = [i in muls for i in range(len(plan.ops))]   # the two branches' GEMMs
    assert runner._heavy_ops_can_overlap()
    runner.heavy = [i in (muls[0], muls[0] + 1) for i in range(len(plan.ops))]
    assert plan.ops[muls[0] + 1].type == "elementwise_add"
    assert not runner._heavy_ops_can_overlap()   # the bias add reads the mul's output


@pytest.mark.parametrize("num_threads, sequential, expected",
                         [(0, False, 4), (1, False, None), (3, False, 3), (0, True, None)])
def test_num_threads_zero_is_four_per_place(num_threads, sequential, expected):
    """Seed 002: 0 means device_count x 4 threads; 1 runs ops one by one, and so does
    enable_sequential_execution whatever num_threads says."""
    loss = _two_branch_program()
    exe = static.Executor()
    exe.run(static.default_startup_program())
    es = static.ExecutionStrategy()
    es.num_threads = num_threads
    strategy = static.BuildStrategy()
    strategy.enable_sequential_execution = sequential
    prog = static.CompiledProgram(static.default_main_program(), build_strategy=strategy)
    prog._exec_strategy = es
    exe.run(prog, feed={"x": np.ones((4, 8), "float32")}, fetch_list=[loss])
    place_plans, = prog._device_sets[id(static.global_scope())].plans.values()
    (plan,), (runner,) = place_plans.plans, place_plans.runners
    if expected is None:
        assert runner is plan
    else:
        assert isinstance(runner, ThreadedRunner) and runner.num_threads == expected


def test_helper_wakes_the_caller_for_the_light_op_it_made_ready():
    """Issue #13's lost wake-up, made deterministic: two independent heavy ops (one for the
    caller, slowed a little so that the helper takes the other; the helper's slowed more,
    so the helper finishes last) and a light op needing both. The helper's op completes the
    light op's inputs while the caller waits; only the caller runs light ops, so the helper
    must wake it before waiting for heavy work itself (it used to wake it after: never)."""
    x = static.data("x", [None, 4], "float32")
    out = paddle.add(paddle.scale(x, 2.0), paddle.scale(x, 3.0))
    plan = Plan(static.default_main_program(), ["x"], [out.name])
    assert [op.type for op in plan.ops] == ["scale", "scale", "elementwise_add"]
    runner = ThreadedRunner(plan, 2)
    runner._heavy = lambda: [True, True, False]     # the same weights on every run
    runner.heavy = runner._heavy()

    def slowed(run, caller):
        def slowed(env):
            time.sleep(0.05 if threading.current_thread() is caller else 0.3)
            run(env)
        return slowed

    def run_three_times():
        plan.runs = [slowed(r, threading.current_thread()) for r in plan.runs]
        results = []
        for _ in range(3):
            env = {"x": np.ones((2, 4), "float32")}
            runner.run(env)
            results.append(env[out.name])
        return results
    for got in within_watchdog(run_three_times, timeout_s=30):
        np.testing.assert_array_equal(got, np.full((2, 4), 5.0, "float32"))
