"""RecomputeOptimizer: same losses and parameters as the inner optimizer, recomputed
segments in the program, replayed dropout masks, lower peak memory."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import refimpl as paddle
from refimpl import fluid, static
from refimpl.executor import Plan
from refimpl.framework import unique_name
from refimpl.framework.scope import Scope

INNER = {"sgd": lambda: fluid.optimizer.SGD(0.1),
         "momentum": lambda: fluid.optimizer.Momentum(0.1, momentum=0.9),
         "adam": lambda: fluid.optimizer.Adam(0.01)}


def _mlp(depth, width, checkpoint_every, recompute, inner="sgd", dropout=0.0,
         batch_norm=False, data_parallel=False):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), unique_name.guard():
        x = fluid.layers.data("x", [width], dtype="float32")
        y = fluid.layers.data("y", [1], dtype="int64")
        h, checkpoints = x, []
        init = paddle.nn.initializer.Uniform(-0.3, 0.3, seed=3)
        for i in range(depth):
            h = fluid.layers.fc(h, width, act="relu", param_attr=paddle.ParamAttr(
                initializer=init))
            if batch_norm and i % 2 == 0:
                h = fluid.layers.batch_norm(h)
            if dropout:
                h = fluid.layers.dropout(h, dropout, seed=11 + i)
            if checkpoint_every and i % checkpoint_every == 0:
                checkpoints.append(h)
        logits = fluid.layers.fc(h, 3, param_attr=paddle.ParamAttr(initializer=init))
        loss = fluid.layers.reduce_mean(fluid.layers.softmax_with_cross_entropy(logits, y))
        opt = INNER[inner]()
        if recompute:
            opt = fluid.optimizer.RecomputeOptimizer(opt)
            opt._set_checkpoints(checkpoints)
        opt.minimize(loss)
    return main, startup, loss


def _train(main, startup, loss, steps=3, batch=8, width=6, places=None):
    scope = Scope()
    exe = static.Executor()
    exe.run(startup, scope=scope)
    prog = main if places is None else static.CompiledProgram(main).with_data_parallel(
        loss_name=loss.name, places=[paddle.CPUPlace()] * places)
    rng = np.random.RandomState(0)
    losses = []
    for _ in range(steps):
        feed = {"x": rng.randn(batch, width).astype("float32"),
                "y": rng.randint(0, 3, (batch, 1)).astype("int64")}
        losses.append(exe.run(prog, feed=feed, fetch_list=[loss], scope=scope)[0])
    params = {p.name: np.array(scope.find_var(p.name).get_tensor()) for p in main.all_parameters()}
    return np.array(losses), params


@settings(max_examples=10, deadline=None)
@given(depth=st.integers(2, 5), every=st.integers(1, 2),
       inner=st.sampled_from(sorted(INNER)), dropout=st.sampled_from([0.0, 0.3]),
       batch_norm=st.booleans())
def test_recompute_equals_plain_training(depth, every, inner, dropout, batch_norm):
    plain = _train(*_mlp(depth, 6, every, False, inner, dropout, batch_norm))
    recomputed = _train(*_mlp(depth, 6, every, True, inner, dropout, batch_norm))
    np.testing.assert_allclose(recomputed[0], plain[0], rtol=1e-6)
    for k in plain[1]:
        np.testing.assert_allclose(recomputed[1][k], plain[1][k], rtol=1e-6, atol=1e-7,
                                   err_msg=k)


def test_recompute_under_data_parallel():
    plain = _train(*_mlp(4, 6, 1, False, "momentum"), places=2)
    recomputed = _train(*_mlp(4, 6, 1, True, "momentum"), places=2)
    for k in plain[1]:
        np.testing.assert_allclose(recomputed[1][k], plain[1][k], rtol=1e-6, atol=1e-7)


def test_segments_are_recomputed_with_subprog_names():
    main, _, _ = _mlp(4, 6, 2, True)
    block = main.global_block()
    recomputed = [op for op in block.ops if any(".subprog_" in n for n in op.output_arg_names)]
    # one segment between the checkpoints after layers 1 and 3: fc (mul, add) + relu of
    # layers 2 and 3
    assert [op.type for op in recomputed] == ["mul", "elementwise_add", "relu"] * 2
    assert all(".subprog_0" in n for op in recomputed for n in op.output_arg_names)
    grad_inputs = {n for op in block.ops if op.type.endswith("_grad")
                   for n in op.input_arg_names}
    assert any(".subprog_0" in n for n in grad_inputs)


def test_dropout_in_a_segment_gets_a_shared_seed():
    main, _, _ = _mlp(3, 6, 1, True, dropout=0.5)
    block = main.global_block()
    dropouts = [op for op in block.ops if op.type == "dropout"]
    seeds = {op.input("Seed")[0] for op in dropouts if op.input("Seed")}
    recomputed = [op for op in dropouts if any(".subprog_" in n for n in op.output_arg_names)]
    assert recomputed and all(op.input("Seed")[0] in seeds for op in recomputed)
    assert "seed" in [op.type for op in block.ops]


def test_no_checkpoints_falls_back_with_a_warning():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = fluid.layers.data("x", [4], dtype="float32")
        loss = fluid.layers.mean(fluid.layers.fc(x, 2))
        opt = fluid.optimizer.RecomputeOptimizer(fluid.optimizer.SGD(0.1))
        with pytest.warns(UserWarning, match="no checkpoints set"):
            params_grads = opt.backward(loss)
    assert [p.name for p, _ in params_grads] == ["fc_0.w_0", "fc_0.b_0"]
    with pytest.raises(TypeError, match="list of Variables"):
        opt._set_checkpoints("fc_0.tmp_0")


def test_checkpoints_off_the_path_are_ignored_with_a_warning():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = fluid.layers.data("x", [4], dtype="float32")
        h = fluid.layers.fc(x, 4)
        side = fluid.layers.fc(x, 4)
        loss = fluid.layers.mean(fluid.layers.fc(h, 2))
        opt = fluid.optimizer.RecomputeOptimizer(fluid.optimizer.SGD(0.1))
        opt._set_checkpoints([h, side, h])
        with pytest.warns(UserWarning):
            opt.minimize(loss)


def _peak(main, loss, batch=64, width=64):
    scope = Scope()
    feed = {"x": np.ones((batch, width), "float32"), "y": np.zeros((batch, 1), "int64")}
    plan = Plan(main, list(feed), [loss.name])
    env = scope._values
    for p in main.all_parameters():
        env[p.name] = np.zeros(p.shape, "float32")
    for v in main.global_block().vars.values():
        if v.persistable and v.name not in env:
            env[v.name] = np.zeros([d if d > 0 else 1 for d in v.shape], "float32")
    env.update(feed)
    return plan.run_measuring_memory(env, include=lambda n: "@GRAD" not in n)


def test_recompute_lowers_peak_activation_memory():
    plain_main, _, plain_loss = _mlp(16, 64, 0, False)
    rc_main, _, rc_loss = _mlp(16, 64, 4, True)
    plain, recomputed = _peak(plain_main, plain_loss), _peak(rc_main, rc_loss)
    assert recomputed < 0.5 * plain, (plain, recomputed)
