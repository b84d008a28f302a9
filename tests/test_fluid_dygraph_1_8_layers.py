"""Paddle 1.8's other fluid.dygraph Layer classes (Conv3D, Conv2DTranspose, Dropout,
LayerNorm, InstanceNorm, GroupNorm, PRelu, GRUUnit, BilinearTensorProduct, BCELoss,
NLLLoss) against numpy, with 1.8's parameter
shapes, names and default initial values; all of them also at fluid's top level
(`fluid.Linear`, `fluid.Layer`, ...), as 1.8 exports them."""
import numpy as np
import pytest

from refimpl import fluid

RNG = np.random.RandomState(7)


def _var(a):
    return fluid.dygraph.to_variable(np.asarray(a, "float32"))


def test_the_1_8_layers_are_exported_at_fluids_top_level():
    for name in ("Layer", "Linear", "Conv2D", "Conv3D", "Conv2DTranspose", "Pool2D",
                 "Embedding", "BatchNorm", "Dropout", "LayerNorm", "InstanceNorm",
                 "GroupNorm", "PRelu", "GRUUnit", "BilinearTensorProduct", "SpectralNorm",
                 "MSELoss", "L1Loss", "BCELoss", "NLLLoss", "save_dygraph", "load_dygraph",
                 "enable_dygraph", "disable_dygraph"):
        assert getattr(fluid, name) is getattr(fluid.dygraph, name), name


def test_layer_norm_instance_norm_group_norm_normalize_as_numpy():
    a = RNG.randn(2, 4, 3, 3).astype("float32")
    with fluid.dygraph.guard():
        ln = fluid.LayerNorm([3, 3], act="relu")
        assert ln.weight.shape == [9] and ln.weight.numpy().tolist() == [1.0] * 9
        flat = a.reshape(2, 4, 9)
        want = (flat - flat.mean(-1, keepdims=True)) / np.sqrt(flat.var(-1, keepdims=True)
                                                               + 1e-5)
        np.testing.assert_allclose(ln(_var(a)).numpy(), np.maximum(want, 0).reshape(a.shape),
                                   rtol=1e-4, atol=1e-5)
        per_channel = a.reshape(2, 4, 9)
        want = (per_channel - per_channel.mean(-1, keepdims=True)) / np.sqrt(
            per_channel.var(-1, keepdims=True) + 1e-5)
        inorm = fluid.InstanceNorm(4)
        np.testing.assert_allclose(inorm(_var(a)).numpy(), want.reshape(a.shape), rtol=1e-4,
                                   atol=1e-5)
        groups = a.reshape(2, 2, 18)
        want = (groups - groups.mean(-1, keepdims=True)) / np.sqrt(
            groups.var(-1, keepdims=True) + 1e-5)
        gn = fluid.GroupNorm(channels=4, groups=2)
        np.testing.assert_allclose(gn(_var(a)).numpy(), want.reshape(a.shape), rtol=1e-4,
                                   atol=1e-5)


def test_prelu_modes_and_their_alpha_shapes():
    a = RNG.randn(2, 3, 2, 2).astype("float32")
    with fluid.dygraph.guard():
        for mode, shape in (("all", [1]), ("channel", [1, 3, 1, 1]),
                            ("element", [1, 3, 2, 2])):
            layer = fluid.PRelu(mode, channel=3, input_shape=[2, 3, 2, 2])
            assert layer.weight.shape == shape and layer.weight.name.startswith("prelu")
            alpha = RNG.rand(*shape).astype("float32")
            layer.weight.set_value(alpha)
            np.testing.assert_allclose(layer(_var(a)).numpy(), np.where(a > 0, a, alpha * a),
                                       rtol=1e-6)
        with pytest.raises(ValueError, match="mode"):
            fluid.PRelu("row")


