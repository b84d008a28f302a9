"""What Paddle 2.0's paddle.fluid docstring examples needed (specs/api_examples.md, ex20st):
each test checks the behaviour one of them relies on against hand-derived values."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl import fluid, static


def _run(build, feed=None):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        fetch = build()
    exe = static.Executor()
    exe.run(startup)
    return exe.run(main, feed=feed or {}, fetch_list=fetch)


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
