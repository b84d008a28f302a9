"""A deadlock is never silent (issue #13): a run in which every thread waits, with nothing
changing, for REFIMPL_STALL_TIMEOUT seconds raises StallError naming what each place waits
for; places calling different collectives at the same point raise CollectiveMismatch."""
import threading
from unittest import mock

import numpy as np
import pytest

import refimpl as paddle
from refimpl import static
from refimpl.compiler import pipeline
from refimpl.executor import Plan, scheduler
from refimpl.executor.scheduler import ThreadedRunner
from refimpl.framework import unique_name
from refimpl.framework.scope import Scope
from refimpl.parallel.communicator import CollectiveMismatch, InProcessCommunicator
from refimpl.parallel.stall import StallError, stall_timeout
from helpers import within_watchdog


def _model():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), unique_name.guard():
        x = static.data("x", [None, 4], "float32")
        hidden = static.nn.fc(x, 3, activation="relu")
        loss = paddle.mean(static.nn.fc(hidden, 1))
        paddle.optimizer.SGD(0.1).minimize(loss)
    return main, startup, loss


def _run_two_places(num_threads, steps=1):
    main, startup, loss = _model()
    scope = Scope()
    exe = static.Executor()
    exe.run(startup, scope=scope)
    es = static.ExecutionStrategy()
    es.num_threads = num_threads
    prog = static.CompiledProgram(main).with_data_parallel(
        loss_name=loss.name, exec_strategy=es, places=[paddle.CPUPlace()] * 2)
    for _ in range(steps):
        exe.run(prog, feed={"x": np.ones((4, 4), "float32")}, fetch_list=[loss], scope=scope)
    return prog, scope, loss


def _on_place_1(change):
    """The data-parallel rewrite, with `change(block)` applied to place 1's program only."""
    rewrite = pipeline.rewrite

    def rewritten(program, loss_name, strategy, device, total_devices, owner):
        program = rewrite(program, loss_name, strategy, device, total_devices, owner)
        if device == 1:
            change(program.global_block())
        return program
    return mock.patch.object(pipeline, "rewrite", rewritten)


def _extra_allreduce(block, index=None):
    """One more c_allreduce_sum of the first parameter, at `index` (default: the end)."""
    name = block.all_parameters()[0].name
    index = len(block.ops) if index is None else index
    block._insert_op(index, type="c_allreduce_sum", inputs={"X": [name]},
                     outputs={"Out": [name]}, attrs={})
    return name


@pytest.mark.parametrize("num_threads", [1, 2])
def test_a_collective_only_one_place_makes_is_a_stall_naming_it(num_threads):
    """Place 1 makes one more allreduce than place 0, which finishes its run: place 1 waits
    alone. Reported: the op, that place 1 has arrived and place 0 has not (and is done)."""
    extra = []
    with _on_place_1(lambda block: extra.append(_extra_allreduce(block))):
        with pytest.raises(StallError) as info:
            within_watchdog(_run_two_places, num_threads, stall_timeout_s=0.5)
    message = str(info.value)
    assert "no progress for 0.5 s" in message
    assert "place 1, place thread: in collective c_allreduce_sum(X=[%s]) (allreduce)" \
        % extra[0] in message
    assert "places [1] have arrived, waiting for places [0]" in message
    assert "place 0: no thread running (finished its run or failed)" in message


def test_different_collectives_at_the_same_point_are_a_mismatch():
    """Place 1 issues an extra allreduce before the gradients': the two places' first
    collectives differ, and both say which op each called."""
    with _on_place_1(lambda block: _extra_allreduce(block, index=0)):
        with pytest.raises(CollectiveMismatch) as info:
            within_watchdog(_run_two_places, 2)
    message = str(info.value)
    assert "place 0: c_allreduce_sum(X=[fc_0.w_0@GRAD" in message or \
        "place 0: c_allreduce_sum(X=[fc_1" in message
    assert "place 1: c_allreduce_sum(X=[fc_0.w_0]) (allreduce) #1 of this run" in message


def test_a_place_whose_scheduler_waits_forever_is_named_beside_the_one_at_the_collective():
    """The issue's hang, made on purpose: place 1's scheduler never sees an op become ready
    (one dependency too many), so place 0 waits at the first allreduce. The report says
    both: place 0 in the collective, place 1's caller waiting, with the op it waits for."""
    with mock.patch.object(scheduler, "MEASURED_RUNS", 10 ** 9):
        prog, scope, loss = within_watchdog(_run_two_places, 2)
        place_plans, = prog._device_sets[id(scope)].plans.values()
        plans, runners = place_plans.plans, place_plans.runners
        stuck = next(i for i, op in enumerate(plans[1].ops) if op.type == "mul")
        runners[1].n_deps[stuck] += 1
        feed = {"x": np.ones((4, 4), "float32")}
        with pytest.raises(StallError) as info:
            within_watchdog(lambda: static.Executor().run(prog, feed=feed, fetch_list=[loss],
                                                          scope=scope),
                            stall_timeout_s=0.5)
    message = str(info.value)
    assert "place 0, place thread: in collective c_allreduce_sum(" in message
    assert "waiting for places [1]" in message
    assert "place 1, place thread: waiting for an op to become ready" in message
    assert "next ops still waiting for inputs: #%d mul(X=[x]" % stuck in message
    assert "place 1, helper 1: idle, waiting for a heavy op" in message


def test_a_single_place_scheduler_that_cannot_progress_raises():
    x = static.data("x", [None, 4], "float32")
    out = paddle.scale(paddle.scale(x, 2.0), 3.0)
    plan = Plan(static.default_main_program(), ["x"], [out.name])
    runner = ThreadedRunner(plan, 2)
    runner.n_deps[1] += 1
    with pytest.raises(StallError, match=r"(?s)caller: waiting for an op to become ready "
                                         r"\(1 of 2 finished\).*#1 scale\(X="):
        within_watchdog(runner.run, {"x": np.ones((2, 4), "float32")}, stall_timeout_s=0.3)


def test_a_slow_op_is_not_a_stall(monkeypatch):
    """A place computing for longer than the timeout while the other waits at the
    collective is working, not stalled."""
    monkeypatch.setenv("REFIMPL_STALL_TIMEOUT", "0.2")
    comm = InProcessCommunicator(2)
    comm.begin_run()
    results = [None, None]

    def place(d):
        me = comm.watch.join(d, "place thread")
        try:
            if d == 1:
                threading.Event().wait(0.8)     # an op running for 4x the timeout
            results[d] = comm.allreduce(d, [np.full(3, d + 1.0)])
        finally:
            comm.watch.leave(me)
    threads = [threading.Thread(target=place, args=(d,)) for d in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    for r in results:
        np.testing.assert_array_equal(r[0], np.full(3, 3.0))


@pytest.mark.parametrize("value", ["abc", "0", "-1"])
def test_stall_timeout_must_be_positive(monkeypatch, value):
    monkeypatch.setenv("REFIMPL_STALL_TIMEOUT", value)
    with pytest.raises(ValueError, match="REFIMPL_STALL_TIMEOUT must be a number of seconds "
                                         "> 0 .* got %r" % value):
        stall_timeout()


def test_stall_timeout_default_and_override(monkeypatch):
    monkeypatch.delenv("REFIMPL_STALL_TIMEOUT", raising=False)
    assert stall_timeout() == 300
    monkeypatch.setenv("REFIMPL_STALL_TIMEOUT", "2.5")
    assert stall_timeout() == 2.5
