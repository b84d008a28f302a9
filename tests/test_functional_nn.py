"""nn.functional linear / bilinear / prelu / maxout / in-place activations / alpha_dropout /
dropout2d-3d against numpy."""
import numpy as np
import pytest

import refimpl.nn.functional as F
from refimpl import fluid
from refimpl.ops.registry import get_op_def

from test_functional_loss import run

RNG = np.random.RandomState(3)


def test_linear_and_bilinear():
    x, w, b = RNG.randn(4, 3), RNG.randn(3, 5), RNG.randn(5)
    np.testing.assert_allclose(run(lambda x, w, b: F.linear(x, w, b), x=x, w=w, b=b), x @ w + b)
    x2, wb, bb = RNG.randn(4, 2), RNG.randn(5, 3, 2), RNG.randn(1, 5)
    got = run(lambda a, c, w, b: F.bilinear(a, c, w, b), a=x, c=x2, w=wb, b=bb)
    want = np.array([[x[n] @ wb[k] @ x2[n] for k in range(5)] for n in range(4)]) + bb
    np.testing.assert_allclose(got, want)


def test_prelu_all_and_channel():
    x = RNG.randn(2, 3, 2, 2)
    a1, a3 = np.array([0.2]), np.array([0.1, 0.2, 0.3])
    got = run(lambda x, a, b: [F.prelu(x, a), F.prelu(x, b)], x=x, a=a1, b=a3)
    np.testing.assert_allclose(got[0], np.where(x > 0, x, 0.2 * x))
    np.testing.assert_allclose(got[1], np.where(x > 0, x, a3[None, :, None, None] * x))


def test_prelu_rejects_a_wrong_alpha_size():
    with pytest.raises(Exception, match="Alpha"):
        run(lambda x, a: F.prelu(x, a), x=RNG.randn(2, 3, 2), a=np.ones(2))


@pytest.mark.parametrize("axis", [1, -1])
def test_maxout(axis):
    x = RNG.randn(2, 6, 3, 6)
    got = run(lambda x: [F.maxout(x, 3, axis), fluid.layers.maxout(x, 3, axis=axis)], x=x)
    if axis == 1:
        want = x.reshape(2, 2, 3, 3, 6).max(2)
    else:
        want = x.reshape(2, 6, 3, 2, 3).max(4)
    np.testing.assert_array_equal(got[0], want)
    np.testing.assert_array_equal(got[1], want)


def test_maxout_rejects_indivisible_channels():
    with pytest.raises(Exception, match="divisible"):
        run(lambda x: F.maxout(x, 4), x=RNG.randn(2, 6, 2, 2))


def test_in_place_activations_warn_and_compute():
    x = RNG.randn(3, 4)
    with pytest.warns(UserWarning, match="dygraph-only"):
        got = run(lambda x: [F.relu_(x), F.elu_(x, 0.5), F.softmax_(x, axis=0)], x=x)
    np.testing.assert_allclose(got[0], np.maximum(x, 0))
    np.testing.assert_allclose(got[1], np.where(x > 0, x, 0.5 * (np.exp(x) - 1)))
    np.testing.assert_allclose(got[2], np.exp(x) / np.exp(x).sum(0))


