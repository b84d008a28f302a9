"""paddle.jit.save of a Layer without input_spec, as Paddle 2.0 users write it: the
to_static forward records a program at each new input signature, jit.save writes the last
one (with 2.0's input_spec / output_spec pruning and the other to_static methods), and
jit.load gives a TranslatedLayer computing the same outputs and gradients (specs/jit.md)."""
import os

import numpy as np
import pytest

import refimpl as paddle
from refimpl.static import InputSpec


# jit.save writes ProgramDescs here (conftest.py's program_desc_files)
pytestmark = pytest.mark.usefixtures("program_desc_files")


class _Net(paddle.nn.Layer):
    """y = x W + b and its mean, and a second to_static method."""

    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 2)

    @paddle.jit.to_static
    def forward(self, x):
        y = self.fc(x)
        return y, paddle.mean(y)

    @paddle.jit.to_static
    def doubled(self, x):
        return self.fc(x) * 2.0


def _trained(steps=3):
    """A _Net after `steps` SGD steps on inputs of shape [4, 3] (the recorded shape)."""
    net = _Net()
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=net.parameters())
    x = paddle.to_tensor(np.linspace(-1.0, 1.0, 12, dtype=np.float32).reshape(4, 3))
    for _ in range(steps):
        y, loss = net(x)
        loss.backward()
        opt.step()
        opt.clear_grad()
    net.doubled(x)      # every to_static method needs a program for jit.save
    return net, x, y


def test_save_without_input_spec_saves_what_forward_recorded(tmp_path, dygraph):
    net, x, y = _trained()
    assert net.forward.get_traced_count() == 1     # one signature: one program
    path = str(tmp_path / "net")
    paddle.jit.save(net, path, output_spec=[y])    # keep y, prune the mean
    assert sorted(os.listdir(tmp_path)) == ["net.doubled.pdiparams", "net.doubled.pdmodel",
                                           "net.pdiparams", "net.pdiparams.info",
                                           "net.pdmanifest", "net.pdmodel"]
    loaded = paddle.jit.load(path)
    feed, = loaded._input_spec()
    assert feed.shape == (4, 3) and feed.name == x.name     # the Tensor the call was given
    data = np.array([[1.0, 2.0, -1.0], [0.5, 0.0, 3.0], [2.0, -2.0, 1.0], [0.0, 1.0, 1.0]],
                    np.float32)
    w, b = net.fc.weight.numpy(), net.fc.bias.numpy()
    expected = data @ w + b
    out = loaded(paddle.to_tensor(data))
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(loaded.doubled(paddle.to_tensor(data)).numpy(), 2 * expected,
                               rtol=1e-6)
    # gradients of sum(y^2): dW = x^T 2y, db = column sums of 2y, in both layers
    loaded.train()
    (out * out).sum().backward()
    net_out = net(paddle.to_tensor(data))[0]
    (net_out * net_out).sum().backward()
    by_saved_name = {p.name.rsplit(".load_", 1)[0]: p for p in loaded.parameters()}
    for param, want in ((net.fc.weight, data.T @ (2 * expected)),
                        (net.fc.bias, (2 * expected).sum(0))):
        np.testing.assert_allclose(np.asarray(param.grad), want, rtol=1e-5)
        np.testing.assert_allclose(np.asarray(by_saved_name[param.name].grad), want,
                                   rtol=1e-5)


def test_the_last_recorded_program_is_saved_and_outputs_take_its_names(tmp_path, dygraph):
    net = _Net()
    y4, _ = net(paddle.to_tensor(np.ones((4, 3), np.float32)))
    y2, mean2 = net(paddle.to_tensor(np.ones((2, 3), np.float32)))
    assert net.forward.get_traced_count() == 2
    path = str(tmp_path / "net")
    with pytest.raises(ValueError, match="No valid transformed program for doubled"):
        paddle.jit.save(net, path)
    net.doubled(paddle.to_tensor(np.ones((2, 3), np.float32)))
    assert [v.name for v in net.forward.outputs] == [y2.name, mean2.name]
    assert net.forward.inputs[0].shape == (2, 3)
    paddle.jit.save(net, path, output_spec=[y2])
    assert paddle.jit.load(path)._input_spec()[0].shape == (2, 3)
    # an output_spec naming no output of the program, shorter than its outputs: an error
    with pytest.raises(ValueError, match="output_spec's Tensor .* is no output"):
        paddle.jit.save(net, path, output_spec=[paddle.to_tensor(np.ones(2, np.float32))])
    # other to_static methods: input_spec is refused (2.0)
    with pytest.raises(ValueError, match="static functions other than 'forward'"):
        paddle.jit.save(net, path, input_spec=[InputSpec([None, 3])])
    with pytest.raises(ValueError, match="config \\(model_filename\\)"):
        paddle.jit.save(net, path, model_filename="m")


