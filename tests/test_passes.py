"""BuildStrategy passes fire where they should, not where they must not, and never change
results; ExecutionStrategy options run the same computation."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl import fluid, static
from refimpl.compiler.passes import apply_passes
from refimpl.framework import unique_name
from refimpl.framework.scope import Scope


def _strategy(**flags):
    s = static.BuildStrategy()
    for k, v in flags.items():
        setattr(s, k, v)
    return s


def _types(program):
    return [op.type for op in program.global_block().ops]


def _mlp_program(act="relu"):
    x = static.data("x", [None, 4], "float32")
    h = static.nn.fc(x, 8, activation=act)
    loss = paddle.mean(static.nn.fc(h, 1))
    paddle.optimizer.SGD(0.1).minimize(loss)
    return static.default_main_program(), loss, h


def test_elewise_add_act_fuses_forward_and_backward():
    main, loss, h = _mlp_program("tanh")
    out = apply_passes(main, _strategy(fuse_elewise_add_act_ops=True), [loss.name])
    types = _types(out)
    assert types.count("fused_elemwise_add_activation") == 1
    assert types.count("fused_elemwise_add_activation_grad") == 1
    assert "tanh" not in types and "tanh_grad" not in types
    assert out._pass_stats["fuse_elewise_add_act"] == 2
    assert "fc_0.tmp_1" not in out.global_block().vars   # the intermediate is gone


def test_bias_add_relu_uses_the_single_pass_kernel_ops():
    main, loss, _ = _mlp_program("relu")
    types = _types(apply_passes(main, _strategy(fuse_elewise_add_act_ops=True), [loss.name]))
    assert types.count("fused_elemwise_add_relu") == 1
    assert types.count("fused_elemwise_add_relu_grad") == 1
    assert "relu" not in types and "relu_grad" not in types


def test_a_full_add_takes_the_generic_fused_op():
    """The compiled kernel covers a bias on a 2-D X; a residual add + relu still fuses."""
    x = static.data("x", [None, 4], "float32")
    loss = paddle.mean(paddle.nn.functional.relu(static.nn.fc(x, 4) + x))
    paddle.optimizer.SGD(0.1).minimize(loss)
    out = apply_passes(static.default_main_program(),
                       _strategy(fuse_elewise_add_act_ops=True), [loss.name])
    types = _types(out)
    assert "fused_elemwise_add_relu" not in types
    assert "fused_elemwise_add_relu_grad" not in types
    assert types.count("fused_elemwise_add_activation") == 1
    assert types.count("fused_elemwise_add_activation_grad") == 1
    assert "relu" not in types


@pytest.mark.parametrize("act", ["relu", "tanh"])
def test_fused_chains_keep_lod(act):
    """fc's bias add + activation fused (the single-pass relu kernel or the generic chain)
    on a LoD input: the same rows and the same LoD as unfused, on outputs and gradients
    (the members' LoD rules)."""
    def run(fuse):
        main, startup = static.Program(), static.Program()
        with unique_name.guard(), static.program_guard(main, startup):
            x = static.data("x", [None, 4], "float32", lod_level=1)
            x.stop_gradient = False
            h = fluid.layers.fc(x, 3, act=act,
                                param_attr=fluid.ParamAttr(initializer=fluid.initializer.
                                                         Constant(0.25)))
            loss = paddle.mean(h)
            dx, = static.gradients([loss], [x])
        program = static.CompiledProgram(main, build_strategy=_strategy(
            fuse_elewise_add_act_ops=fuse))
        exe = static.Executor()
        scope = Scope()
        with static.scope_guard(scope):
            exe.run(startup)
            rows = np.linspace(-1, 1, 20).astype("float32").reshape(5, 4)
            return exe.run(program, feed={"x": (rows, [[2, 3]])}, fetch_list=[h, dx],
                           return_numpy=False)
    fused, plain = run(True), run(False)
    for f, p in zip(fused, plain):
        np.testing.assert_allclose(np.array(f), np.array(p), rtol=1e-6)
        assert f.recursive_sequence_lengths() == p.recursive_sequence_lengths() == [[2, 3]]


def _compiled_inplace_ops(main, loss, strategy, runs):
    """Run `main` `runs` times plain and `runs` times compiled with `strategy`, each from
    the startup program's values: the losses must agree; the compiled plan's count of ops
    that ran in place."""
    exe = static.Executor()
    exe.run(static.default_startup_program())
    start = {n: v.copy() for n, v in static.global_scope()._values.items()}
    feed = {"x": np.linspace(-1, 1, 8, dtype="float32").reshape(2, 4)}
    results = []
    for prog in (main, static.CompiledProgram(main, build_strategy=strategy)):
        scope = Scope()
        scope._values.update((n, v.copy()) for n, v in start.items())
        results.append([exe.run(prog, feed=feed, fetch_list=[loss], scope=scope)[0]
                        for _ in range(runs)])
    np.testing.assert_array_equal(results[1], results[0])
    (_, plans, _, _), = prog._device_sets[id(scope)].plans.values()
    return plans[0].inplace_ops


def test_fused_add_relu_runs_in_place_when_x_dies():
    main, loss, _ = _mlp_program("relu")
    strategy = _strategy(fuse_elewise_add_act_ops=True, enable_inplace=True)
    # the fused add + relu writes into the mul output, which its grad no longer reads
    # (fc_1's plain bias add cannot: elementwise_add_grad reads its X)
    assert _compiled_inplace_ops(main, loss, strategy, runs=2) == 1


def test_fusion_skips_a_fetched_intermediate():
    main, loss, _ = _mlp_program("relu")
    out = apply_passes(main, _strategy(fuse_elewise_add_act_ops=True),
                       [loss.name, "fc_0.tmp_1"])
    assert "relu" in _types(out)


def test_fusion_skips_an_intermediate_used_elsewhere():
    x = static.data("x", [None, 4], "float32")
    pre = static.nn.fc(x, 4)
    loss = paddle.mean(paddle.nn.functional.relu(pre)) + paddle.mean(pre)
    out = apply_passes(static.default_main_program(),
                       _strategy(fuse_elewise_add_act_ops=True), [loss.name])
    assert "relu" in _types(out) and "fused_elemwise_add_relu" not in _types(out)


def test_bn_act_and_bn_add_act():
    x = static.data("x", [None, 3, 4, 4], "float32")
    a = fluid.layers.batch_norm(x, act="relu")
    b = fluid.layers.batch_norm(a)
    c = paddle.nn.functional.relu(b + a)
    loss = paddle.mean(c)
    paddle.optimizer.SGD(0.1).minimize(loss)
    main = static.default_main_program()
    out = apply_passes(main, _strategy(fuse_bn_act_ops=True, fuse_bn_add_act_ops=True),
                       [loss.name])
    types = _types(out)
    assert types.count("fused_bn_add_activation") == 1
    assert types.count("fused_batch_norm_act") == 1
    assert types.count("fused_bn_add_activation_grad") == 1


def test_relu_depthwise_conv():
    x = static.data("x", [None, 3, 6, 6], "float32")
    h = paddle.nn.functional.relu(fluid.layers.conv2d(x, 3, 1))
    loss = paddle.mean(fluid.layers.conv2d(h, 3, 3, groups=3))
    paddle.optimizer.SGD(0.1).minimize(loss)
    types = _types(apply_passes(static.default_main_program(),
                                _strategy(fuse_relu_depthwise_conv=True), [loss.name]))
    assert "fused_relu_depthwise_conv" in types and "depthwise_conv2d" not in types
    assert "fused_relu_depthwise_conv_grad" in types


def test_fuse_all_optimizer_ops_and_not_under_reduce():
    main, loss, _ = _mlp_program()
    assert _types(apply_passes(main, _strategy(fuse_all_optimizer_ops=True),
                               [loss.name])).count("fused_optimizer") == 1
    reduce = _strategy(fuse_all_optimizer_ops=True,
                       reduce_strategy=static.BuildStrategy.ReduceStrategy.Reduce)
    assert "fused_optimizer" not in _types(apply_passes(main, reduce, [loss.name]))


def _build(kind, seed):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), unique_name.guard():
        init = paddle.nn.initializer.Uniform(-0.4, 0.4, seed=seed + 1)   # 0 would be random
        attr = lambda: paddle.ParamAttr(initializer=init)   # noqa: E731
        if kind == "mlp":
            x = static.data("x", [None, 6], "float32")
            h = static.nn.fc(x, 6, activation="relu", weight_attr=attr())
            h2 = static.nn.fc(h, 6, activation="tanh", weight_attr=attr())
            h = fluid.layers.dropout(h2 + h, 0.2, seed=5)   # residual add
            h = static.nn.batch_norm(h, act="relu")
        else:
            x = static.data("x", [None, 2, 6, 6], "float32")
            h = fluid.layers.conv2d(x, 4, 3, padding=1, act=None, param_attr=attr())
            h = fluid.layers.batch_norm(h, act="relu")
            h = fluid.layers.conv2d(h, 4, 3, padding=1, groups=4, param_attr=attr())
            h = fluid.layers.pool2d(paddle.nn.functional.relu(h), 2, "max", 2)
        loss = paddle.mean(static.nn.fc(h, 1, weight_attr=attr()))
        paddle.optimizer.Momentum(0.05, momentum=0.9).minimize(loss)
    return main, startup, loss