def test_alpha_dropout_values_and_moments():
    x = RNG.randn(200, 100)
    got = run(lambda x: F.alpha_dropout(x, 0.2), x=x)
    alpha_p = -1.6732632423543772 * 1.0507009873554805
    a = ((0.8) * (1 + 0.2 * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * 0.2
    kept = np.isclose(got, a * x + b)
    dropped = np.isclose(got, a * alpha_p + b)
    assert np.all(kept | dropped)
    assert abs(dropped.mean() - 0.2) < 0.02
    # it preserves zero mean and unit variance for standard normal input
    assert abs(got.mean()) < 0.05 and abs(got.std() - 1) < 0.05
    np.testing.assert_array_equal(run(lambda x: F.alpha_dropout(x, 0.2, training=False), x=x), x)
    # p = 1 drops everything: zeros (Paddle 2.0's test_dropout_op), p = 0 keeps x
    np.testing.assert_array_equal(run(lambda x: F.alpha_dropout(x, 1.0), x=x), np.zeros_like(x))
    np.testing.assert_array_equal(run(lambda x: F.alpha_dropout(x, 0.0), x=x), x)


@pytest.mark.parametrize("fn, shape, fmt", [(F.dropout2d, (8, 16, 3, 3), "NCHW"),
                                            (F.dropout2d, (8, 3, 3, 16), "NHWC"),
                                            (F.dropout3d, (8, 16, 2, 2, 2), "NCDHW")])


def test_channel_dropout_zeroes_whole_maps(fn, shape, fmt):
    x = RNG.uniform(1, 2, shape)
    got = run(lambda x: fn(x, 0.5, data_format=fmt), x=x)
    maps = np.moveaxis(got / x, -1, 1) if fmt == "NHWC" else got / x
    per_map = maps.reshape(shape[0], 16, -1)
    # each feature map is all 0 or all 1/(1-p)
    assert np.allclose(per_map, per_map[:, :, :1])
    assert set(np.round(np.unique(per_map), 6)) <= {0.0, 2.0}
    assert 0.2 < (per_map[:, :, 0] == 0).mean() < 0.8


def test_instance_norm_with_weight_and_bias():
    x, w, b = RNG.randn(2, 3, 4, 5), RNG.randn(3), RNG.randn(3)
    got = run(lambda x, w, b: F.instance_norm(x, weight=w, bias=b, eps=1e-3), x=x, w=w, b=b)
    mean = x.mean((2, 3), keepdims=True)
    var = x.var((2, 3), keepdims=True)
    want = (x - mean) / np.sqrt(var + 1e-3) * w[:, None, None] + b[:, None, None]
    np.testing.assert_allclose(got, want, atol=1e-12)


def _lrn_reference(x, size, alpha, beta, k, before, scale_alpha):
    """x / (k + a sum_{c - before <= j <= c - before + size - 1} x_j^2)^beta, channels-first."""
    c = x.shape[1]
    out = np.empty_like(x)
    for ch in range(c):
        lo, hi = max(ch - before, 0), min(ch - before + size, c)
        s = (x[:, lo:hi] ** 2).sum(1)
        out[:, ch] = x[:, ch] / (k + (alpha / size if scale_alpha else alpha) * s) ** beta
    return out


@pytest.mark.paddle("3")      # refimpl's own checks: 1.8 / 2.0 check fluid.layers as Paddle
@pytest.mark.parametrize("size", [3, 4])
def test_local_response_norm_and_fluid_lrn(size):
    x = RNG.randn(2, 6, 3, 2)
    got = run(lambda x: [F.local_response_norm(x, size, alpha=0.3, beta=0.75, k=1.5),
                         fluid.layers.lrn(x, size, k=1.5, alpha=0.3, beta=0.75)], x=x)
    np.testing.assert_allclose(got[0], _lrn_reference(x, size, 0.3, 0.75, 1.5, size // 2, True))
    # fluid's lrn: the window starts (n-1)//2 before, alpha not divided by n
    np.testing.assert_allclose(got[1], _lrn_reference(x, size, 0.3, 0.75, 1.5,
                                                      (size - 1) // 2, False))


def test_local_response_norm_channels_last_and_3d():
    x = RNG.randn(2, 3, 2, 5)
    got = run(lambda x: F.local_response_norm(x, 3, 0.2, 0.5, 1.0, data_format="NHWC"), x=x)
    want = _lrn_reference(x.transpose(0, 3, 1, 2), 3, 0.2, 0.5, 1.0, 1, True)
    np.testing.assert_allclose(got, want.transpose(0, 2, 3, 1))
    x3 = RNG.randn(2, 5, 4)
    got = run(lambda x: F.local_response_norm(x, 2, 0.2, 0.5, 1.0, data_format="NCL"), x=x3)
    want = _lrn_reference(x3[..., None], 2, 0.2, 0.5, 1.0, 1, True)[..., 0]
    np.testing.assert_allclose(got, want)
    # 5-D (Paddle 2.0): the channels first or last, the other dims each normalized apart
    x5 = RNG.randn(2, 4, 3, 2, 5)
    want = _lrn_reference(x5, 3, 0.2, 0.5, 1.0, 1, True)
    got = run(lambda x: F.local_response_norm(x, 3, 0.2, 0.5, 1.0, data_format="NCDHW"),
              x=x5)
    np.testing.assert_allclose(got, want)
    got = run(lambda x: F.local_response_norm(x, 3, 0.2, 0.5, 1.0, data_format="NDHWC"),
              x=x5.transpose(0, 2, 3, 4, 1))
    np.testing.assert_allclose(got, want.transpose(0, 2, 3, 4, 1))


def test_instance_norm_of_n_by_c_is_its_bias():
    # Paddle 1.8.5 and 3.3.1 take X [N, C]: each value is its own instance, so Y = Bias
    # (SavedVariance 1/sqrt(epsilon)); 1.8.5's docstring normalizes an fc output so
    x = np.arange(12, dtype="float64").reshape(3, 4)
    scale, bias = np.full(4, 2.0), np.array([0.5, -1.0, 0.0, 3.0])
    op = get_op_def("instance_norm")
    y, mean, inv_std = op.forward(x, scale, bias, epsilon=1e-5)
    np.testing.assert_array_equal(y, np.broadcast_to(bias, (3, 4)))
    np.testing.assert_array_equal(mean.reshape(3, 4), x)
    np.testing.assert_allclose(inv_std, 1 / np.sqrt(1e-5))
