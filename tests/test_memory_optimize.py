"""memory_optimize=True: dead temporaries' buffers are reused by later ops of the same shape
and dtype (refimpl/executor/buffer_pool.py); fed, fetched and persistable buffers never
are, and results are bit-identical (also tests/test_pass_properties.py)."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl import static
from refimpl.executor import buffer_pool, folded_chains
from refimpl.executor.buffer_pool import BufferPool
from refimpl.framework import unique_name
from refimpl.framework.scope import Scope


def test_pool_takes_only_unshared_owners_and_hands_them_back_by_shape_and_dtype():
    pool = BufferPool()
    env = {"a": np.ones((2, 3), "float32"), "b": np.ones((2, 3), "float32"),
           "c": np.ones((4, 3), "float32")}
    env["alias"] = env["b"]
    view = env["c"][:2]
    env["view"] = np.ones(6, "float32")[:6]
    pool.give(env.pop("a"))       # nobody else holds it: pooled
    pool.give(env.pop("b"))       # still live under another name
    pool.give(env.pop("c"))       # a live view reads its memory
    pool.give(env.pop("view"))    # a view: its memory belongs to another array
    assert len(pool.buffers()) == 1
    assert pool.take((2, 3), "float64").dtype == np.float64   # other dtype: a new one
    assert pool.handed_out == 0
    reused = pool.take((2, 3), "float32")
    assert pool.handed_out == 1 and not pool.buffers()
    assert reused.shape == (2, 3) and reused.base is None
    assert not np.shares_memory(reused, env["alias"]) and view.shape == (2, 3)


def _mlp(width=16, depth=4):
    """(main, startup, loss, a hidden activation), the same values on every call."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), unique_name.guard():
        attr = paddle.ParamAttr(initializer=paddle.nn.initializer.Uniform(-0.5, 0.5, seed=3))
        h = static.data("x", [None, width], "float32")
        for _ in range(depth):
            h = static.nn.fc(h, width, activation="relu", weight_attr=attr)
        loss = paddle.mean(static.nn.fc(h, 1, weight_attr=attr))
        paddle.optimizer.SGD(0.1).minimize(loss)
    return main, startup, loss, h


class _Training:
    """The MLP compiled with memory_optimize and other BuildStrategy flags, in its own
    scope; `step()` trains once and returns [loss, hidden activation]."""

    def __init__(self, memory_optimize, **flags):
        self.main, startup, self.loss, self.hidden = _mlp()
        self.scope = Scope()
        self.exe = static.Executor()
        self.exe.run(startup, scope=self.scope)
        strategy = static.BuildStrategy()
        strategy.memory_optimize = memory_optimize
        for k, v in flags.items():
            setattr(strategy, k, v)
        self.program = static.CompiledProgram(self.main, build_strategy=strategy)
        self.feed = {"x": np.random.RandomState(0).randn(8, 16).astype("float32")}

    def step(self):
        return self.exe.run(self.program, feed=self.feed, fetch_list=[self.loss, self.hidden],
                            scope=self.scope)

    def params(self):
        return [self.scope._values[p.name] for p in self.main.all_parameters()]

    @property
    def plan(self):
        place_plans, = self.program._device_sets[id(self.scope)].plans.values()
        plan, = place_plans.plans
        return plan


def _compiled_run(memory_optimize, steps=2, **flags):
    training = _Training(memory_optimize, **flags)
    results = [training.step() for _ in range(steps)]
    return results + [training.params()], training.plan


@pytest.mark.parametrize("inplace", [False, True])
def test_results_are_bit_identical_with_reuse(inplace):
    got, plan = _compiled_run(True, enable_inplace=inplace)
    want, plain_plan = _compiled_run(False, enable_inplace=inplace)
    for g, w in zip(got, want):
        for a, b in zip(g, w):
            np.testing.assert_array_equal(a, b)
    assert plan.pool is not None and plain_plan.pool is None
    assert not plan.pool.buffers()      # nothing is held between steps


def test_buffers_are_reused(monkeypatch):
    """In the forward, each layer's bias-add output dies at its relu and the next layer's
    mul writes into it (enable_inplace would take that buffer for the relu instead). The
    fc chains run as ops here: folded (folded_chains.py), those outputs are never made."""
    monkeypatch.setattr(folded_chains, "select_folded_chain", lambda *args: None)
    _, plan = _compiled_run(True, steps=2)
    assert plan.pool.handed_out >= 2 * 3    # 3 mul outputs per step


def test_only_memory_optimize_true_reuses():
    for value in (None, False):
        _, plan = _compiled_run(value)
        assert plan.pool is None


def test_fed_fetched_and_persistable_buffers_are_never_reused(monkeypatch):
    """Whenever a buffer enters the pool, no fed, fetched or persistable value (those that
    exist at that moment) shares its memory."""
    training = _Training(True)
    values = training.scope._values
    protected = ["x", training.loss.name, training.hidden.name] + \
        [p.name for p in training.main.all_parameters()]
    pooled = []
    give = BufferPool.give

    def checking_give(pool, value):
        held = len(pool.buffers())
        give(pool, value)
        if len(pool.buffers()) > held:
            pooled.append(value)
            for name in protected:
                if values.get(name) is not None:
                    assert not np.shares_memory(value, values[name]), name

    monkeypatch.setattr(BufferPool, "give", checking_give)
    # as ops, the fc chains leave dead values to pool (test_buffers_are_reused)
    monkeypatch.setattr(folded_chains, "select_folded_chain", lambda *args: None)
    # the spy's own parameter is one more reference to every value it is given
    monkeypatch.setattr(buffer_pool, "_UNSHARED", buffer_pool._UNSHARED + 1)
    for _ in range(2):
        training.step()
    assert pooled
    assert not training.plan.recyclable & set(protected)
