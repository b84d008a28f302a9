"""paddle.distribution (Paddle 2.0): Categorical (the Actor-Critic tutorial's policy), Normal
and Uniform. Values derived by hand and with numpy (the Normal / Uniform docstring values
of release/2.0 agree), draws checked by their moments, the Paddle 3 differences recorded
on Paddle 3.3.1."""
import math
import warnings

import numpy as np
import pytest

import refimpl as paddle
from refimpl import versions
from refimpl.distribution import Categorical, Distribution, Normal, Uniform


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
    keep = versions.switch("categorical_entropy_keeps_last_dim")     # 2.0; 3.3.1 drops it
    np.testing.assert_allclose(rows.entropy().numpy(), -(p * np.log(p)).sum(-1, keepdims=keep),
                               rtol=1e-5)
    other = Categorical(np.array([[1, 1, 1], [1, 2, 3]], np.float32))
    np.testing.assert_allclose(rows.kl_divergence(other).numpy(),
                               (p * np.log(p / q)).sum(-1, keepdims=True), rtol=1e-5)
    # Paddle 3.3.1 measured 1.0906355 for these weights, 2.0 keeps the axis: [1]
    assert Categorical(WEIGHTS).entropy().shape == ([1] if keep else [])
    np.testing.assert_allclose(Categorical(WEIGHTS).entropy().numpy(), 1.0906355, rtol=1e-6)


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
    # the weights themselves (2.0), or their softmax (3.3.1; switch categorical_sample_from)
    chances = WEIGHTS if versions.switch("categorical_sample_from") == "weights" \
        else softmax(WEIGHTS)
    np.testing.assert_allclose(frequencies(dist), chances, atol=0.015)
    assert dist.sample([2, 3]).shape == [2, 3]
    # [shape..., distributions]: column j comes from row j (row 1 never draws category 2)
    draws = Categorical(np.array([[0, 0, 1], [1, 1, 0]], np.float32)).sample([50]).numpy()
    assert draws.shape == (50, 2)
    if versions.switch("categorical_sample_from") == "weights":    # a zero weight: never
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


def test_float64_logits_stay_float64_with_float32_precision(dygraph):
    # Paddle 2.0 assigns the array (float32) and casts it back; a list is float32
    logits = Categorical(np.array([0.1, 0.2], np.float64)).logits
    assert logits.dtype == paddle.float64
    np.testing.assert_array_equal(logits.numpy(), np.float32([0.1, 0.2]).astype(np.float64))
    assert Categorical([0.1, 0.2]).logits.dtype == paddle.float32


# -- Normal and Uniform
HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)
VALUE = np.array([0.8], np.float32)


def run_static(build):
    """build() -> Variables, fetched from one run of the default program."""
    outs = build()
    return paddle.static.Executor(paddle.CPUPlace()).run(fetch_list=outs)


def normal_values():
    normal, value = Normal([0.], [1.]), paddle.to_tensor(VALUE)
    return [normal.entropy(), normal.log_prob(value), normal.probs(value),
            normal.kl_divergence(Normal([0.5], [2.]))]


# N(0, 1) at 0.8: entropy 0.5 + log sqrt(2 pi); log_prob -0.8^2 / 2 - log sqrt(2 pi);
# KL(N(0, 1) || N(0.5, 2)) = 0.5 (r + t - 1 - log r), r = (1/2)^2, t = (0.5/2)^2
NORMAL_EXPECTED = [0.5 + HALF_LOG_2PI, -0.32 - HALF_LOG_2PI,
                   math.exp(-0.32) / math.sqrt(2 * math.pi),
                   0.5 * (0.25 + 0.0625 - 1 - math.log(0.25))]


def test_normal_closed_forms(dygraph):
    for got, want in zip(normal_values(), NORMAL_EXPECTED):
        assert got.shape == [1]
        np.testing.assert_allclose(got.numpy(), [want], rtol=1e-6)
    # release/2.0's docstring values
    np.testing.assert_allclose([v.numpy()[0] for v in normal_values()],
                               [1.4189385, -1.2389386, 0.28969154, 0.34939718], rtol=1e-6)


