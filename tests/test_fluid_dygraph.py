"""Paddle 1.8's fluid.dygraph on the dynamic mode: guard / to_variable / enabled, the 1.8
Layer classes (Linear, Conv2D, Pool2D, Embedding, BatchNorm with their 1.8 signatures)
against numpy, a 1.8-style training loop (loss.backward, minimize, clear_gradients), and
save_dygraph / load_dygraph."""
import numpy as np
import pytest

from refimpl import fluid
from refimpl.framework import mode
from test_conv_pool import conv_loops

RNG = np.random.RandomState(5)


def test_guard_switches_to_dynamic_mode_and_back():
    assert not fluid.dygraph.enabled()
    with fluid.dygraph.guard():
        assert fluid.dygraph.enabled()
        x = fluid.dygraph.to_variable(np.ones((2, 3), "float32"))
        assert x.stop_gradient and x.numpy().sum() == 6
        y = fluid.layers.relu(x * -1.0)
        assert y.numpy().sum() == 0
    assert not mode.dynamic
    with pytest.raises(RuntimeError, match="dygraph.guard"):
        fluid.dygraph.to_variable(np.ones(2))


def test_linear_1_8_is_act_of_matmul_plus_bias():
    with fluid.dygraph.guard():
        layer = fluid.dygraph.Linear(4, 3, act="relu")
        assert [p.name for p in layer.parameters()] == ["linear_0.w_0", "linear_0.b_0"]
        w = RNG.randn(4, 3).astype("float32")
        b = RNG.randn(3).astype("float32")
        layer.weight.set_value(w)
        layer.bias.set_value(b)
        a = RNG.randn(2, 5, 4).astype("float32")
        out = layer(fluid.dygraph.to_variable(a))
        np.testing.assert_allclose(out.numpy(), np.maximum(a @ w + b, 0), rtol=1e-5,
                                   atol=1e-6)


def test_conv2d_1_8_init_and_result():
    with fluid.dygraph.guard():
        conv = fluid.dygraph.Conv2D(3, 8, 3, padding=1, act="sigmoid")
        w = conv.weight.numpy()
        assert w.shape == (8, 3, 3, 3)
        assert abs(w.std() - np.sqrt(2.0 / 27)) < 0.1         # N(0, sqrt(2 / (kh kw C)))
        a = RNG.randn(2, 3, 5, 5).astype("float32")
        out = conv(fluid.dygraph.to_variable(a)).numpy()
        ref = conv_loops(a, w, (1, 1), (1, 1, 1, 1)) + conv.bias.numpy()[None, :, None, None]
        np.testing.assert_allclose(out, 1 / (1 + np.exp(-ref)), rtol=1e-4, atol=1e-5)
        with pytest.raises(ValueError, match="num_channels"):
            conv(fluid.dygraph.to_variable(np.ones((1, 2, 5, 5), "float32")))


def test_pool2d_embedding_batch_norm():
    with fluid.dygraph.guard():
        a = RNG.randn(1, 2, 4, 4).astype("float32")
        out = fluid.dygraph.Pool2D(2, "max", 2)(fluid.dygraph.to_variable(a)).numpy()
        np.testing.assert_array_equal(out, a.reshape(1, 2, 2, 2, 2, 2).max(axis=(3, 5)))
        avg = fluid.dygraph.Pool2D(global_pooling=True, pool_type="avg")
        np.testing.assert_allclose(avg(fluid.dygraph.to_variable(a)).numpy(),
                                   a.mean(axis=(2, 3), keepdims=True), rtol=1e-5)
        emb = fluid.dygraph.Embedding([10, 3], padding_idx=0)
        ids = np.array([[1, 0], [9, 1]], "int64")
        got = emb(fluid.dygraph.to_variable(ids)).numpy()
        table = emb.weight.numpy()
        np.testing.assert_array_equal(got, np.where(ids[..., None] == 0, 0, table[ids]))
        bn = fluid.dygraph.BatchNorm(2)
        y = bn(fluid.dygraph.to_variable(a)).numpy()
        mean, var = a.mean(axis=(0, 2, 3)), a.var(axis=(0, 2, 3))
        np.testing.assert_allclose(
            y, (a - mean[None, :, None, None]) / np.sqrt(var[None, :, None, None] + 1e-5),
            rtol=1e-4, atol=1e-5)


class _MNIST(fluid.dygraph.Layer):
    def __init__(self):
        super().__init__()
        self.conv = fluid.dygraph.Conv2D(1, 4, 3, act="relu")
        self.pool = fluid.dygraph.Pool2D(2, "max", 2)
        self.fc = fluid.dygraph.Linear(4 * 3 * 3, 3, act="softmax")

    def forward(self, x):
        h = self.pool(self.conv(x))
        return self.fc(fluid.layers.reshape(h, [h.shape[0], -1]))


def test_a_1_8_training_loop_learns_and_save_load_dygraph_restores(tmp_path):
    x = RNG.randn(12, 1, 8, 8).astype("float32")
    y = (x.mean(axis=(1, 2, 3)) > 0).astype("int64").reshape(-1, 1)
    with fluid.dygraph.guard():
        model = _MNIST()
        opt = fluid.optimizer.Adam(learning_rate=0.05, parameter_list=model.parameters())
        losses = []
        for _ in range(15):
            out = model(fluid.dygraph.to_variable(x))
            loss = fluid.layers.mean(fluid.layers.cross_entropy(out, fluid.dygraph.to_variable(y)))
            loss.backward()
            opt.minimize(loss)
            model.clear_gradients()
            losses.append(float(loss.numpy()))
        assert losses[-1] < 0.7 * losses[0]
        fluid.dygraph.save_dygraph(model.state_dict(), str(tmp_path / "mnist"))
        fluid.dygraph.save_dygraph(opt.state_dict(), str(tmp_path / "mnist"))
        expected = model(fluid.dygraph.to_variable(x)).numpy()
    with fluid.dygraph.guard():
        params, opt_state = fluid.dygraph.load_dygraph(str(tmp_path / "mnist"))
        fresh = _MNIST()
        fresh.set_dict(params)
        np.testing.assert_array_equal(fresh(fluid.dygraph.to_variable(x)).numpy(), expected)
        assert any(k.endswith("_moment1_0") for k in opt_state)


def test_pool2d_checks_the_input_dtype_before_its_rank():
    # Paddle 1.8.5 raises TypeError for an int32 input whatever its rank
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        pool = fluid.dygraph.Pool2D(2, "max", 1)
        with pytest.raises(TypeError, match="dtype int32"):
            pool(fluid.layers.data("x1", [3, 32, 32, 5], dtype="int32"))
        with pytest.raises(ValueError, match="expected rank 4"):
            pool(fluid.layers.data("x2", [3, 32, 32, 5], dtype="float32"))


def test_dygraph_only_methods_of_a_static_variable_raise_as_paddle_1_8():
    var = fluid.default_main_program().current_block().create_var(dtype="float64")
    with fluid.dygraph.guard():
        for call in (var.detach, var.numpy, lambda: var.set_value(None), var.backward,
                     var.gradient, var.clear_gradient):
            # Paddle 1.8.5 asserts (AssertionError); refimpl's error is a RuntimeError too
            with pytest.raises(AssertionError, match="only available in dygraph mode"):
                call()
            with pytest.raises(RuntimeError):
                call()
