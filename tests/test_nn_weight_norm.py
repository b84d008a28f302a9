"""paddle.nn.utils.weight_norm / remove_weight_norm (Paddle 2.0; PaddleNLP's TCN uses
them): the parameters they add and remove, the weight g * v / ||v|| recomputed before
each forward, and its gradients, against numpy (Paddle 3.3.1 gives the same values)."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl.nn.utils import remove_weight_norm, weight_norm

W = np.arange(24, dtype="float32").reshape(2, 3, 4) / 10 - 1     # Conv1D(3, 2, 4)'s weight


def _norm_except(v, dim):
    if dim is None:
        return np.sqrt((v ** 2).sum()).reshape([1])
    return np.sqrt((np.moveaxis(v, dim, 0).reshape(v.shape[dim], -1) ** 2).sum(1))


def _along(g, dim, ndim):
    return g.reshape([-1 if i == dim else 1 for i in range(ndim)]) if dim is not None else g


@pytest.mark.parametrize("dim", [0, 1, 2, None, -1, -2])
def test_weight_norm_reparameterizes_and_trains_g_and_v(dygraph, dim):
    conv = paddle.nn.Conv1D(3, 2, 4)
    conv.weight.set_value(W)
    weight_norm(conv, dim=dim)
    axis = None if dim in (None, -1) else dim % 3   # -1 is the whole tensor, as None
    assert [n for n, _ in conv.named_parameters()] == ["bias", "weight_v", "weight_g"]
    g0 = _norm_except(W, axis)
    np.testing.assert_allclose(conv.weight_g.numpy(), g0, rtol=1e-6)
    np.testing.assert_array_equal(conv.weight_v.numpy(), W)
    conv.weight_g.set_value((2 * g0).reshape(conv.weight_g.shape))   # 0-D under 3, dim None
    x = paddle.to_tensor(np.ones([1, 3, 5], "float32"))
    y = conv(x)                                   # the pre-hook recomputes the weight
    np.testing.assert_allclose(y.numpy().ravel(), 2 * np.repeat(W.sum((1, 2)), 2), rtol=1e-5)
    y.sum().backward()
    # dL/dw = 2 (two output positions) everywhere; w = g v / |v| per slice along dim
    dw = np.full_like(W, 2.0)
    unit = W / _along(g0, axis, 3)
    red = tuple(i for i in range(3) if i != axis) if axis is not None else None
    dg = (dw * unit).sum(axis=red) if axis is not None else np.array([(dw * unit).sum()])
    dv = _along(2 * g0 / g0, axis, 3) * (dw - unit * _along(dg, axis, 3))
    np.testing.assert_allclose(np.asarray(conv.weight_g.grad), dg, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(conv.weight_v.grad), dv, rtol=1e-5, atol=1e-5)
    remove_weight_norm(conv)
    assert [n for n, _ in conv.named_parameters()] == ["bias", "weight"]
    np.testing.assert_allclose(conv.weight.numpy(), 2 * W, rtol=1e-6)
    assert not conv._forward_pre_hooks


@pytest.mark.paddle("3")
def test_whole_tensor_g_is_a_scalar_under_paddle_3(dygraph):
    lin = weight_norm(paddle.nn.Linear(2, 3), dim=None)
    assert list(lin.weight_g.shape) == []


def test_weight_norm_errors_name_the_layer_and_parameter(dygraph):
    lin = paddle.nn.Linear(2, 3)
    with pytest.raises(ValueError, match="has no parameter 'kernel'"):
        weight_norm(lin, name="kernel")
    with pytest.raises(ValueError, match=r"dim must be in \[-2, 2\)"):
        weight_norm(lin, dim=2)
    weight_norm(lin)
    with pytest.raises(RuntimeError, match="already has weight_norm"):
        weight_norm(lin)
    with pytest.raises(ValueError, match="no weight_norm applied"):
        remove_weight_norm(lin, name="bias")


def test_weight_norm_refuses_static_mode():
    paddle.enable_static()
    try:
        with pytest.raises(RuntimeError, match="dynamic mode only"):
            weight_norm(paddle.nn.Linear(2, 3))
    finally:
        paddle.disable_static()
