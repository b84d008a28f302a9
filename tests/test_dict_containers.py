"""Paddle 3's nn.LayerDict and nn.ParameterDict, its torch-style names in paddle.nn (each
the Paddle class itself on 3.3.1), and its new names of existing functions: F.group_norm
(both call forms), F.sequence_mask, paddle.layer_norm / group_norm / conv1d-3d /
adaptive_avg_pool1d."""
import numpy as np
import pytest

import refimpl as paddle
import refimpl.nn.functional as F
from refimpl import nn

from test_functional_loss import run

pytestmark = pytest.mark.paddle("3")


def test_layer_dict_keeps_order_and_registers_sublayers(dygraph):
    d = nn.LayerDict([("b", nn.ReLU()), ("a", nn.Linear(2, 2))])
    assert list(d.keys()) == ["b", "a"] and list(d) == ["b", "a"] and len(d) == 2
    assert "a" in d and isinstance(d["a"], nn.Linear)
    assert len(d.parameters()) == 2
    assert isinstance(d.pop("b"), nn.ReLU) and list(d.keys()) == ["a"]
    d.update({"c": nn.Tanh()})
    d.update([("d", nn.ReLU()), ("a", nn.Linear(3, 3))])   # an existing key keeps its place
    assert list(d.keys()) == ["a", "c", "d"] and d["a"].weight.shape == [3, 3]
    d["e"] = nn.Sigmoid()
    del d["c"]
    assert [k for k, _ in d.items()] == ["a", "d", "e"] and len(list(d.values())) == 3
    with pytest.raises(AssertionError, match="iterable of"):
        d.update(5)
    with pytest.raises(ValueError, match="item 0 of the sublayers has 1 values"):
        d.update([("x",)])
    d.clear()
    assert len(d) == 0
    assert nn.ModuleDict is nn.LayerDict
    assert repr(nn.LayerDict({"a": nn.Linear(2, 2)})) == \
        "LayerDict(\n  (a): Linear(in_features=2, out_features=2, dtype=float32)\n)"


def test_parameter_dict(dygraph):
    w = paddle.create_parameter([2], "float32")
    p = nn.ParameterDict({"w": w})
    assert len(p) == 1 and list(p) == ["w"] and p["w"] is w
    p["v"] = paddle.create_parameter([3], "float32")
    p.update([("q", paddle.create_parameter([1], "float32"))])
    assert list(p) == ["w", "v", "q"]
    assert [name for name, _ in p.named_parameters()] == ["w", "v", "q"]
    assert list(nn.ParameterDict(p)) == ["w", "v", "q"]
    with pytest.raises(TypeError):
        p["z"] = paddle.ones([2])


def test_torch_style_names_are_the_paddle_classes():
    for alias, name in [("Conv1d", "Conv1D"), ("Conv2d", "Conv2D"), ("Conv3d", "Conv3D"),
                        ("AdaptiveAvgPool1d", "AdaptiveAvgPool1D"),
                        ("AdaptiveMaxPool3d", "AdaptiveMaxPool3D"),
                        ("MaxUnpool3d", "MaxUnPool3D"), ("LPPool1d", "LPPool1D"),
                        ("ZeroPad3d", "ZeroPad3D"), ("ReplicationPad1d", "ReplicationPad1D"),
                        ("UpsamplingBilinear2d", "UpsamplingBilinear2D"),
                        ("UpsamplingNearest2d", "UpsamplingNearest2D"), ("Module", "Layer"),
                        ("ModuleList", "LayerList"), ("ModuleDict", "LayerDict")]:
        assert getattr(nn, alias) is getattr(nn, name), alias


def group_norm_reference(x, groups, eps, weight=None, bias=None):
    n, c = x.shape[:2]
    g = x.reshape(n, groups, -1)
    y = ((g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + eps))
    y = y.reshape(x.shape)
    shape = (1, c) + (1,) * (x.ndim - 2)
    if weight is not None:
        y = y * weight.reshape(shape)
    if bias is not None:
        y = y + bias.reshape(shape)
    return y


def test_functional_group_norm_both_call_forms(dygraph):
    rs = np.random.RandomState(4)
    x, w, b = rs.randn(2, 6, 3, 4), rs.randn(6), rs.randn(6)
    tx, tw, tb = map(paddle.to_tensor, (x, w, b))
    want = group_norm_reference(x, 3, 1e-5, w, b)
    np.testing.assert_allclose(F.group_norm(tx, 3, 1e-5, tw, tb).numpy(), want, rtol=1e-10)
    # torch's order: (input, num_groups, weight, bias, eps)
    np.testing.assert_allclose(F.group_norm(tx, 3, tw, tb, 1e-5).numpy(), want, rtol=1e-10)
    np.testing.assert_allclose(F.group_norm(input=tx, num_groups=3, eps=0.1).numpy(),
                               group_norm_reference(x, 3, 0.1), rtol=1e-10)
    nhwc = F.group_norm(paddle.to_tensor(x.transpose(0, 2, 3, 1)), 2, data_format="NHWC")
    np.testing.assert_allclose(nhwc.numpy(),
                               group_norm_reference(x, 2, 1e-5).transpose(0, 2, 3, 1),
                               rtol=1e-10)
    three = rs.randn(2, 4, 5)
    np.testing.assert_allclose(F.group_norm(paddle.to_tensor(three), 2, data_format="NCL")
                               .numpy(), group_norm_reference(three, 2, 1e-5), rtol=1e-10)
    assert paddle.group_norm is F.group_norm and paddle.layer_norm is F.layer_norm
    with pytest.raises(ValueError, match="data_format must be one of"):
        F.group_norm(tx, 3, data_format="HWNC")
    with pytest.raises(TypeError, match="got multiple values for argument 'epsilon'"):
        F.group_norm(tx, 3, epsilon=0.1, eps=0.2)
    with pytest.raises(TypeError, match="too few arguments"):
        F.group_norm(tx)


def test_group_norm_static_equals_dynamic():
    x = np.random.RandomState(5).randn(2, 4, 3)
    got = run(lambda v: F.group_norm(v, 2, 1e-3, data_format="NCL"), v=x)
    np.testing.assert_allclose(got, group_norm_reference(x, 2, 1e-3), rtol=1e-6)


def test_sequence_mask_and_top_level_functions(dygraph):
    mask = F.sequence_mask(paddle.to_tensor(np.array([1, 3])), 4)
    assert mask.dtype == paddle.int64
    np.testing.assert_array_equal(mask.numpy(), [[1, 0, 0, 0], [1, 1, 1, 0]])
    np.testing.assert_array_equal(F.sequence_mask(paddle.to_tensor(np.array([2, 0])),
                                                  dtype="bool").numpy(),
                                  [[True, True], [False, False]])
    x = paddle.to_tensor(np.random.RandomState(6).randn(2, 3, 8))
    np.testing.assert_array_equal(paddle.adaptive_avg_pool1d(x, 2).numpy(),
                                  x.numpy().reshape(2, 3, 2, 4).mean(-1))
    weight = paddle.to_tensor(np.random.RandomState(7).randn(4, 3, 3))
    np.testing.assert_array_equal(paddle.conv1d(x, weight).numpy(),
                                  F.conv1d(x, weight).numpy())
    assert paddle.conv2d is F.conv2d and paddle.conv3d is F.conv3d
