"""paddle.jit: to_static runs the function as written; save writes an inference model that
paddle.static.load_inference_model runs to the eager results (specs/jit.md)."""
import numpy as np
import pytest

import refimpl as paddle


class _Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 2)
        self.drop = paddle.nn.Dropout(0.5)

    @paddle.jit.to_static(input_spec=[paddle.static.InputSpec([None, 3], "float32", "x")])
    def forward(self, x):
        return paddle.nn.functional.relu(self.drop(self.fc(x)))


class _Unmarked(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(2, 1)

    def forward(self, image):
        return self.fc(image) * 2.0


def _load_and_run(path, feed):
    paddle.enable_static()
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(paddle.static.Scope()):
        program, feeds, fetches = paddle.static.load_inference_model(path, exe)
        got, = exe.run(program, feed={feeds[0]: feed}, fetch_list=fetches)
    return feeds, got


def test_to_static_keeps_the_function_and_its_signature(dygraph):
    def f(a, b=2):
        return a * b
    assert paddle.jit.to_static(f) is f and paddle.jit.to_static()(f) is f
    assert f(paddle.to_tensor(np.array([1.5], np.float32))).numpy().tolist() == [3.0]
    with pytest.raises(TypeError, match="to_static: expected a function"):
        paddle.jit.to_static(3)


def test_save_uses_to_static_input_spec_and_runs_in_eval_mode(tmp_path, dygraph):
    net = _Net()
    x = np.array([[1.0, -2.0, 0.5], [0.0, 3.0, -1.0]], np.float32)
    net.eval()
    expected = net(paddle.to_tensor(x)).numpy()
    net.train()            # save traces forward in evaluation mode: no dropout
    w, b = net.fc.weight.numpy(), net.fc.bias.numpy()
    np.testing.assert_allclose(expected, np.maximum(x @ w + b, 0), rtol=1e-6)
    path = str(tmp_path / "net")
    paddle.jit.save(net, path)
    feeds, got = _load_and_run(path, x)
    assert feeds == ["x"]
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_save_names_unnamed_specs_after_forward_arguments(tmp_path, dygraph):
    net = _Unmarked()
    x = np.array([[1.0, 2.0]], np.float32)
    expected = net(paddle.to_tensor(x)).numpy()
    with pytest.raises(ValueError, match="_Unmarked needs input_spec"):
        paddle.jit.save(net, str(tmp_path / "none"))
    paddle.jit.save(net, str(tmp_path / "m"), input_spec=[paddle.static.InputSpec([None, 2])])
    feeds, got = _load_and_run(str(tmp_path / "m"), x)
    assert feeds == ["image"]
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    with pytest.raises(TypeError, match="must be a paddle.nn.Layer"):
        paddle.jit.save(lambda v: v, str(tmp_path / "f"), input_spec=[])
