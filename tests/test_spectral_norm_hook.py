"""paddle.nn.utils.spectral_norm / paddle.nn.spectral_norm (Paddle 3): the weight divided by
its power-iteration estimate of the largest singular value, against numpy."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl import nn

pytestmark = pytest.mark.paddle("3")


def power_iteration(weight, u, v, dim, steps, eps=1e-12):
    w = np.moveaxis(weight, dim, 0).reshape(weight.shape[dim], -1)
    for _ in range(steps):
        v = w.T @ u
        v = v / max(np.linalg.norm(v), eps)
        u = w @ v
        u = u / max(np.linalg.norm(u), eps)
    return u, v, u @ (w @ v)


@pytest.mark.parametrize("make, dim, steps", [
    (lambda: nn.Conv2D(2, 3, 3), 0, 1), (lambda: nn.Linear(4, 5), 1, 2),
    (lambda: nn.Conv2D(2, 3, 3), 1, 3)])
def test_spectral_norm_divides_by_the_power_iteration_sigma(dygraph, make, dim, steps):
    layer = make()
    before = layer.weight.numpy().copy()
    given = None if dim != 1 or isinstance(layer, nn.Linear) else dim
    assert nn.utils.spectral_norm(layer, n_power_iterations=steps, dim=given) is layer
    u0, v0 = layer.weight_u.numpy().copy(), layer.weight_v.numpy().copy()
    np.testing.assert_allclose(np.linalg.norm(u0), 1, rtol=1e-6)
    x = paddle.to_tensor(np.random.RandomState(0).rand(2, 2, 5, 5).astype("float32")
                         if isinstance(layer, nn.Conv2D) else
                         np.random.RandomState(0).rand(2, 4).astype("float32"))
    layer(x)
    u, v, sigma = power_iteration(before, u0, v0, dim, steps)
    np.testing.assert_allclose(layer.weight.numpy(), before / sigma, rtol=1e-5)
    # the buffers hold the iterated vectors; eval mode leaves them
    np.testing.assert_allclose(layer.weight_u.numpy(), u, rtol=1e-5, atol=1e-6)
    layer.eval()
    layer(x)
    np.testing.assert_allclose(layer.weight_u.numpy(), u, rtol=1e-5, atol=1e-6)
    assert [name for name, _ in layer.named_parameters()] == ["bias", "weight_orig"]


def test_spectral_norm_trains_the_original_weight_and_checks(dygraph):
    layer = nn.spectral_norm(nn.Linear(3, 2))
    assert nn.spectral_norm is nn.utils.spectral_norm
    layer(paddle.ones([1, 3])).sum().backward()
    assert layer.weight_orig.grad is not None and np.abs(layer.weight_orig.gradient()).sum() > 0
    with pytest.raises(RuntimeError, match="already has a spectral_norm hook"):
        nn.utils.spectral_norm(layer)
    with pytest.raises(ValueError, match="n_power_iterations must be positive"):
        nn.utils.spectral_norm(nn.Linear(2, 2), n_power_iterations=0)