def test_gru_unit_returns_hidden_reset_hidden_and_gate():
    d = 3
    x = RNG.randn(2, 3 * d).astype("float32")
    h = RNG.randn(2, d).astype("float32")
    with fluid.dygraph.guard():
        gru = fluid.GRUUnit(3 * d)
        assert gru.weight.shape == [d, 3 * d] and gru.bias.shape == [1, 3 * d]
        w = gru.weight.numpy()
        hidden, reset_hidden, gate = gru(_var(x), _var(h))
    sig = lambda v: 1 / (1 + np.exp(-v))
    w_ur, w_c = w.reshape(-1)[:2 * d * d].reshape(d, 2 * d), w.reshape(-1)[2 * d * d:].reshape(d, d)
    ur = sig(x[:, :2 * d] + h @ w_ur)
    u, r = ur[:, :d], ur[:, d:]
    c = np.tanh(x[:, 2 * d:] + (r * h) @ w_c)
    np.testing.assert_allclose(hidden.numpy(), u * (c - h) + h, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(reset_hidden.numpy(), r * h, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gate.numpy()[:, 2 * d:], c, rtol=1e-5, atol=1e-6)


def test_conv2d_transpose_is_the_adjoint_of_conv2d():
    """<conv2d(x, w), y> == <x, conv2d_transpose(y, w)> for the same weight."""
    x = RNG.randn(1, 2, 5, 5).astype("float32")
    with fluid.dygraph.guard():
        deconv = fluid.Conv2DTranspose(3, 2, 3, bias_attr=False)
        assert deconv.weight.shape == [3, 2, 3, 3]
        conv = fluid.Conv2D(2, 3, 3, bias_attr=False)
        conv.weight.set_value(deconv.weight.numpy())
        y = RNG.randn(1, 3, 3, 3).astype("float32")
        lhs = (conv(_var(x)).numpy() * y).sum()
        rhs = (x * deconv(_var(y)).numpy()).sum()
    assert abs(lhs - rhs) < 1e-3 * max(1.0, abs(lhs))


def test_conv3d_weight_and_shape():
    with fluid.dygraph.guard():
        conv = fluid.Conv3D(2, 4, 3, padding=1)
        assert conv.weight.shape == [4, 2, 3, 3, 3]
        a = np.ones((1, 2, 3, 3, 3), "float32")
        out = conv(_var(a)).numpy()
        w = conv.weight.numpy()
        # the centre voxel sees the whole kernel; a float32 sum of 54 terms can cancel
        # to near zero, so the tolerance scales with the terms, not the result
        terms = np.abs(w).sum(axis=(1, 2, 3, 4))
        np.testing.assert_allclose(out[0, :, 1, 1, 1], w.sum(axis=(1, 2, 3, 4)),
                                   rtol=0, atol=1e-6 * terms.max())


def test_dropout_downgrades_in_eval_and_upscales_when_asked():
    a = np.ones((200, 50), "float32")
    with fluid.dygraph.guard():
        drop = fluid.Dropout(p=0.5)
        kept = drop(_var(a)).numpy()
        assert set(np.unique(kept)) <= {0.0, 1.0} and 0.4 < kept.mean() < 0.6
        drop.eval()
        np.testing.assert_allclose(drop(_var(a)).numpy(), a * 0.5)
        up = fluid.Dropout(p=0.5, dropout_implementation="upscale_in_train")
        assert set(np.unique(up(_var(a)).numpy())) <= {0.0, 2.0}
        with pytest.raises(ValueError, match="p must be"):
            fluid.Dropout(p=1.5)


def test_bilinear_tensor_product_parameters_names_and_values():
    # Paddle 1.8.5: weight bilinear_tensor_product_0.w_0 [4, 3, 2], bias ..._0.b_0 [1, 4]
    # of zeros
    with fluid.dygraph.guard():
        layer = fluid.dygraph.BilinearTensorProduct(3, 2, 4, name="bt", act="relu")
        assert layer.weight.shape == [4, 3, 2] and layer.bias.shape == [1, 4]
        assert layer.weight.name.endswith(".w_0") and layer.bias.name.endswith(".b_0")
        assert layer.bias.numpy().tolist() == [[0.0] * 4]
        x, y = RNG.randn(2, 3), RNG.randn(2, 2)
        out = layer(_var(x), _var(y))
        want = np.einsum("nm,kmp,np->nk", x, layer.weight.numpy(), y)
        np.testing.assert_allclose(out.numpy(), np.maximum(want, 0), rtol=1e-5, atol=1e-6)
        with pytest.raises(TypeError, match="float16"):
            layer(fluid.dygraph.to_variable(x.astype("float16")), _var(y))


def test_bce_loss_and_nll_loss_take_1_8s_argument_order():
    p, label = np.array([0.5, 0.6, 0.7]), np.array([1.0, 0.0, 1.0])
    log_probs = np.log(np.array([[0.2, 0.8], [0.6, 0.4], [0.5, 0.5]], "float32"))
    with fluid.dygraph.guard():
        # Paddle 1.8.5: [0.6931472, 1.8325816, 1.070025] and, with NLLLoss(None, 'sum', 1)
        # (ignore_index=1: only row 1, label 0), [0.5108256] of shape [1]
        bce = fluid.dygraph.BCELoss(weight=_var([1.0, 2.0, 3.0]), reduction="none")
        np.testing.assert_allclose(bce(_var(p), _var(label)).numpy(),
                                   [0.6931472, 1.8325816, 1.070025], rtol=1e-6)
        nll = fluid.dygraph.NLLLoss(None, "sum", 1)
        out = nll(_var(log_probs), fluid.dygraph.to_variable(np.array([1, 0, 1], "int64")))
        np.testing.assert_allclose(out.numpy(), [0.5108256], rtol=1e-6)


class _SummedFC(fluid.dygraph.Layer):
    """A 1.8-style layer (the models repository's similarity_net FC): weights sized by the
    first call's inputs in _build_once, paired with its inputs by the helper."""

    def __init__(self, size, param_attr=None):
        super().__init__()
        self._size, self._param_attr, self._weights = size, param_attr, []

    def _build_once(self, inputs):
        for i, (x, attr) in enumerate(self._helper.iter_inputs_and_params(
                inputs, self._param_attr)):
            self._weights.append(self.add_parameter("_w%d" % i, self.create_parameter(
                attr=attr, shape=[x.shape[1], self._size], dtype="float32")))

    def forward(self, inputs):
        outs = []
        for x, w in zip(self._helper._inputs(inputs), self._weights):
            out = self._helper.create_variable_for_type_inference("float32")
            self._helper.append_op(type="mul", inputs={"X": x, "Y": w},
                                   outputs={"Out": out},
                                   attrs={"x_num_col_dims": 1, "y_num_col_dims": 1})
            outs.append(out)
        return fluid.layers.sums(outs)


def test_build_once_runs_before_the_first_forward_only_and_the_helper_pairs_inputs():
    a = RNG.randn(2, 3).astype("float32")
    b = RNG.randn(2, 4).astype("float32")
    with fluid.dygraph.guard():
        init = fluid.ParamAttr(initializer=fluid.initializer.Constant(0.5))
        fc = _SummedFC(5, init)
        assert fc.parameters() == []
        out = fc([_var(a), b])                 # an ndarray input becomes a Variable
        assert [list(p.shape) for p in fc.parameters()] == [[3, 5], [4, 5]]
        expected = (a.sum(1) + b.sum(1))[:, None] * 0.5 * np.ones([1, 5])
        np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)
        fc([_var(a), _var(b)])
        assert len(fc.parameters()) == 2        # built once
        assert fc._helper.input_dtype([_var(a), _var(b)]) == _var(a).dtype
        with pytest.raises(ValueError, match="2 param_attrs for 3 inputs"):
            list(fc._helper.iter_inputs_and_params([a, a, a], [init, init]))
        with pytest.raises(ValueError, match="got False"):
            fc._helper.iter_inputs_and_params(a, False)
