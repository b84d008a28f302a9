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


def _net(depth, checkpoint_layers, recompute, inner="sgd", dropout=0.0, batch_norm=False,
         conv=False, width=6):
    """depth fc (or 3x3 conv2d) + relu layers, optional batch_norm/dropout, a 3-way softmax
    loss; the outputs of `checkpoint_layers` (layer indices) are the checkpoints."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), unique_name.guard():
        x = fluid.layers.data("x", _input_shape(conv, width), dtype="float32")
        y = fluid.layers.data("y", [1], dtype="int64")
        h, checkpoints = x, []
        attr = paddle.ParamAttr(initializer=paddle.nn.initializer.Uniform(-0.3, 0.3, seed=3))
        for i in range(depth):
            if conv:
                h = fluid.layers.conv2d(h, 2, 3, padding=1, act="relu", param_attr=attr)
            else:
                h = fluid.layers.fc(h, width, act="relu", param_attr=attr)
            if batch_norm and i % 2 == 0:
                h = fluid.layers.batch_norm(h)
            if dropout:
                h = fluid.layers.dropout(h, dropout, seed=11 + i)
            if i in checkpoint_layers:
                checkpoints.append(h)
        logits = fluid.layers.fc(h, 3, param_attr=attr)
        loss = fluid.layers.reduce_mean(fluid.layers.softmax_with_cross_entropy(logits, y))
        opt = INNER[inner]()
        if recompute:
            opt = fluid.optimizer.RecomputeOptimizer(opt)
            opt._set_checkpoints(checkpoints)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # no usable checkpoint: the documented fallback
            opt.minimize(loss)
    return main, startup, loss


def _input_shape(conv, width):
    return [2, 4, 4] if conv else [width]


def _train(main, startup, loss, steps=3, batch=8, conv=False, width=6, places=None,
           build_strategy=None):
    scope = Scope()
    exe = static.Executor()
    exe.run(startup, scope=scope)
    prog = main if places is None else static.CompiledProgram(
        main, build_strategy=build_strategy).with_data_parallel(
        loss_name=loss.name, places=[paddle.CPUPlace()] * places)
    rng = np.random.RandomState(0)
    losses = []
    for _ in range(steps):
        feed = {"x": rng.randn(batch, *_input_shape(conv, width)).astype("float32"),
                "y": rng.randint(0, 3, (batch, 1)).astype("int64")}
        losses.append(exe.run(prog, feed=feed, fetch_list=[loss], scope=scope)[0])
    params = {p.name: np.array(scope.find_var(p.name).get_tensor()) for p in main.all_parameters()}
    return np.array(losses), params


def _assert_same_training(plain, recomputed):
    np.testing.assert_allclose(recomputed[0], plain[0], rtol=1e-6)
    for k in plain[1]:
        np.testing.assert_allclose(recomputed[1][k], plain[1][k], rtol=1e-6, atol=1e-7,
                                   err_msg=k)


@st.composite
def _programs(draw):
    depth = draw(st.integers(1, 5))
    return dict(depth=depth,
                checkpoint_layers=draw(st.sets(st.integers(0, depth - 1))),
                inner=draw(st.sampled_from(sorted(INNER))),
                dropout=draw(st.sampled_from([0.0, 0.3])),
                batch_norm=draw(st.booleans()), conv=draw(st.booleans()))


@settings(max_examples=12, deadline=None)
@given(_programs())
def test_recompute_equals_plain_training(program):
    conv = program["conv"]
    kwargs = dict(program)
    checkpoint_layers = kwargs.pop("checkpoint_layers")
    plain = _train(*_net(recompute=False, checkpoint_layers=(), **kwargs), conv=conv)
    recomputed = _train(*_net(recompute=True, checkpoint_layers=checkpoint_layers, **kwargs),
                        conv=conv)
    _assert_same_training(plain, recomputed)


@pytest.mark.parametrize("passes", [False, True])
def test_recompute_under_data_parallel(passes):
    strategy = static.BuildStrategy()
    for name in ("fuse_elewise_add_act_ops", "fuse_bn_act_ops", "enable_inplace",
                 "memory_optimize", "fuse_all_optimizer_ops"):
        setattr(strategy, name, passes)
    plain = _train(*_net(4, (), False, "momentum", 0.3, batch_norm=True), places=2,
                   build_strategy=strategy)
    recomputed = _train(*_net(4, {0, 2}, True, "momentum", 0.3, batch_norm=True), places=2,
                        build_strategy=strategy)
    _assert_same_training(plain, recomputed)


def _recomputed(block):
    """{output name: op type} of the recomputation ops."""
    return {n: op.type for op in block.ops for n in op.output_arg_names if ".subprog_" in n}


def test_segments_are_recomputed_with_subprog_names():
    main, _, _ = _net(4, {0, 2}, True)   # checkpoints: relu outputs of layers 0 and 2
    block = main.global_block()
    # Segments, numbered in backward order: layers 1-2 (subprog_0), layer 0 (subprog_1).
    # Only what the grad ops read is recomputed: mul outputs (elementwise_add_grad's X) and
    # layer 1's relu (mul_grad's X); checkpoints and layer 3 (after the last) are not.
    assert _recomputed(block) == {
        "fc_1.tmp_0.subprog_0": "mul", "fc_1.tmp_1.subprog_0": "elementwise_add",
        "fc_1.tmp_2.subprog_0": "relu", "fc_2.tmp_0.subprog_0": "mul",
        "fc_0.tmp_0.subprog_1": "mul"}
    layer2_mul_grad, = [op for op in block.ops
                        if op.type == "mul_grad" and op.input("Y") == ["fc_2.w_0"]]
    assert layer2_mul_grad.input("X") == ["fc_1.tmp_2.subprog_0"]
    relu_grad_outs = [op.input("Out")[0] for op in block.ops if op.type == "relu_grad"]
    assert "fc_2.tmp_2" in relu_grad_outs and "fc_0.tmp_2" in relu_grad_outs
    # each segment is recomputed right before its first grad op
    first_copy = min(i for i, op in enumerate(block.ops)
                     if any(n.endswith(".subprog_0") for n in op.output_arg_names))
    before = block.ops[first_copy - 1]
    assert before.type == "mul_grad" and before.input("Y") == ["fc_3.w_0"]


def test_a_single_checkpoint_recomputes_the_ops_before_it():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), unique_name.guard():
        x = fluid.layers.data("x", [4], dtype="float32")
        h = fluid.layers.fc(fluid.layers.fc(x, 4, act="relu"), 4, act="relu")
        loss = fluid.layers.mean(fluid.layers.fc(h, 2))
        opt = fluid.optimizer.RecomputeOptimizer(fluid.optimizer.SGD(0.1))
        opt._set_checkpoints([h.name])
        opt.minimize(loss)
    assert _recomputed(main.global_block()) == {
        "fc_0.tmp_0.subprog_0": "mul", "fc_0.tmp_1.subprog_0": "elementwise_add",
        "fc_0.tmp_2.subprog_0": "relu", "fc_1.tmp_0.subprog_0": "mul"}


def test_callbacks_run_with_checkpoints():
    main, startup = static.Program(), static.Program()
    seen = []
    with static.program_guard(main, startup), unique_name.guard():
        x = fluid.layers.data("x", [4], dtype="float32")
        h = fluid.layers.fc(x, 4, act="relu")
        loss = fluid.layers.mean(fluid.layers.fc(h, 2))
        opt = fluid.optimizer.RecomputeOptimizer(fluid.optimizer.SGD(0.1))
        opt.backward(loss, callbacks=[lambda block, context: seen.append(block)],
                     checkpoints=[h])
    assert seen == [main.global_block()]
    assert _recomputed(main.global_block())


def test_paddle_spellings():
    assert paddle.fluid.optimizer.RecomputeOptimizer is paddle.incubate.optimizer.RecomputeOptimizer


def test_dropout_in_a_segment_gets_a_shared_seed():
    main, _, _ = _net(3, {0, 1, 2}, True, dropout=0.5)
    block = main.global_block()
    dropouts = [op for op in block.ops if op.type == "dropout"]
    seeds = {op.input("Seed")[0] for op in dropouts if op.input("Seed")}
    recomputed = [op for op in dropouts if any(".subprog_" in n for n in op.output_arg_names)]
    assert recomputed and all(op.input("Seed")[0] in seeds for op in recomputed)
    assert "seed" in [op.type for op in block.ops]


def test_unseeded_dropout_masks_replay_in_the_recomputation():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), unique_name.guard():
        x = fluid.layers.data("x", [64], dtype="float32")
        first = fluid.layers.fc(x, 64, act="relu")
        dropped = fluid.layers.dropout(fluid.layers.fc(first, 64), 0.5)   # no seed
        last = fluid.layers.fc(dropped, 64, act="relu")
        loss = fluid.layers.mean(fluid.layers.fc(last, 1))
        opt = fluid.optimizer.RecomputeOptimizer(fluid.optimizer.SGD(0.1))
        opt._set_checkpoints([first, last])
        opt.minimize(loss)
    masks = [n for n in _recomputed(main.global_block()) if ".tmp_1.subprog" in n
             and main.global_block().var(n).dtype.name == "uint8"]
    assert len(masks) == 1
    forward_mask = masks[0].split(".subprog_")[0]
    scope, exe = Scope(), static.Executor()
    exe.run(startup, scope=scope)
    feed = {"x": np.ones((8, 64), "float32")}
    runs = [exe.run(main, feed=feed, fetch_list=[forward_mask, masks[0]], scope=scope)
            for _ in range(2)]
    for fwd, recomputed in runs:
        np.testing.assert_array_equal(recomputed, fwd)
        assert 0.3 < fwd.mean() < 0.7
    assert (runs[0][0] != runs[1][0]).any()   # a fresh mask each step


@pytest.mark.parametrize("checkpoints", [None, []])
def test_no_checkpoints_falls_back_with_a_warning(checkpoints):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), unique_name.guard():
        x = fluid.layers.data("x", [4], dtype="float32")
        loss = fluid.layers.mean(fluid.layers.fc(x, 2))
        opt = fluid.optimizer.RecomputeOptimizer(fluid.optimizer.SGD(0.1))
        if checkpoints is not None:
            opt._set_checkpoints(checkpoints)
        with pytest.warns(UserWarning, match="no checkpoints set"):
            params_grads = opt.backward(loss)
    assert [p.name for p, _ in params_grads] == ["fc_0.w_0", "fc_0.b_0"]
    assert not _recomputed(main.global_block())
    with pytest.raises(TypeError, match="list of Variables"):
        opt._set_checkpoints("fc_0.tmp_0")
    with pytest.raises(TypeError, match="Variables or names, got int"):
        opt.backward(loss, checkpoints=[3])


def test_checkpoints_off_the_path_and_duplicates_are_ignored():
    def build(checkpoints):
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup), unique_name.guard():
            x = fluid.layers.data("x", [4], dtype="float32")
            h = fluid.layers.fc(x, 4, act="relu")
            side = fluid.layers.fc(x, 4)
            loss = fluid.layers.mean(fluid.layers.fc(h, 2))
            opt = fluid.optimizer.RecomputeOptimizer(fluid.optimizer.SGD(0.1))
            opt._set_checkpoints(checkpoints(h, side))
            opt.minimize(loss)
        return main

    with pytest.warns(UserWarning, match=r"\['fc_1.tmp_1'\] are not produced on the path"):
        noisy = build(lambda h, side: [h, side, h.name])
    clean = build(lambda h, side: [h])
    assert [op.type for op in noisy.global_block().ops] == \
        [op.type for op in clean.global_block().ops]
    assert _recomputed(clean.global_block()) == {"fc_0.tmp_0.subprog_0": "mul"}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        build(lambda h, side: [side])
    # only the optimizer's own warnings: "always" also records whatever else the process
    # emits meanwhile (a garbage-collected object's ResourceWarning, ...)
    ours = [str(w.message) for w in caught if "RecomputeOptimizer" in str(w.message)]
    assert ["not produced on the path" in m for m in ours] == [True, False]
    assert "using the plain backward" in ours[1]


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
    plain_main, _, plain_loss = _net(16, (), False, width=64)
    rc_main, _, rc_loss = _net(16, range(3, 16, 4), True, width=64)
    plain, recomputed = _peak(plain_main, plain_loss), _peak(rc_main, rc_loss)
    # 16 layers, 4 checkpoints: the plain net holds one activation a layer (relu's output;
    # the mul output before the bias add is a buffer-less stand-in, test_shape_only_inputs),
    # the recomputed one the 4 checkpoints and one segment's 4 at a time: about 2x
    assert recomputed < 0.6 * plain, (plain, recomputed)