class _Labelled(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 2)

    @paddle.jit.to_static(input_spec=[InputSpec([None, 3], "float32", "image"),
                                      InputSpec([None, 1], "int64", "label")])
    def forward(self, x, label):
        return self.fc(x)


def test_input_spec_prunes_and_must_agree_with_to_static(tmp_path, dygraph):
    net = _Labelled()
    # never called: the program of to_static's input_spec; feeds named by the specs
    assert [v.name for v in net.forward.inputs] == ["image", "label"]
    path = str(tmp_path / "net")
    paddle.jit.save(net, path, input_spec=[InputSpec([None, 3], "float32", "image")])
    loaded = paddle.jit.load(path)
    assert [s.name for s in loaded._input_spec()] == ["image"]
    data = np.array([[1.0, 0.0, -1.0]], np.float32)
    np.testing.assert_allclose(loaded(paddle.to_tensor(data)).numpy(),
                               data @ net.fc.weight.numpy() + net.fc.bias.numpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="names no input of the program"):
        paddle.jit.save(net, path, input_spec=[InputSpec([None, 3], "float32", "x")])
    fresh = _Labelled()
    with pytest.raises(ValueError, match="conflict with the `input_spec`"):
        paddle.jit.save(fresh, path, input_spec=[InputSpec([None, 3], "float64"),
                                                 InputSpec([None, 1], "int64")])


def test_load_checks_configs_paths_and_the_info_file(tmp_path, dygraph):
    net, _, y = _trained(1)
    path = str(tmp_path / "net")
    paddle.jit.save(net, path)
    with pytest.raises(ValueError, match="config \\(separate_params\\)"):
        paddle.jit.load(path, separate_params=True)
    with pytest.raises(ValueError, match="to load model not exists"):
        paddle.jit.load(str(tmp_path / "other"))
    # paddle.load of the prefix: the state dict by structured names (2.0)
    state = paddle.load(path)
    assert sorted(state) == ["fc.bias", "fc.weight"]
    np.testing.assert_array_equal(state["fc.weight"], net.fc.weight.numpy())
    # an info file (written by hand, the manifest removed) lacking a variable
    from refimpl.framework.paddle_formats import safe_pickle
    os.remove(path + ".pdmanifest")
    with open(path + ".pdiparams.info", "wb") as f:
        f.write(safe_pickle.dumps({}, "test"))
    with pytest.raises(RuntimeError, match="not complete: the variable"):
        paddle.jit.load(path)
    os.remove(path + ".pdiparams")
    with pytest.raises(ValueError, match="incomplete"):
        paddle.jit.load(path)


def test_program_cache_partial_program_and_a_disabled_translator(dygraph):
    from refimpl.fluid.dygraph.dygraph_to_static import ProgramTranslator
    from refimpl.fluid.dygraph.dygraph_to_static import partial_program
    net = _Net()
    x = paddle.to_tensor(np.array([[1.0, 2.0, 3.0]], np.float32))
    y, _ = net(x)
    _, (concrete, partial) = net.forward.program_cache.last()
    assert len(net.forward.program_cache.concrete_programs()) == 1
    # the recorded program, run on other values, computes what forward computes
    data = np.array([[0.5, -1.0, 2.0]], np.float32)
    got, _ = partial([paddle.to_tensor(data)])
    np.testing.assert_allclose(got.numpy(), net(paddle.to_tensor(data))[0].numpy(), rtol=1e-6)
    params = concrete.parameters
    concrete.parameters = params[0]
    with pytest.raises(TypeError, match="should be list or tuple"):
        partial_program.partial_program_from(concrete)
    concrete.parameters = ["fc.w_0"] + params[1:]
    with pytest.raises(TypeError, match="self._params\\[0\\]"):
        partial_program.partial_program_from(concrete)
    translator = ProgramTranslator()
    translator.enable(False)
    try:
        other = _Net()
        other(x)
        assert other.forward.get_traced_count() == 0     # ran as written, recorded nothing
        with pytest.raises(RuntimeError, match="ProgramTranslator.enable to False"):
            paddle.jit.save(other, "unused")
    finally:
        translator.enable(True)


