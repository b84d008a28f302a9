"""paddle.amp (auto_cast, GradScaler), paddle.device, paddle.sysconfig and paddle.onnx of the 2.0
namespace: on a CPU place AMP warns and does nothing, as Paddle 2.0 there."""

import numpy as np
import pytest

import refimpl as paddle
from refimpl import amp
from refimpl.framework.place import CUDAPlace


def test_device_module_holds_the_device_functions():
    assert paddle.device.get_device() == "cpu" == paddle.get_device()
    assert paddle.device.set_device is paddle.set_device
    paddle.device.set_device("cpu")
    assert paddle.device.is_compiled_with_xpu() is False
    assert paddle.device.is_compiled_with_cuda() is paddle.is_compiled_with_cuda()
    assert paddle.device.get_cudnn_version() is None
    with pytest.raises(RuntimeError, match="not compiled with XPU"):
        paddle.device.XPUPlace(0)
    with pytest.raises(TypeError, match="expected a string"):
        paddle.device.set_device(0)


def test_auto_cast_on_the_cpu_warns_and_keeps_float32(dygraph):
    x = paddle.to_tensor(np.arange(6, dtype="float32").reshape(2, 3))
    with pytest.warns(UserWarning, match="only be enabled on CUDAPlace"):
        with paddle.amp.auto_cast():
            y = paddle.matmul(x, x, transpose_y=True)
    assert y.dtype.name == "float32"
    np.testing.assert_array_equal(y.numpy(), [[5, 14], [14, 50]])
    with paddle.amp.auto_cast(enable=False):
        assert (x + x).dtype.name == "float32"
    with pytest.raises(ValueError, match="overlaps custom black list: conv2d"):
        with paddle.amp.auto_cast(custom_white_list={"conv2d"}, custom_black_list=["conv2d"]):
            pass


def test_grad_scaler_on_the_cpu_leaves_the_loss_and_steps_the_optimizer(dygraph):
    linear = paddle.nn.Linear(2, 1, bias_attr=False)
    linear.weight.set_value(np.array([[1.0], [2.0]], "float32"))
    sgd = paddle.optimizer.SGD(learning_rate=0.5, parameters=linear.parameters())
    with pytest.warns(UserWarning, match="GradScaler can only be enabled on CUDAPlace"):
        scaler = paddle.amp.GradScaler(init_loss_scaling=1024)
    loss = paddle.mean(linear(paddle.to_tensor([[3.0, 4.0]])))
    scaled = scaler.scale(loss)
    assert scaled is loss
    scaled.backward()
    scaler.minimize(sgd, scaled)
    # d loss / d w = x = [3, 4]: w - 0.5 * [3, 4], unscaled
    np.testing.assert_allclose(linear.weight.numpy(), [[-0.5], [0.0]])


def test_amp_is_dynamic_only_and_refused_on_a_gpu_place(monkeypatch, fresh_programs):
    with pytest.raises(AssertionError, match="only support 'GradScaler\\(\\)' in dynamic"):
        paddle.amp.GradScaler()
    paddle.disable_static()
    gpu = CUDAPlace.__new__(CUDAPlace)  # a GPU place without a GPU: what amp is told
    gpu.device_id = 0
    monkeypatch.setattr(amp, "current_place", lambda: gpu)
    with pytest.raises(NotImplementedError, match="no float16 autocast"):
        with paddle.amp.auto_cast():
            pass
    assert paddle.amp.GradScaler(enable=False).scale(3.0) == 3.0


def test_onnx_export_says_what_is_missing():
    with pytest.raises((ImportError, NotImplementedError), match="paddle2onnx"):
        paddle.onnx.export(paddle.nn.Linear(2, 1), "linear")
