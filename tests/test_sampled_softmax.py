"""fluid.layers.sampled_softmax_with_cross_entropy and the sample_logits op: the
log-uniform sampler's probabilities and draws, and the loss against numpy with customized
and sampled classes."""
import numpy as np

from refimpl import fluid
from refimpl.framework import class_samplers
from refimpl.ops.sample_logits import (SampleLogits, log_uniform_draws,
                                       log_uniform_probability)
from helpers import build_programs as _build, run_programs as _run


# -- sampled_softmax_with_cross_entropy
def test_log_uniform_sampler_probabilities():
    p = log_uniform_probability(np.arange(10), 10, 1, 1)
    np.testing.assert_allclose(p.sum(), 1.0)  # a distribution over the 10 classes
    assert np.all(np.diff(p) < 0)  # Zipfian: smaller ids more likely
    drawn, tries = log_uniform_draws(10, 6, 3)
    assert len(set(drawn)) == 6 and tries >= 6 and drawn.min() >= 0 and drawn.max() < 10
    # with rejected draws: the chance a class came up in `tries` draws
    np.testing.assert_allclose(log_uniform_probability(np.array([0]), 10, 6, 8),
                               1 - (1 - np.log(2) / np.log(11)) ** 8)
    sampler = class_samplers.Sampler(class_samplers.LOG_UNIFORM, 10,
                                     class_samplers.Draws(1, 64), "lemire")
    counts = np.bincount(sampler.samples(20000), minlength=10) / 20000
    np.testing.assert_allclose(counts, p, atol=0.01)


def test_sampled_softmax_with_customized_samples_matches_numpy():
    rng = np.random.RandomState(2)
    logits = rng.uniform(-2, 2, (3, 7))
    label = np.array([[2], [5], [0]], np.int64)
    samples = np.array([[2, 1, 6, 2], [5, 0, 5, 3], [0, 4, 1, 6]], np.int64)  # two hits
    probs = rng.uniform(0.1, 0.9, (3, 4))

    def net():
        lv = fluid.data("logits", [-1, 7], "float64")
        lb = fluid.data("label", [-1, 1], "int64")
        sv = fluid.data("samples", [-1, 4], "int64")
        pv = fluid.data("probs", [-1, 4], "float64")
        lv.stop_gradient = False
        loss = fluid.layers.sampled_softmax_with_cross_entropy(
            lv, lb, 3, use_customized_samples=True, customized_samples=sv,
            customized_probabilities=pv)
        grad, = fluid.gradients(fluid.layers.reduce_sum(loss), [lv])
        return loss, grad

    main, startup, (loss, grad) = _build(net)
    (got, dlogits), _ = _run(main, startup, {"logits": logits, "label": label,
                                             "samples": samples, "probs": probs}, [loss, grad])
    sampled = np.take_along_axis(logits, samples, 1) - np.log(probs)
    sampled[0, 3] -= 1e20
    sampled[1, 2] -= 1e20
    soft = np.exp(sampled - sampled.max(1, keepdims=True))
    soft /= soft.sum(1, keepdims=True)
    np.testing.assert_allclose(got, -np.log(soft[:, :1]), rtol=1e-10)
    # d loss / d logits: (softmax - onehot) scattered back onto the sampled classes
    expect = np.zeros_like(logits)
    d = soft - np.eye(4)[[0, 0, 0]]
    for i in range(3):
        np.add.at(expect[i], samples[i], d[i])
    np.testing.assert_allclose(dlogits, expect, rtol=1e-9, atol=1e-12)


def test_sampled_softmax_two_true_labels_and_sampler():
    logits = np.random.RandomState(4).uniform(-1, 1, (2, 20))
    label = np.array([[3, 7], [0, 19]], np.int64)

    def net():
        lv = fluid.data("logits", [-1, 20], "float64")
        lb = fluid.data("label", [-1, 2], "int64")
        return fluid.layers.sampled_softmax_with_cross_entropy(lv, lb, 5, num_true=2, seed=11)

    main, startup, loss = _build(net)
    (got,), _ = _run(main, startup, {"logits": logits, "label": label}, [loss])
    samples, probs, sampled, labels, logits_dim, labels_dim = SampleLogits.forward(
        logits, label, None, None, num_samples=5, seed=11)
    assert logits_dim.tolist() == [2, 20] and labels_dim.tolist() == [2, 2]
    assert samples.shape == (2, 7) and np.all(samples[:, :2] == label)
    assert np.all(samples[0, 2:] == samples[1, 2:])  # one draw for the whole batch
    np.testing.assert_array_equal(labels, [[0, 1], [0, 1]])
    log_soft = sampled - np.log(np.exp(sampled - sampled.max(1, keepdims=True)).sum(1,
                                keepdims=True)) - sampled.max(1, keepdims=True)
    np.testing.assert_allclose(got[:, 0], -log_soft[:, :2].mean(1), rtol=1e-10)