def test_signatures_unify_defaults_and_keywords(dygraph):
    """2.0's FunctionSpec: foo(x, y) and foo(x, y, 1, 2) are one signature (the defaults
    filled in), another value of c a new one; a missing argument is a ValueError."""
    def foo(a, b, c=1, d=2):
        return a + b
    static_foo = paddle.jit.to_static(foo)
    first, _ = static_foo.get_concrete_program(InputSpec([None, 10]), InputSpec([10]))
    again, _ = static_foo.get_concrete_program(InputSpec([None, 10]), InputSpec([10]), 1, 2)
    assert again is first and static_foo.get_traced_count() == 1
    other, _ = static_foo.get_concrete_program(InputSpec([None, 10]), InputSpec([10]), c=2)
    assert other is not first and static_foo.get_traced_count() == 2
    assert [v.name for v in other.inputs[:2]] == ["a", "b"] and other.inputs[2:] == (2, 2)
    with pytest.raises(ValueError, match="requires `b` arguments"):
        static_foo.get_concrete_program(InputSpec([10]))
    with pytest.raises(TypeError, match="unexpected keyword argument 'e'"):
        static_foo.get_concrete_program(InputSpec([10]), InputSpec([10]), e=4)
    x = np.ones((2, 10), np.float32)
    np.testing.assert_array_equal(static_foo(paddle.to_tensor(x), x[0], d=5).numpy(), 2 * x)
    assert static_foo.get_traced_count() == 3      # shapes [2, 10], [10]; d=5


def test_a_function_that_cannot_be_recorded_runs_and_its_error_waits(tmp_path, dygraph):
    class Scaled(paddle.nn.Layer):
        @paddle.jit.to_static
        def forward(self, x):
            return x * float(x.numpy().sum())      # a static Variable has no value
    net = Scaled()
    x = np.array([1.0, 2.0], np.float32)
    np.testing.assert_array_equal(net(paddle.to_tensor(x)).numpy(), x * 3.0)
    assert net.forward.get_traced_count() == 0
    with pytest.raises(Exception) as raised:
        net.forward.concrete_program
    with pytest.raises(type(raised.value)):
        paddle.jit.save(net, str(tmp_path / "scaled"))
    assert not os.listdir(tmp_path)