def test_num_iteration_per_drop_scope_keeps_temporaries_between_drops():
    main, loss, _ = _mlp_program()
    scope = Scope()
    exe = static.Executor()
    exe.run(static.default_startup_program(), scope=scope)
    prog = static.CompiledProgram(main, build_strategy=_strategy(memory_optimize=False))
    es = static.ExecutionStrategy()
    es.num_iteration_per_drop_scope = 3
    prog._exec_strategy = es
    feed = {"x": np.ones((2, 4), "float32")}
    alive = []
    for _ in range(3):
        exe.run(prog, feed=feed, scope=scope)
        alive.append(scope.find_var("fc_0.tmp_0") is not None)
    assert alive == [True, True, False]
    exe.run(prog, feed=feed, fetch_list=[loss], scope=scope)   # a fetching run always drops
    assert scope.find_var("fc_0.tmp_0") is None


def test_fused_optimizer_runs_every_member_update():
    """One fused_optimizer op for every momentum update, with exactly the unfused results."""
    results = []
    for fuse in (False, True):
        main, startup, loss = _build("mlp", 4)
        scope = Scope()
        exe = static.Executor()
        exe.run(startup, scope=scope)
        prog = static.CompiledProgram(main, build_strategy=_strategy(
            fuse_all_optimizer_ops=fuse))
        for _ in range(3):
            exe.run(prog, feed={"x": np.ones((4, 6), "float32")}, fetch_list=[loss],
                    scope=scope)
        (programs, _, _, _), = prog._device_sets[id(scope)].plans.values()
        types = _types(programs[0])
        assert types.count("fused_optimizer") == int(fuse)
        assert ("momentum" in types) != fuse
        results.append({p.name: scope._values[p.name].copy() for p in main.all_parameters()})
    for n in results[0]:
        np.testing.assert_array_equal(results[1][n], results[0][n], err_msg=n)