def test_normal_closed_forms_static():
    def build():
        normal = Normal([0.], [1.])
        value = paddle.static.data("value", [1], "float32")
        return [normal.entropy(), normal.log_prob(value), normal.probs(value),
                normal.kl_divergence(Normal([0.5], [2.]))]
    outs = build()
    got = paddle.static.Executor(paddle.CPUPlace()).run(feed={"value": VALUE},
                                                        fetch_list=outs)
    np.testing.assert_allclose(np.concatenate(got), NORMAL_EXPECTED, rtol=1e-6)


def test_uniform_closed_forms(dygraph):
    uniform = Uniform([0.], [2.])
    value = paddle.to_tensor(np.array([0.8, 2.5, 0.0], np.float32))
    np.testing.assert_allclose(uniform.entropy().numpy(), [math.log(2)], rtol=1e-6)
    # inside: -log 2 and 1/2; outside (and at low, the interval is open): -inf and 0
    np.testing.assert_allclose(uniform.log_prob(value).numpy(),
                               [-math.log(2), -np.inf, -np.inf], rtol=1e-6)
    np.testing.assert_allclose(uniform.probs(value).numpy(), [0.5, 0, 0])


def test_log_prob_gradient_reaches_the_parameters(dygraph):
    # d/dloc log N(v; loc, s) = (v - loc) / s^2, d/ds = (v - loc)^2 / s^3 - 1 / s
    loc = paddle.to_tensor(np.float32([0.3]), stop_gradient=False)
    scale = paddle.to_tensor(np.float32([2.0]), stop_gradient=False)
    Normal(loc, scale).log_prob(paddle.to_tensor(VALUE)).backward()
    np.testing.assert_allclose(np.asarray(loc.grad), [0.5 / 4], rtol=1e-6)
    np.testing.assert_allclose(np.asarray(scale.grad), [0.25 / 8 - 0.5], rtol=1e-6)


def test_numbers_broadcast_and_sample_exactly_the_shape(dygraph):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        normal = Normal(1, 2)     # ints are floats: no dtype warning
    # [1] (2.0), or 0-D (3.3.1; switch distribution_number_param_shape)
    assert normal.loc.shape == list(versions.switch("distribution_number_param_shape"))
    assert normal.loc.dtype == paddle.float32
    assert normal.sample([4, 3]).shape == [4, 3]
    # a number broadcasts to the other parameter's shape
    uniform = Uniform(3.0, [5.0, 6.0, 7.0])
    np.testing.assert_array_equal(uniform.low.numpy(), [3, 3, 3])
    assert uniform.sample([2]).shape == [2, 3] and uniform.entropy().shape == [3]
    assert Normal([0.], [1.]).sample([2]).shape == [2, 1]


def test_parameter_dtypes(dygraph):
    # the first float numpy array decides; lists are float32; float64 keeps float32 precision
    normal = Normal(np.array([0.1, 0.2]), [1.0, 1.0])
    assert normal.loc.dtype == normal.scale.dtype == paddle.float64
    np.testing.assert_array_equal(normal.loc.numpy(), np.float32([0.1, 0.2]).astype(np.float64))
    assert Normal([0.1], np.float32([1.0])).loc.dtype == paddle.float32
    with pytest.warns(UserWarning, match="int64 is converted to float32"):
        assert Uniform(np.array([0, 1]), [2.0, 3.0]).low.dtype == paddle.float32
    # a value of the other float dtype is cast to the parameters' (with a warning)
    with pytest.warns(UserWarning, match="float32 is converted"):
        lp = normal.log_prob(paddle.to_tensor(np.float32([0.5, 0.5])))
    assert lp.dtype == paddle.float64


def test_tensor_parameters_keep_their_dtype(dygraph):
    low = paddle.to_tensor(np.zeros([2], np.float64))
    uniform = Uniform(low, paddle.to_tensor(np.full([2], 4.0)))
    assert uniform.sample([5]).dtype == paddle.float64
    np.testing.assert_allclose(uniform.entropy().numpy(), np.log([4.0, 4.0]))


def moments(dist, n=20000):
    paddle.seed(7)
    draws = dist.sample([n]).numpy()
    assert draws.shape == (n, 2)
    return draws


