"""nn.PairwiseDistance (refimpl/nn/layer/distance.py): the axis it reduces and where its
epsilon goes differ by version (switch pairwise_distance_axis, specs/versions.md)."""
import numpy as np

import refimpl as paddle

X = np.arange(24, dtype="float64").reshape(2, 3, 4) / 10.0
Y = np.cos(X)


def _distance(**kwargs):
    paddle.disable_static()
    return paddle.nn.layer.distance.PairwiseDistance(**kwargs)(
        paddle.to_tensor(X), paddle.to_tensor(Y)).numpy()


def test_pairwise_distance_reduces_axis_1_under_2_0(paddle_version):
    with paddle_version("2.0"):
        out = _distance()
        assert out.shape == (2, 4)
        np.testing.assert_allclose(out, np.sqrt(((X - Y) ** 2).sum(axis=1)), rtol=1e-12)
        out = _distance(p=1.0, keepdim=True)
        assert out.shape == (2, 1, 4)
        np.testing.assert_allclose(out, np.abs(X - Y).sum(axis=1, keepdims=True), rtol=1e-12)


def test_pairwise_distance_adds_epsilon_on_the_last_axis_under_3(paddle_version):
    with paddle_version("3"):
        out = _distance(epsilon=0.5)
        assert out.shape == (2, 3)
        np.testing.assert_allclose(out, np.sqrt(((X - Y + 0.5) ** 2).sum(axis=-1)),
                                   rtol=1e-12)
