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


def test_to_static_runs_the_function_and_records_its_program(dygraph):
    import inspect

    def f(a, b=2):
        return a * b
    static_f = paddle.jit.to_static(f)
    assert isinstance(static_f, paddle.jit.static_function.StaticFunction)
    assert list(inspect.signature(static_f).parameters) == ["a", "b"]
    assert paddle.jit.to_static()(f).dygraph_function is f
    out = static_f(paddle.to_tensor(np.array([1.5], np.float32)))
    assert out.numpy().tolist() == [3.0]
    # the program of that call: a feed named after the Tensor, one scale op, its output
    # the name the eager result took
    program = static_f.concrete_program
    feed, = static_f.inputs
    assert (feed.shape, feed.dtype) == ((1,), paddle.float32)
    assert [op.type for op in program.main_program.global_block().ops] == ["scale"]
    assert [v.name for v in static_f.outputs] == [out.name]
    # another shape: a second program, the last one is concrete_program
    static_f(paddle.to_tensor(np.ones((2, 3), np.float32)))
    assert static_f.get_traced_count() == 2 and static_f.inputs[0].shape == (2, 3)
    with pytest.raises(TypeError, match="to_static: expected a function"):
        paddle.jit.to_static(3)
    with pytest.raises(ValueError, match="No valid transformed program"):
        paddle.jit.to_static(f).concrete_program


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
    with pytest.raises(ValueError, match="No valid transformed program for forward"):
        paddle.jit.save(net, str(tmp_path / "none"))
    paddle.jit.save(net, str(tmp_path / "m"), input_spec=[paddle.static.InputSpec([None, 2])])
    feeds, got = _load_and_run(str(tmp_path / "m"), x)
    assert feeds == ["image"]
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    with pytest.raises(TypeError, match="must be a paddle.nn.Layer"):
        paddle.jit.save(lambda v: v, str(tmp_path / "f"), input_spec=[])


class _Nested(paddle.nn.Layer):
    """Returns (y, (h, c)), as an LSTM does."""

    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(2, 2)

    def forward(self, x):
        y = self.fc(x)
        return y, (y * 2.0, y + 1.0)


def test_to_static_of_a_layer_records_the_spec_and_nested_outputs_are_flattened(
        tmp_path, dygraph):
    # Paddle 2.0's rnn/test_rnn_nets: rnn = paddle.jit.to_static(rnn, [InputSpec]); jit.save
    net = _Nested()
    x = np.array([[1.0, -2.0], [0.5, 4.0]], np.float32)
    y = x @ net.fc.weight.numpy() + net.fc.bias.numpy()
    assert paddle.jit.to_static(net, [paddle.static.InputSpec([None, 2], "float32")]) is net
    path = str(tmp_path / "nested")
    paddle.jit.save(net, path)
    paddle.enable_static()
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(paddle.static.Scope()):
        program, feeds, fetches = paddle.static.load_inference_model(path, exe)
        got = exe.run(program, feed={feeds[0]: x}, fetch_list=fetches)
    assert feeds == ["x"] and len(got) == 3
    for value, want in zip(got, (y, y * 2.0, y + 1.0)):
        np.testing.assert_allclose(value, want, rtol=1e-6)