def test_fused_optimizer_updates_one_coalesced_buffer():
    from refimpl.executor.direct import flat_base
    main, startup, loss = _build("mlp", 4)
    scope = Scope()
    exe = static.Executor()
    exe.run(startup, scope=scope)
    prog = static.CompiledProgram(main, build_strategy=_strategy(fuse_all_optimizer_ops=True))
    exe.run(prog, feed={"x": np.ones((4, 6), "float32")}, fetch_list=[loss], scope=scope)
    fused = [op for op in prog._device_sets[id(scope)].plans_for(["x"], [loss.name]).programs[0]
             .global_block().ops if op.type == "fused_optimizer"]
    assert len(fused) == 1
    for slot in ("Param", "Velocity"):
        names = [sub[1][slot][0] for sub in fused[0].attr("sub_ops")]
        arrays = [scope._values[n] for n in names]
        assert flat_base(arrays) is not None, slot   # one buffer, in order, as views


def test_enable_auto_fusion_runs_the_elementwise_fusion():
    main, loss, _ = _mlp_program("tanh")
    types = _types(apply_passes(main, _strategy(enable_auto_fusion=True), [loss.name]))
    assert "fused_elemwise_add_activation" in types and "tanh" not in types


@pytest.mark.parametrize("addto", [False, True])
def test_enable_addto_accumulates_gradients_in_place(addto):
    """x feeds two branches, so its gradient is a sum of two partial gradients; with
    enable_addto the sum adds into the first one's buffer, results unchanged."""
    x = static.data("x", [None, 4], "float32")
    h = static.nn.fc(x, 4)
    loss = paddle.mean(static.nn.fc(h, 2)) + paddle.mean(paddle.tanh(h))
    paddle.optimizer.SGD(0.1).minimize(loss)
    main = static.default_main_program()
    assert "sum" in _types(main)
    # the gradient sum in place, and only with addto
    assert _compiled_inplace_ops(main, loss, _strategy(enable_addto=addto), runs=3) == int(addto)


def test_num_iteration_per_run_runs_the_program_that_many_times():
    main, loss, _ = _mlp_program()
    exe = static.Executor()
    exe.run(static.default_startup_program())
    start = {n: v.copy() for n, v in static.global_scope()._values.items()}
    feed = {"x": np.linspace(-1, 1, 8, dtype="float32").reshape(2, 4)}
    params = [p.name for p in main.all_parameters()]
    results = []
    for per_run, runs in ((1, 3), (3, 1)):
        scope = Scope()
        scope._values.update((n, v.copy()) for n, v in start.items())
        es = static.ExecutionStrategy()
        es.num_iteration_per_run = per_run
        prog = static.CompiledProgram(main)
        prog._exec_strategy = es
        last = [exe.run(prog, feed=feed, fetch_list=[loss], scope=scope)[0]
                for _ in range(runs)][-1]
        results.append((last, [scope._values[n].copy() for n in params]))
    (loss_a, params_a), (loss_b, params_b) = results
    np.testing.assert_array_equal(loss_b, loss_a)   # the last iteration's fetch
    for a, b in zip(params_a, params_b):
        np.testing.assert_array_equal(b, a)


def test_fused_activation_runs_in_the_add_output_it_alone_reads():
    """Inside a fused add + activation the sum is private to the chain, so the activation
    writes into it (the in-place epilogue), whatever enable_inplace says."""
    from refimpl.executor.direct import _in_place_members
    x = static.data("x", [None, 4], "float32")
    loss = paddle.mean(paddle.nn.functional.relu(static.nn.fc(x, 4) + x))
    paddle.optimizer.SGD(0.1).minimize(loss)
    out = apply_passes(static.default_main_program(),
                       _strategy(fuse_elewise_add_act_ops=True), [loss.name])
    fused, = [op for op in out.global_block().ops
              if op.type == "fused_elemwise_add_activation"]
    assert _in_place_members(fused.attr("sub_ops"), fused.attr("output_names")) == {1}