def test_partial_program_follows_the_layer_mode(dygraph):
    class Dropped(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.drop = paddle.nn.Dropout(0.5)

        @paddle.jit.to_static
        def forward(self, x):
            return self.drop(x)
    net = Dropped()
    x = paddle.to_tensor(np.ones((1, 1000), np.float32))
    net(x)
    _, (_, partial) = net.forward.program_cache.last()
    assert partial.program is partial._train_program
    out = partial([x]).numpy()
    assert set(np.unique(out)) == {0.0, 2.0}
    net.eval()
    net(x)
    assert partial.program is partial._infer_program
    np.testing.assert_array_equal(partial([x]).numpy(), x.numpy())


def test_python_while_left_as_python_is_not_recorded_and_does_not_hang(dygraph):
    """A `while` on a tensor with a `break` stays Python in the converted function
    (refimpl/jit/dy2static), so recording meets `i < n` as a static Variable: its truth
    value is an error there (a static Variable is otherwise truthy, so the loop would never
    end); the eager call is unaffected."""
    @paddle.jit.to_static
    def count_up(x):
        i = paddle.zeros([1], "int64")
        n = paddle.full([1], 3, "int64")
        while i < n:
            x = x + 1
            i = i + 1
            if i > 10:
                break
        return x
    out = count_up(paddle.to_tensor(np.zeros(2, np.float32)))
    np.testing.assert_array_equal(out.numpy(), [3.0, 3.0])
    with pytest.raises(TypeError, match="truth value of static Variable .* while_loop"):
        count_up.concrete_program
    paddle.enable_static()
    try:    # outside a recording a static Variable is truthy, as Paddle's
        assert bool(paddle.static.data("flag", [1], "bool"))
    finally:
        paddle.disable_static()


class _Relu(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 3)

    @paddle.jit.to_static
    def forward(self, x):
        return paddle.nn.functional.relu(self.fc(x))


def test_a_loaded_layer_inside_a_to_static_layer_is_recorded_and_saved_again(tmp_path,
                                                                             dygraph):
    inner = _Relu()
    x = paddle.to_tensor(np.array([[1.0, -2.0, 0.5], [0.3, 0.2, -0.1]], np.float32))
    inner(x)
    paddle.jit.save(inner, str(tmp_path / "inner"))

    class Outer(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.loaded = paddle.jit.load(str(tmp_path / "inner"))
            self.fc = paddle.nn.Linear(3, 3)

        @paddle.jit.to_static
        def forward(self, x):       # the loaded layer twice: its ops appended twice
            return self.loaded(self.fc(self.loaded(x)))
    outer = Outer()
    y = outer(x)
    relu = lambda v: np.maximum(v, 0)      # noqa: E731
    w, b = inner.fc.weight.numpy(), inner.fc.bias.numpy()
    w2, b2 = outer.fc.weight.numpy(), outer.fc.bias.numpy()
    expected = relu((relu(x.numpy() @ w + b) @ w2 + b2) @ w + b)
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-5)
    paddle.jit.save(outer, str(tmp_path / "outer"))
    again = paddle.jit.load(str(tmp_path / "outer"))
    np.testing.assert_allclose(again(x).numpy(), expected, rtol=1e-5)
    assert len(again.parameters()) == 4     # the loaded layer's two, once
    # a loaded layer saved again with an input_spec
    paddle.jit.save(paddle.jit.load(str(tmp_path / "inner")), str(tmp_path / "resaved"),
                    input_spec=[InputSpec([None, 3], "float32")])
    np.testing.assert_allclose(paddle.jit.load(str(tmp_path / "resaved"))(x).numpy(),
                               relu(x.numpy() @ w + b), rtol=1e-5)


def test_classmethod_over_to_static_is_refused_as_in_2_0(dygraph):
    class Holder:
        @classmethod
        @paddle.jit.to_static
        def twice(cls, x):
            return x * 2.0
    with pytest.raises(NotImplementedError, match="more than one decorator"):
        Holder().twice(paddle.to_tensor(np.ones(2, np.float32)))


def test_a_later_save_without_a_method_does_not_load_the_earlier_ones(tmp_path, dygraph):
    net, x, _ = _trained(1)
    path = str(tmp_path / "model")
    paddle.jit.save(net, path)      # forward and doubled
    single = _Relu()
    single(x)
    paddle.jit.save(single, path)   # forward only; model.doubled.* stay on disk
    assert os.path.exists(path + ".doubled.pdmodel")
    loaded = paddle.jit.load(path)
    assert not hasattr(loaded, "doubled")
    with pytest.raises(ValueError, match="The method `doubled` does not exist"):
        loaded.program("doubled")


def test_a_data_parallel_layer_saves_its_layer(tmp_path, dygraph):
    inner = _Relu()
    x = paddle.to_tensor(np.array([[1.0, -2.0, 0.5]], np.float32))
    wrapped = paddle.DataParallel(inner)
    expected = wrapped(x).numpy()
    paddle.jit.save(wrapped, str(tmp_path / "dp"))
    np.testing.assert_allclose(paddle.jit.load(str(tmp_path / "dp"))(x).numpy(), expected,
                               rtol=1e-6)


def test_to_variable_in_a_recorded_function_is_a_copy_in_the_program(tmp_path, dygraph):
    from refimpl import fluid

    class Shifted(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.h = paddle.to_tensor(np.array([1.0, 2.0], np.float32))   # a buffer

        @paddle.jit.to_static
        def forward(self, x):
            h = fluid.dygraph.to_variable(self.h)    # 2.0's dy2static: an assign op
            return x + h
    net = Shifted()
    x = paddle.to_tensor(np.array([[0.5, -1.0]], np.float32))
    np.testing.assert_array_equal(net(x).numpy(), [[1.5, 1.0]])
    assert "assign" in [op.type for op in net.forward.main_program.global_block().ops]
    paddle.jit.save(net, str(tmp_path / "shifted"))
    np.testing.assert_array_equal(paddle.jit.load(str(tmp_path / "shifted"))(x).numpy(),
                                  [[1.5, 1.0]])
