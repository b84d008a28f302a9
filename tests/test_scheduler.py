"""ExecutionStrategy.num_threads: the dependency-graph thread-pool runner."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl import static
from refimpl.compiler.scheduler import ThreadedRunner, max_parallelism, op_dependencies
from refimpl.executor import Plan
from refimpl.framework.errors import OpError


def _two_branch_program():
    x = static.data("x", [None, 8], "float32")
    a = static.nn.fc(x, 16, activation="relu")
    b = static.nn.fc(x, 16, activation="relu")
    loss = paddle.mean(a) + paddle.mean(b)
    paddle.optimizer.SGD(0.1).minimize(loss)
    return loss


def test_dependencies_respect_read_and_write_order():
    loss = _two_branch_program()
    ops = static.default_main_program().global_block().ops
    deps = op_dependencies(ops)
    index = {id(op): i for i, op in enumerate(ops)}
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
def test_threaded_run_equals_sequential(threads):
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
        runner = ThreadedRunner(plan, threads) if threaded else plan
        losses = []
        for _ in range(3):
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