def test_translated_layer_program_and_specs_and_declarative(tmp_path, dygraph):
    from refimpl import fluid
    from refimpl.fluid.dygraph.io import INFER_PARAMS_INFO_SUFFIX
    from refimpl.framework import unique_name

    class Declared(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = paddle.nn.Linear(3, 2)

        # Paddle 2.0's declarative is to_static, input_spec included
        @fluid.dygraph.declarative(input_spec=[paddle.static.InputSpec([None, 3], "float32",
                                                                       "x")])
        def forward(self, x):
            return self.fc(x)
    path = str(tmp_path / "net")
    paddle.jit.save(Declared(), path)
    assert INFER_PARAMS_INFO_SUFFIX == ".pdiparams.info"
    with unique_name.guard():
        loaded = paddle.jit.load(path)
        again = paddle.jit.load(path)
    assert isinstance(loaded.program(), paddle.static.Program)
    with pytest.raises(ValueError, match="The method `infer` does not exist in loaded "
                                         "TranslatedLayer."):
        loaded.program("infer")
    assert loaded._input_spec() == [paddle.static.InputSpec([None, 3], "float32", "x")]
    # Paddle names the outputs through the unique-name generator at each load
    out_spec, = loaded._output_spec()
    assert (out_spec.shape, out_spec.dtype, out_spec.name) == \
        ((-1, 2), paddle.float32, "translated_layer/scale_0.tmp_0")
    assert again._output_spec()[0].name == "translated_layer/scale_0.tmp_1"


class _KeptBuffers(paddle.nn.Layer):
    """PaddleDetection's AnchorGenerator: buffers registered under their tensors' names and
    also kept in a list, which forward reads."""

    def __init__(self):
        super().__init__()
        self.cells = [paddle.to_tensor(np.array([[1., 2.], [3., 4.]], "float32")),
                      paddle.to_tensor(np.array([10.], "float32"))]
        for t in self.cells:
            self.register_buffer(t.name, t, persistable=False)

    def forward(self, x):
        return x + paddle.reshape(self.cells[0], [1, 4]) * self.cells[1]


def test_save_reads_buffers_the_layer_keeps_its_own_references_to(tmp_path, dygraph):
    # Paddle 2.0 names an op's eager input by its name in declarative mode: the list's
    # tensors are the buffers' static twins in the saved program
    net = _KeptBuffers()
    x = np.arange(8, dtype="float32").reshape(2, 4)
    path = str(tmp_path / "kept")
    eager = net(paddle.to_tensor(x)).numpy()
    paddle.jit.save(net, path, input_spec=[paddle.static.InputSpec([None, 4], "float32", "x")])
    feeds, got = _load_and_run(path, x)
    np.testing.assert_allclose(got, x + np.array([[10., 20., 30., 40.]]))
    np.testing.assert_allclose(eager, got)


class _WithLabel(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 2)

    @paddle.jit.to_static
    def forward(self, image, label=None):
        out = self.fc(image)
        if label is not None:
            return out, paddle.mean(out) + paddle.mean(paddle.cast(label, "float32"))
        return out


@pytest.mark.parametrize("version, renamed", [("1.8", True), ("2.0", True), ("3", False)])
def test_to_static_call_renames_its_input_tensors(tmp_path, dygraph, paddle_version, version,
                                                  renamed):
    """1.8.5's and 2.0's PartialProgramLayer renames each tensor a call gets to the recorded
    input (3.3.1 does not, measured): so 2.0's dygraph_to_static/test_mnist saves a one-spec
    prune `jit.save(net, path, input_spec=[img])` of a later batch's img after calling
    `net(img, label)` (the program, recorded at the first batch, keeps that batch's names)."""
    with paddle_version(version):
        net = _WithLabel()
        batches = [np.full((2, 3), i, np.float32) for i in (1.0, 2.0)]
        for x in batches:
            img = paddle.to_tensor(x)
            label = paddle.to_tensor(np.ones((2, 1), np.int64))
            given = img.name
            out, _ = net(img, label=label)
        recorded = [v.name for v in net.forward.inputs]
        assert net.forward.get_traced_count() == 1
        assert (img.name == recorded[0]) is renamed and (img.name == given) is not renamed
        assert recorded[0] != given                 # the first batch's tensor named it
        if renamed:
            net.eval()
            out, _ = net(img, label)                # the same program, as test_mnist's
            assert net.forward.get_traced_count() == 1
            path = str(tmp_path / "net")
            paddle.jit.save(net, path, input_spec=[img], output_spec=[out])
            feeds, got = _load_and_run(path, batches[1])
            assert feeds == [recorded[0]]
            np.testing.assert_allclose(got, batches[1] @ net.fc.weight.numpy()
                                       + net.fc.bias.numpy(), rtol=1e-6)
        else:
            with pytest.raises(ValueError, match="names no input"):
                paddle.jit.save(net, str(tmp_path / "net"), input_spec=[img])
