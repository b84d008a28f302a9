"""What Paddle 2.0's paddle.fluid docstring examples needed (specs/api_examples.md, ex20st):
each test checks the behaviour one of them relies on against hand-derived values."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl import fluid, static

from helpers import build_and_run as _run


def test_fluid_topk_reads_k_from_a_variable():
    x = np.array([[3., 1., 4., 1.5], [9., 2., 6., 5.]], "float32")

    def build():
        k = fluid.data("k", [1], "int32")
        values, indices = fluid.layers.topk(fluid.data("x", [None, 4], "float32"), k=k)
        assert values.shape == (-1, -1)      # k is known only when the op runs
        return [values, indices]
    values, indices = _run(build, {"x": x, "k": np.array([2], "int32")})
    np.testing.assert_array_equal(values, [[4., 3.], [9., 6.]])
    np.testing.assert_array_equal(indices, [[2, 0], [0, 2]])


def test_a_control_flow_op_in_dygraph_names_itself_and_static_mode():
    paddle.disable_static()
    try:
        i = fluid.layers.fill_constant([1], "int64", 0)
        cond = fluid.layers.less_than(i, fluid.layers.fill_constant([1], "int64", 3))
        loop = fluid.layers.While(cond=cond)
        with pytest.raises(ValueError, match=r"operator while\].*enable_static"):
            with loop.block():
                fluid.layers.increment(i, in_place=True)
    finally:
        paddle.enable_static()


def test_static_variable_clone_copies_the_value_and_passes_gradients_back():
    x_value = np.arange(6, dtype="float32").reshape(3, 2, 1)

    def build():
        x = static.data("x", [3, 2, 1], "float32")
        x.stop_gradient = False
        y = x.clone()
        assert y.name.startswith("x_clone") and y.shape == x.shape and not y.stop_gradient
        loss = paddle.sum(y * y)
        (dx,) = static.gradients([loss], [x])
        return [y, dx]
    y, dx = _run(build, {"x": x_value})
    np.testing.assert_array_equal(y, x_value)
    np.testing.assert_array_equal(dx, 2 * x_value)


def test_no_xpu_build():
    assert fluid.is_compiled_with_xpu() is False
    assert fluid.framework.is_compiled_with_xpu() is False
    for places in (static.xpu_places, fluid.xpu_places, fluid.framework.xpu_places):
        with pytest.raises(AssertionError, match="not compiled with XPU"):
            places()


def test_fetching_an_eager_tensor_says_it_is_one():
    paddle.disable_static()
    try:
        x = fluid.layers.fill_constant([2], "float32", 1.0)
        with pytest.raises(TypeError, match="eager Tensor.*enable_static"):
            fluid.Executor(fluid.CPUPlace()).run(fetch_list=[x])
    finally:
        paddle.enable_static()


def test_unique_name_switch_swaps_the_generator_and_the_parameter_name_checker():
    from refimpl.utils import unique_name
    with unique_name.guard():
        assert [unique_name.generate("fc"), unique_name.generate("fc")] == ["fc_0", "fc_1"]
        old_generator, old_checker = unique_name.switch()
        assert unique_name.generate("fc") == "fc_0"
        assert old_checker("w") is False and old_checker("w") is True
        fresh = unique_name.switch(old_generator, old_checker)
        assert unique_name.generate("fc") == "fc_2"
        assert len(fresh) == 2 and fresh[0] is not old_generator


def test_fluid_sign_takes_a_numpy_array():
    x = np.array([3.0, 0.0, -2.0], "float32")
    (out,) = _run(lambda: [fluid.layers.sign(x)])
    np.testing.assert_array_equal(out, [1.0, 0.0, -1.0])
    paddle.disable_static()
    try:
        np.testing.assert_array_equal(fluid.layers.sign(x).numpy(), [1.0, 0.0, -1.0])
    finally:
        paddle.enable_static()


def test_not_to_static_leaves_the_function_as_written():
    def minus_one(x):
        return x - 1
    assert paddle.jit.not_to_static(minus_one) is minus_one
    assert paddle.jit.not_to_static()(minus_one) is minus_one
    assert fluid.dygraph.jit.not_to_static is paddle.jit.not_to_static
    paddle.disable_static()
    try:
        decorated = paddle.jit.to_static(lambda x: paddle.jit.not_to_static(minus_one)(x) * 2)
        np.testing.assert_array_equal(decorated(paddle.ones([1, 2])).numpy(), [[0., 0.]])
    finally:
        paddle.enable_static()


def test_static_amp_is_fluid_mixed_precision():
    from refimpl.fluid.contrib import mixed_precision
    assert static.amp.decorate is mixed_precision.decorate
    assert static.amp.CustomOpLists is static.amp.AutoMixedPrecisionLists
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        loss = paddle.mean(static.nn.fc(static.data("x", [None, 1], "float32"), size=10))
        optimizer = static.amp.decorate(paddle.optimizer.Adam(0.001), init_loss_scaling=8.0)
        optimizer.minimize(loss)
    types = [op.type for op in main.global_block().ops]
    # fp16 casts around the fc, and the loss scaling's overflow check
    assert types.count("cast") >= 2 and "isfinite" in types
    assert optimizer.get_scaled_loss() is not None


def test_parallel_env_nrings_reads_flags_nccl_nrings(monkeypatch):
    from refimpl import distributed
    monkeypatch.delenv("FLAGS_nccl_nrings", raising=False)
    assert distributed.ParallelEnv().nrings == 1
    monkeypatch.setenv("FLAGS_nccl_nrings", "3")
    assert distributed.ParallelEnv().nrings == 3
    monkeypatch.setenv("FLAGS_nccl_nrings", "9")
    with pytest.raises(AssertionError, match="FLAGS_nccl_nrings"):
        distributed.ParallelEnv().nrings


def test_static_print_is_fluid_print(capfd):
    def build():
        x = paddle.full([2, 3], 3, "int64")
        return [static.Print(x, message="The content of input layer:")]
    (out,) = _run(build)
    np.testing.assert_array_equal(out, np.full([2, 3], 3))
    assert "data: 3,3,3,3,3,3," in capfd.readouterr().out


def test_static_nn_has_the_fluid_layers_paddle_20_re_exports():
    def build():
        x = paddle.full([1], 0.3, "float32")
        y = paddle.full([1], 0.1, "float32")
        case = static.nn.case([(x < y, lambda: paddle.full([1], 1.0, "float32"))],
                              default=lambda: paddle.full([1], 2.0, "float32"))
        index = paddle.full([1], 1, "int32")
        switch = static.nn.switch_case(index, {0: lambda: paddle.full([1], 5.0, "float32"),
                                               1: lambda: paddle.full([1], 6.0, "float32")})
        prelu = static.nn.prelu(paddle.full([2], -2.0, "float32"), mode="all")
        return [case, switch, prelu]
    case, switch, prelu = _run(build)
    assert case[0] == 2.0 and switch[0] == 6.0
    np.testing.assert_allclose(prelu, [-0.5, -0.5])     # alpha starts at 0.25


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def _cell_inputs(rng, batch=3, input_size=4, hidden=5):
    return [rng.uniform(-1, 1, shape) for shape in
            ((batch, input_size), (batch, hidden), (batch, hidden))]


def test_dygraph_lstm_cell_both_layouts_against_numpy():
    x, h, c = _cell_inputs(np.random.RandomState(0))
    paddle.disable_static()
    try:
        cudnn = fluid.dygraph.LSTMCell(5, 4)
        assert [list(p.shape) for p in cudnn.parameters()] == [[20, 4], [20, 5], [20], [20]]
        for p in cudnn.parameters():        # non-zero biases too
            p.set_value(np.random.RandomState(1).uniform(-1, 1, p.shape))
        w_ih, w_hh, b_ih, b_hh = [p.numpy() for p in cudnn.parameters()]
        i, f, g, o = np.split(x @ w_ih.T + b_ih + h @ w_hh.T + b_hh, 4, axis=1)
        want_c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
        got_h, got_c = cudnn(*[paddle.to_tensor(v) for v in (x, h, c)])
        np.testing.assert_allclose(got_c.numpy(), want_c, rtol=1e-12)
        np.testing.assert_allclose(got_h.numpy(), _sigmoid(o) * np.tanh(want_c), rtol=1e-12)

        basic = fluid.dygraph.LSTMCell(5, 4, use_cudnn_impl=False, forget_bias=0.5)
        weight, bias = [p.numpy() for p in basic.parameters()]
        assert weight.shape == (9, 20) and bias.shape == (20,)
        i, j, f, o = np.split(np.concatenate([x, h], 1) @ weight + bias, 4, axis=1)
        want_c = c * _sigmoid(f + 0.5) + _sigmoid(i) * np.tanh(j)
        got_h, got_c = basic(*[paddle.to_tensor(v) for v in (x, h, c)])
        np.testing.assert_allclose(got_c.numpy(), want_c, rtol=1e-12)
        np.testing.assert_allclose(got_h.numpy(), np.tanh(want_c) * _sigmoid(o), rtol=1e-12)
    finally:
        paddle.enable_static()


def test_dygraph_gru_cell_both_layouts_against_numpy():
    x, h, _ = _cell_inputs(np.random.RandomState(2))
    paddle.disable_static()
    try:
        cudnn = fluid.dygraph.GRUCell(5, 4, param_attr=fluid.ParamAttr(name="g"))
        assert [p.name for p in cudnn.parameters()][:2] == ["g_weight_ih", "g_weight_hh"]
        for p in cudnn.parameters():
            p.set_value(np.random.RandomState(3).uniform(-1, 1, p.shape))
        w_ih, w_hh, b_ih, b_hh = [p.numpy() for p in cudnn.parameters()]
        x_r, x_u, x_n = np.split(x @ w_ih.T + b_ih, 3, axis=1)
        h_r, h_u, h_n = np.split(h @ w_hh.T + b_hh, 3, axis=1)
        r, u = _sigmoid(x_r + h_r), _sigmoid(x_u + h_u)
        want = u * h + (1 - u) * np.tanh(x_n + r * h_n)
        got = cudnn(paddle.to_tensor(x), paddle.to_tensor(h))
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)

        basic = fluid.dygraph.GRUCell(5, 4, use_cudnn_impl=False)
        gate_w, cand_w, gate_b, cand_b = [p.numpy() for p in basic.parameters()]
        r, u = np.split(_sigmoid(np.concatenate([x, h], 1) @ gate_w + gate_b), 2, axis=1)
        cand = np.tanh(np.concatenate([x, r * h], 1) @ cand_w + cand_b)
        got = basic(paddle.to_tensor(x), paddle.to_tensor(h))
        np.testing.assert_allclose(got.numpy(), u * h + (1 - u) * cand, rtol=1e-12)
    finally:
        paddle.enable_static()


def test_distributed_batch_reader_gives_each_trainer_its_batch_of_each_run(monkeypatch):
    def batches():
        return iter(range(7))
    monkeypatch.setenv("PADDLE_TRAINERS_NUM", "3")
    shares = []
    for trainer in range(3):
        monkeypatch.setenv("PADDLE_TRAINER_ID", str(trainer))
        shares.append(list(fluid.contrib.reader.distributed_batch_reader(batches)()))
    assert shares == [[0, 3], [1, 4], [2, 5]]      # batch 6 starts a run that never ends
    monkeypatch.delenv("PADDLE_TRAINERS_NUM")
    monkeypatch.delenv("PADDLE_TRAINER_ID")
    assert list(fluid.contrib.reader.distributed_batch_reader(batches)()) == list(range(7))


def test_static_accuracy_and_auc_are_fluid_layers_metric_ops():
    predict = np.array([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7]], "float32")
    label = np.array([[1], [0], [1]], "int64")

    def build():
        x = static.data("x", [3, 2], "float32")
        y = static.data("y", [3, 1], "int64")
        return [static.accuracy(x, y, k=1), static.auc(x, y)[0]]
    accuracy, auc = _run(build, {"x": predict, "y": label})
    np.testing.assert_allclose(accuracy, [1.0], rtol=1e-6)
    # every positive (class-1 score 0.9, 0.7) ranks above the negative (0.2)
    np.testing.assert_allclose(auc, 1.0, rtol=1e-6)
    assert static.save_vars is fluid.io.save_vars and static.load_vars is fluid.io.load_vars


def test_instance_norm_takes_an_input_without_spatial_dims():
    # Paddle takes X of rank 2 to 5; each (n, c) slice of an [N, C] X is one element, so
    # it is its own mean and Y is the bias
    x = np.arange(6, dtype="float32").reshape(3, 2)

    def build():
        h = static.data("x", [3, 2], "float32")
        return [static.nn.instance_norm(
            h, bias_attr=fluid.ParamAttr(initializer=fluid.initializer.Constant(0.5)))]
    (y,) = _run(build, {"x": x})
    np.testing.assert_allclose(y, np.full([3, 2], 0.5))
    with pytest.raises(ValueError, match="rank 2 to 5"):
        static.nn.instance_norm(static.data("v", [1, 2, 1, 1, 1, 1], "float32"))
