"""Layer and Tensor APIs after 2.0 that Paddle 3's test_base_layer uses, checked on Paddle
3.3.1: Tensor._set_grad_ivar, Layer.to's blocking check, paddle.jit.enable_to_static and
register_buffer's error words (switch buffer_type_words)."""
import numpy as np
import pytest

import refimpl as paddle


@pytest.mark.paddle("3")
def test_set_grad_ivar_sets_a_parameters_gradient():
    paddle.disable_static()
    linear = paddle.nn.Linear(2, 2)
    grad = np.array([[1., 2.], [3., 4.]])
    linear.weight._set_grad_ivar(paddle.to_tensor(grad))
    np.testing.assert_allclose(linear.weight.gradient(), grad)
    linear.to(dtype="float64")
    assert linear.weight._grad_ivar().dtype == paddle.float64
    with pytest.raises(TypeError, match="only supported for Parameter Tensor"):
        paddle.to_tensor([1.])._set_grad_ivar(paddle.to_tensor([2.]))


def test_to_checks_blocking():
    paddle.disable_static()
    linear = paddle.nn.Linear(2, 2)
    with pytest.raises(AssertionError, match="blocking value error"):
        linear.to(blocking=1)
    assert linear.to(blocking=True) is linear


def test_enable_to_static_switches_every_to_static_function():
    paddle.disable_static()

    @paddle.jit.to_static
    def f(x):
        return x + 1
    try:
        paddle.jit.enable_to_static(False)
        np.testing.assert_allclose(f(paddle.to_tensor([1.])).numpy(), [2.])
        assert f.get_traced_count() == 0          # run as written: no program recorded
        with pytest.raises(TypeError, match="must be bool"):
            paddle.jit.enable_to_static(1)
    finally:
        paddle.jit.enable_to_static(True)
    np.testing.assert_allclose(f(paddle.to_tensor([1.])).numpy(), [2.])
    assert f.get_traced_count() == 1


@pytest.mark.paddle("3")
def test_register_buffer_error_words_under_3():
    paddle.disable_static()
    with pytest.raises(TypeError, match="buffer should be a Paddle.Tensor"):
        paddle.nn.Layer().register_buffer("b", paddle.base.framework.EagerParamBase(
            [2, 2], "float32"))


@pytest.mark.paddle("2.0")
def test_register_buffer_error_words_under_2_0():
    paddle.disable_static()
    with pytest.raises(TypeError, match="buffer should be a core.VarBase"):
        paddle.nn.Layer().register_buffer("b", paddle.create_parameter([2], "float32"))


def _cond_error(true_fn, false_fn):
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        pred = paddle.full([1], True, "bool")
        with pytest.raises(ValueError) as info:
            paddle.static.nn.cond(pred, true_fn, false_fn)
    return str(info.value)


def _one():
    return paddle.full([2], 7, "int32")


@pytest.mark.paddle("3")
def test_cond_counts_the_branches_values_under_3():
    # 3.3.1's words (measured)
    assert "true fn returns 1 vars, but false fn returns 2 vars, which is not equals" in \
        _cond_error(_one, lambda: (_one(), _one()))
    assert "Incompatible return values of true_fn and false_fn in cond" in \
        _cond_error(lambda: None, _one)


@pytest.mark.paddle("2.0")
def test_cond_reports_a_structure_mismatch_under_2_0():
    assert "Incompatible return values of true_fn and false_fn in cond" in \
        _cond_error(_one, lambda: (_one(), _one()))


@pytest.mark.paddle("3")
def test_a_0d_index_tensor_takes_a_row_of_run_time_dims():
    """x[i], i a 0-D int tensor, over dims known only at run time (it had reshaped the
    gathered row to the build-time dims: two -1 could not be resolved)."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data(name="x", shape=[-1, -1, -1], dtype="float32")
        y = x[paddle.full([], 1, "int64")]
    assert list(y.shape) == [-1, -1]
    x_np = np.arange(24, dtype="float32").reshape(2, 3, 4)
    got, = paddle.static.Executor(paddle.CPUPlace()).run(main, feed={"x": x_np},
                                                          fetch_list=[y])
    np.testing.assert_array_equal(got, x_np[1])


def test_static_summary_of_a_given_input_variable():
    """paddle.summary(net, input=v) in static mode, v a variable of the user's program
    (3.3.1's test_model: paddle.rand([1, 20]) after enable_static)."""
    net = paddle.nn.Linear(20, 10)
    info = paddle.summary(net, input=paddle.rand([1, 20]))
    assert info == {"total_params": 210, "trainable_params": 210}


def test_float16_float_and_bfloat16_keep_excluded_layers():
    """Layer.float16 / float / bfloat16(excluded_layers) (Paddle 2.5+; 3.3.1's
    test_layers): the layers of the excluded types keep their dtype."""
    paddle.disable_static()
    net = paddle.nn.Sequential(paddle.nn.Linear(1, 1), paddle.nn.BatchNorm1D(1))
    net.float16(excluded_layers=[paddle.nn.Linear])
    assert [p.dtype for p in net[0].parameters()] == [paddle.float32] * 2
    assert [p.dtype for p in net[1].parameters()] == [paddle.float16] * 4
    assert net[1]._mean.dtype == paddle.float16
    net.float()
    assert {p.dtype for p in net.parameters()} == {paddle.float32}
    net.bfloat16(excluded_layers=(paddle.nn.Linear, paddle.nn.BatchNorm1D))   # nothing cast
    with pytest.raises(NotImplementedError, match="no bfloat16"):
        net.bfloat16()
    with pytest.raises(TypeError, match="excluded_layers should be type nn.Layer or list"):
        net.float(excluded_layers="Linear")


def test_paddle_crop_and_static_nn_continuous_value_model():
    paddle.disable_static()
    x = paddle.to_tensor(np.arange(12, dtype="float32").reshape(3, 4))
    np.testing.assert_array_equal(paddle.crop(x, shape=[2, 2], offsets=[1, 1]).numpy(),
                                  [[5., 6.], [9., 10.]])
    assert paddle.static.nn.continuous_value_model is \
        paddle.fluid.layers.continuous_value_model
    assert paddle.static.nn.common.continuous_value_model is \
        paddle.fluid.layers.continuous_value_model


def test_static_nn_control_flow_has_conditional_block_and_select_ops():
    """Paddle 3's homes of fluid.layers.control_flow's ConditionalBlock, select_input and
    select_output (3.3.1's test_conditional_block / test_select_input_output_op)."""
    control_flow = paddle.static.nn.control_flow
    assert control_flow.ConditionalBlock is paddle.fluid.layers.control_flow.ConditionalBlock
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.full([2], 1.0)
        y = paddle.full([2], 2.0)
        mask = paddle.full([1], 1, "int32")
        picked = control_flow.select_input([x, y], mask)
    got, = paddle.static.Executor(paddle.CPUPlace()).run(main, fetch_list=[picked])
    np.testing.assert_array_equal(got, [2., 2.])
