"""fluid.layers miscellany: distributions, thin layers over existing ops, readers."""
import math

import numpy as np
import pytest

from refimpl import fluid
from refimpl.framework.program import Program, program_guard
from refimpl.framework.scope import Scope

L = fluid.layers


def _build_and_run(build, feed=None):
    """Build `build()` -> list of Variables in fresh programs, run, return numpy values."""
    main, startup = Program(), Program()
    with program_guard(main, startup):
        outs = build()
    exe = fluid.Executor(fluid.CPUPlace())
    scope = Scope()
    exe.run(startup, scope=scope)
    return exe.run(main, feed=feed or {}, fetch_list=outs, scope=scope)


# -- distributions

def test_uniform_sample_entropy_log_prob():
    low, high = np.array([0.0, 1.0]), np.array([2.0, 5.0])

    def build():
        u = L.Uniform(low, high)
        value = L.assign(np.array([1.0, 6.0], "float32"))
        return [u.sample([500], seed=7), u.entropy(), u.log_prob(value)]

    draws, entropy, log_prob = _build_and_run(build)
    assert draws.shape == (500, 2)
    assert (draws >= low).all() and (draws < high).all()
    np.testing.assert_allclose(draws.mean(0), (low + high) / 2, atol=0.2)
    np.testing.assert_allclose(entropy, np.log(high - low), rtol=1e-6)
    np.testing.assert_allclose(log_prob, [-np.log(2.0), -np.inf], rtol=1e-6)


def test_normal_matches_closed_forms():
    loc, scale = np.array([0.0, 1.0]), np.array([1.0, 2.0])
    loc2, scale2 = np.array([1.0, 1.0]), np.array([2.0, 0.5])
    value = np.array([1.0, 6.0])

    def build():
        n, n2 = L.Normal(loc, scale), L.Normal(loc2, scale2)
        v = L.assign(value.astype("float32"))
        return [n.sample([4000], seed=3), n.entropy(), n.log_prob(v), n.kl_divergence(n2)]

    draws, entropy, log_prob, kl = _build_and_run(build)
    assert draws.shape == (4000, 2)
    np.testing.assert_allclose(draws.mean(0), loc, atol=0.15)
    np.testing.assert_allclose(draws.std(0), scale, rtol=0.08)
    np.testing.assert_allclose(entropy, 0.5 + 0.5 * np.log(2 * np.pi) + np.log(scale),
                               rtol=1e-6)
    density = np.exp(-(value - loc) ** 2 / (2 * scale ** 2)) / (scale * np.sqrt(2 * np.pi))
    np.testing.assert_allclose(log_prob, np.log(density), rtol=1e-5)
    expected_kl = (np.log(scale2 / scale) + (scale ** 2 + (loc - loc2) ** 2) / (2 * scale2 ** 2)
                   - 0.5)
    np.testing.assert_allclose(kl, expected_kl, rtol=1e-5)


def test_normal_seeded_sample_repeats_and_broadcasts():
    def build():
        n = L.Normal(np.zeros((2, 3)), 1.0 + np.zeros((2, 3)))
        return [n.sample([2], seed=5), n.sample([2], seed=5)]

    first, second = _build_and_run(build)
    assert first.shape == (2, 2, 3)
    np.testing.assert_array_equal(first, second)


def test_categorical_entropy_and_kl():
    logits = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
    other = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 2.0]])

    def build():
        c, c2 = L.Categorical(logits), L.Categorical(other)
        return [c.entropy(), c.kl_divergence(c2)]

    entropy, kl = _build_and_run(build)
    p = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    q = np.exp(other) / np.exp(other).sum(-1, keepdims=True)
    assert entropy.shape == (2, 1) and kl.shape == (2, 1)
    np.testing.assert_allclose(entropy[:, 0], -(p * np.log(p)).sum(-1), rtol=1e-5)
    np.testing.assert_allclose(entropy[1, 0], np.log(3.0), rtol=1e-6)
    np.testing.assert_allclose(kl[:, 0], (p * np.log(p / q)).sum(-1), rtol=1e-5)


def test_multivariate_normal_diag_entropy_and_kl():
    var, var2 = np.array([1.0, 4.0]), np.array([2.0, 0.5])
    loc, loc2 = np.array([0.0, 1.0]), np.array([1.0, 0.0])

    def build():
        m = L.MultivariateNormalDiag(loc, np.diag(var))
        m2 = L.MultivariateNormalDiag(loc2, np.diag(var2))
        return [m.entropy(), m.kl_divergence(m2)]

    entropy, kl = _build_and_run(build)
    k = 2
    np.testing.assert_allclose(entropy, [0.5 * (k * (1 + np.log(2 * np.pi))
                                                + np.log(var.prod()))], rtol=1e-6)
    expected = 0.5 * ((var / var2).sum() + ((loc2 - loc) ** 2 / var2).sum() - k
                      + np.log(var2.prod() / var.prod()))
    np.testing.assert_allclose(kl, [expected], rtol=1e-5)


def test_distributions_take_variables_and_reject_mixes():
    def build():
        loc = L.assign(np.array([0.5], "float32"))
        scale = L.assign(np.array([2.0], "float32"))
        return [L.Normal(loc, scale).entropy()]

    (entropy,) = _build_and_run(build)
    np.testing.assert_allclose(entropy, [0.5 + 0.5 * math.log(2 * math.pi) + math.log(2.0)],
                               rtol=1e-6)
    with program_guard(Program(), Program()):
        loc = L.assign(np.array([0.5], "float32"))
        with pytest.raises(ValueError, match="Normal: if one argument is a Variable"):
            L.Normal(loc, 1.0)
        with pytest.raises(TypeError, match="Normal.kl_divergence: other must be a Normal"):
            L.Normal(0.0, 1.0).kl_divergence(L.Uniform(0.0, 1.0))
        with pytest.raises(TypeError, match="Uniform.sample: shape must be a list"):
            L.Uniform(0.0, 1.0).sample(3)
        with pytest.raises(ValueError, match="scale must be a k x k matrix"):
            L.MultivariateNormalDiag([0.0, 1.0], [1.0, 1.0])
        with pytest.raises(NotImplementedError, match="Categorical has no sample"):
            L.Categorical([1.0, 2.0]).sample([1])
