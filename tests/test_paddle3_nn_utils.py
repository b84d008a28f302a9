"""Paddle 3 names beyond 2.0 that Paddle 3's own tests use: F.glu / nn.GLU,
F.pairwise_distance, nn.utils.parameters_to_vector / vector_to_parameters,
io.SubsetRandomSampler. Values hand-derived with numpy; reprs and errors as Paddle 3.3.1's
(checked there)."""
import numpy as np
import pytest

import refimpl as paddle
import refimpl.nn.functional as F

X = np.arange(12, dtype="float32").reshape(2, 6) / 10 - 0.5


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def test_glu_gates_the_first_half_with_the_second():
    paddle.disable_static()
    x = paddle.to_tensor(X)
    np.testing.assert_allclose(F.glu(x).numpy(), X[:, :3] * _sigmoid(X[:, 3:]), rtol=1e-6)
    np.testing.assert_allclose(F.glu(x, 0).numpy(), X[:1] * _sigmoid(X[1:]), rtol=1e-6)
    # the layer: axis then name, 3.3.1's repr
    np.testing.assert_allclose(paddle.nn.GLU(0)(x).numpy(), F.glu(x, 0).numpy())
    assert repr(paddle.nn.GLU()) == "GLU(axis=-1)"
    assert paddle.nn.GLU(axis=0, name="test").extra_repr() == "axis=0, name=test"
    assert F.glu is paddle.nn.functional.activation.glu


def test_glu_errors():
    paddle.disable_static()
    with pytest.raises(ValueError, match=r"glu: expected axis in \[-2, 2\), got 2"):
        F.glu(paddle.to_tensor(X), 2)
    with pytest.raises(ValueError, match="not divisible"):      # an odd size there
        F.glu(paddle.ones([2, 3]))
    with pytest.raises(TypeError):
        paddle.nn.GLU()(1)
    paddle.enable_static()
    try:
        with paddle.static.program_guard(paddle.static.Program()):
            with pytest.raises(TypeError, match="glu: x must have dtype"):
                F.glu(paddle.static.data("x", [2, 4], "int32"))
    finally:
        paddle.disable_static()


def test_pairwise_distance_is_the_p_norm_of_x_minus_y_plus_epsilon(paddle_version):
    y = np.full((2, 6), 0.3, "float32")
    with paddle_version("3"):
        paddle.disable_static()
        out = F.pairwise_distance(paddle.to_tensor(X), paddle.to_tensor(y))
        np.testing.assert_allclose(out.numpy(), np.sqrt(((X - y + 1e-6) ** 2).sum(-1)),
                                   rtol=1e-6)
        # Paddle 3.3.1's values
        np.testing.assert_allclose(out.numpy(), [1.4106712, 0.4358906], rtol=1e-6)
        out = F.pairwise_distance(paddle.to_tensor(X), paddle.to_tensor(y), p=1.0,
                                  keepdim=True)
        np.testing.assert_allclose(out.numpy(), [[3.299994], [0.900002]], rtol=1e-6)
        out = F.pairwise_distance(paddle.to_tensor(X), paddle.to_tensor(y), p=float("inf"),
                                  epsilon=0.0)
        np.testing.assert_allclose(out.numpy(), [0.8, 0.3], rtol=1e-6)
        assert F.pairwise_distance is paddle.nn.functional.distance.pairwise_distance


def test_parameters_to_vector_and_back():
    paddle.disable_static()
    a, b = paddle.nn.Linear(3, 2), paddle.nn.Linear(3, 2)
    a.weight.set_value(np.arange(6, dtype="float32").reshape(3, 2))
    a.bias.set_value(np.array([7, 8], "float32"))
    vec = paddle.nn.utils.parameters_to_vector(a.parameters())
    np.testing.assert_array_equal(vec.numpy(), [0, 1, 2, 3, 4, 5, 7, 8])
    assert vec.dtype == paddle.float32 and not vec.stop_gradient and vec.is_leaf
    paddle.nn.utils.vector_to_parameters(vec * 2, b.parameters())
    np.testing.assert_array_equal(b.weight.numpy(), [[0, 2], [4, 6], [8, 10]])
    np.testing.assert_array_equal(b.bias.numpy(), [14, 16])
    assert b.weight.is_leaf and not b.weight.stop_gradient
    longer = paddle.to_tensor(np.arange(10, dtype="float32"))   # the rest is left
    paddle.nn.utils.vector_to_parameters(longer, b.parameters())
    np.testing.assert_array_equal(b.bias.numpy(), [6, 7])
    with pytest.raises(ValueError, match="at least"):
        paddle.nn.utils.vector_to_parameters(longer[:4], b.parameters())
    with pytest.raises(AssertionError, match="1-D"):
        paddle.nn.utils.vector_to_parameters(paddle.ones([2, 4]), b.parameters())


def test_subset_random_sampler_yields_each_index_once():
    np.random.seed(3)
    indices = [5, 17, 2, 40, 9]
    sampler = paddle.io.SubsetRandomSampler(indices)
    assert len(sampler) == 5
    drawn = list(sampler)
    assert sorted(drawn) == sorted(indices)
    np.random.seed(3)
    assert drawn == [indices[i] for i in np.random.permutation(5)]
    with pytest.raises(ValueError, match="must not be empty"):
        paddle.io.SubsetRandomSampler([])
