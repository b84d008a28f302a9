"""paddle.distribution.Categorical (Paddle 2.0; the Actor-Critic tutorial's policy): values
derived by hand and with numpy, the Paddle 3 differences recorded on Paddle 3.3.1."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl.distribution import Categorical


def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


WEIGHTS = np.array([0.2, 0.5, 0.3], np.float32)
ROWS = np.array([[1.0, 2.0, 1.0], [3.0, 1.0, 0.5]], np.float32)


def ids(*values):
    return paddle.to_tensor(np.array(values, np.int64))


def test_probs_and_log_prob_divide_the_weights_by_their_sum(dygraph):
    dist = Categorical(paddle.to_tensor(WEIGHTS))
    np.testing.assert_allclose(dist.probs(ids(1)).numpy(), [0.5])
    np.testing.assert_allclose(dist.log_prob(ids(0, 2, 1)).numpy(), np.log([0.2, 0.3, 0.5]),
                               rtol=1e-6)
    # [2, 3] logits, 1-D value: each id looked up in every distribution
    rows = Categorical(ROWS)
    np.testing.assert_allclose(rows.probs(ids(2, 0)).numpy(),
                               [[0.25, 0.25], [0.5 / 4.5, 3 / 4.5]], rtol=1e-6)
    # value [2, 1]: one id per distribution
    np.testing.assert_allclose(rows.probs(paddle.to_tensor(np.array([[1], [0]], np.int64))).numpy(),
                               [[0.5], [3 / 4.5]], rtol=1e-6)
    with pytest.raises(ValueError, match=r"\[3\].*\[2\]"):
        rows.probs(paddle.to_tensor(np.zeros((3, 1), np.int64)))


def test_log_prob_gradient_reaches_the_logits(dygraph):
    # log(softmax(y)[1] / sum(softmax(y))) = y1 - logsumexp(y): gradient onehot(1) - softmax(y)
    y = paddle.to_tensor(WEIGHTS, stop_gradient=False)
    Categorical(paddle.nn.functional.softmax(y)).log_prob(ids(1)).backward()
    np.testing.assert_allclose(np.asarray(y.grad), np.eye(3)[1] - softmax(WEIGHTS), rtol=1e-5)


def test_entropy_and_kl_are_those_of_the_softmax(dygraph):
    p, q = softmax(ROWS), softmax(np.array([[1, 1, 1], [1, 2, 3]], np.float32))
    rows = Categorical(ROWS)
    np.testing.assert_allclose(rows.entropy().numpy(), -(p * np.log(p)).sum(-1, keepdims=True),
                               rtol=1e-5)
    other = Categorical(np.array([[1, 1, 1], [1, 2, 3]], np.float32))
    np.testing.assert_allclose(rows.kl_divergence(other).numpy(),
                               (p * np.log(p / q)).sum(-1, keepdims=True), rtol=1e-5)
    # Paddle 3.3.1 measured 1.0906355 for these weights, 2.0 keeps the axis: [1]
    assert Categorical(WEIGHTS).entropy().shape == [1]
    np.testing.assert_allclose(Categorical(WEIGHTS).entropy().numpy(), [1.0906355], rtol=1e-6)


@pytest.mark.paddle("3")
def test_paddle3_entropy_drops_the_axis_kl_keeps_it(dygraph):
    rows = Categorical(ROWS)
    assert rows.entropy().shape == [2]
    assert rows.kl_divergence(Categorical(ROWS)).shape == [2, 1]
    assert Categorical(WEIGHTS).entropy().shape == []


def frequencies(dist, n=20000):
    paddle.seed(3)
    draws = dist.sample([n]).numpy()
    assert draws.shape == (n,) and draws.dtype == np.int64
    return np.bincount(draws, minlength=3) / n


def test_sample_draws_by_the_weights(dygraph):
    dist = Categorical(paddle.to_tensor(WEIGHTS))
    np.testing.assert_allclose(frequencies(dist), WEIGHTS, atol=0.015)
    assert dist.sample([2, 3]).shape == [2, 3]
    # [shape..., distributions]: column j comes from row j (row 1 never draws category 2)
    draws = Categorical(np.array([[0, 0, 1], [1, 1, 0]], np.float32)).sample([50]).numpy()
    assert draws.shape == (50, 2)
    assert (draws[:, 0] == 2).all() and (draws[:, 1] != 2).all()


@pytest.mark.paddle("3")
def test_paddle3_samples_the_softmax(dygraph):
    # Paddle 3.3.1 measured [0.2872 0.3876 0.3252] for 20000 draws: softmax, not the weights
    np.testing.assert_allclose(frequencies(Categorical(paddle.to_tensor(WEIGHTS))),
                               softmax(WEIGHTS), atol=0.015)


def test_bad_arguments_name_the_method():
    with pytest.raises(TypeError, match="logits"):
        Categorical(3.0)
    with pytest.raises(TypeError, match="shape"):
        Categorical(WEIGHTS).sample(5)
    with pytest.raises(TypeError, match="other"):
        Categorical(WEIGHTS).kl_divergence(WEIGHTS)