def test_normal_draws_have_its_moments(dygraph):
    draws = moments(Normal([1.0, -2.0], [0.5, 3.0]))
    # 4 standard errors: sigma / sqrt(n) for the mean
    np.testing.assert_allclose(draws.mean(0), [1.0, -2.0], atol=4 * 3.0 / math.sqrt(20000))
    np.testing.assert_allclose(draws.std(0), [0.5, 3.0], rtol=0.03)


def test_uniform_draws_have_its_moments(dygraph):
    draws = moments(Uniform([0.0, -1.0], [1.0, 3.0]))
    assert (draws[:, 0] >= 0).all() and (draws[:, 0] < 1).all()
    assert (draws[:, 1] >= -1).all() and (draws[:, 1] < 3).all()
    np.testing.assert_allclose(draws.mean(0), [0.5, 1.0], atol=0.05)
    np.testing.assert_allclose(draws.var(0), [1 / 12, 16 / 12], rtol=0.05)


def test_static_fed_parameters_sample_shape_plus_batch():
    loc = paddle.static.data("loc", [-1, 3], "float32")
    scale = paddle.static.data("scale", [-1, 3], "float32")
    sample = Normal(loc, scale).sample([7], seed=5)
    (got,) = paddle.static.Executor(paddle.CPUPlace()).run(
        feed={"loc": np.full([2, 3], 100, np.float32), "scale": np.full([2, 3], 1e-3, np.float32)},
        fetch_list=[sample])
    assert got.shape == (7, 2, 3)
    np.testing.assert_allclose(got, 100, atol=0.01)    # each draw next to its own loc


def test_static_results_are_named_after_the_distribution():
    normal = Normal(0.0, 1.0, name="policy")
    assert Normal(0.0, 1.0).name == "Normal"
    value = paddle.static.data("value", [1], "float32")
    names = {method: var.name.split(".")[0] for method, var in [
        ("sample", normal.sample([2])), ("entropy", normal.entropy()),
        ("log_prob", normal.log_prob(value)), ("probs", normal.probs(value)),
        ("kl_divergence", normal.kl_divergence(Normal(1.0, 2.0)))]}
    assert names == {m: "policy_" + m for m in names}
    uniform = Uniform(0.0, 1.0, name="u")
    assert uniform.probs(value).name.startswith("u_probs.")
    assert Categorical([0.4, 0.6], name="c").entropy().name.startswith("c_entropy.")


def test_argument_errors():
    with pytest.raises(ValueError, match="all arguments must be Tensors"):
        Normal(paddle.static.data("loc", [1], "float32"), 1.0)
    with pytest.raises(TypeError, match="loc must be"):
        Normal((0.0,), 1.0)
    normal = Normal(0.0, 1.0)
    with pytest.raises(TypeError, match="log_prob: value must be a Tensor"):
        normal.log_prob([1.0])
    with pytest.raises(TypeError, match="probs: value must be float32 or float64"):
        normal.probs(paddle.static.data("ids", [1], "int64"))
    with pytest.raises(TypeError, match="shape must be a list"):
        normal.sample(2)
    with pytest.raises(TypeError, match="seed must be an int"):
        Uniform(0.0, 1.0).sample([2], 1.0)
    with pytest.raises(TypeError, match="other must be a Normal"):
        normal.kl_divergence(Uniform(0.0, 1.0))


def test_the_base_class_implements_nothing():
    base = Distribution()
    for call in (base.sample, base.entropy, lambda: base.log_prob(None),
                 lambda: base.probs(None), lambda: base.kl_divergence(base)):
        with pytest.raises(NotImplementedError):
            call()


@pytest.mark.paddle("3")
def test_paddle3_number_parameters_are_0d(dygraph):
    # Paddle 3.3.1: Normal(0., 1.).entropy() and kl_divergence are [], log_prob of a [1]
    # value is [1], sample([2]) is [2]
    normal = Normal(0.0, 1.0)
    assert normal.entropy().shape == [] and normal.sample([2]).shape == [2]
    assert normal.kl_divergence(Normal(0.5, 2.0)).shape == []
    assert normal.log_prob(paddle.to_tensor(VALUE)).shape == [1]
