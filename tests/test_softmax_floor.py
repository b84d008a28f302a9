"""Paddle's CPU softmax clips x - max(x) at -64 before exp (softmax and
softmax_with_cross_entropy; Paddle 1.8.5 and 3.3.1, float32 and float64): no probability
is below exp(-64), and the loss of a label 100 logits below the best is 64. Values measured
on Paddle 1.8.5; both backends (the compiled kernels and REFIMPL_KERNELS=numpy).
log_softmax (an op since 2.0) clips the same shift: values measured on Paddle 3.3.1."""
import numpy as np

import refimpl as paddle
from refimpl import fluid
from helpers import build_and_run

FLOOR = 1.6038109e-28     # exp(-64)
LOGITS = np.array([[0, 100, 30], [0, 60, 63]], "float32")


def test_softmax_floors_every_probability_at_exp_minus_64():
    def build():
        x = fluid.data("x", [None, 3], "float32")
        x64 = fluid.data("x64", [None, 2], "float64")
        return [fluid.layers.softmax(x), fluid.layers.softmax(x64)]
    probs, probs64 = build_and_run(build, {"x": LOGITS, "x64": np.array([[0, 800.0]])})
    np.testing.assert_allclose(probs, [[FLOOR, 1, FLOOR], [4.1528519e-28, 4.7425874e-02,
                                                            9.5257413e-01]], rtol=1e-6)
    np.testing.assert_allclose(probs64, [[1.60381089e-28, 1]], rtol=1e-8)


def test_softmax_with_cross_entropy_loss_is_at_most_64_plus_log_of_the_row_sum():
    def build():
        x = fluid.data("x", [None, 3], "float32")
        label = fluid.data("label", [None, 1], "int64")
        loss, probs = fluid.layers.softmax_with_cross_entropy(x, label, return_softmax=True)
        return [loss, probs]
    loss, probs = build_and_run(build, {"x": LOGITS, "label": np.array([[0], [0]], "int64")})
    np.testing.assert_allclose(loss, [[64.0], [63.048588]], rtol=1e-6)
    np.testing.assert_allclose(probs[0], [FLOOR, 1, FLOOR], rtol=1e-6)


def test_cross_entropy_of_a_saturated_softmax_has_a_finite_gradient():
    # Paddle 1.8.5's test_parallel_executor_fetch_feed trains a LeNet at lr 0.1 and asserts
    # every fetched gradient is finite: a probability of exactly 0 at the label made -1/0
    def build():
        x = fluid.data("x", [None, 3], "float32")
        x.stop_gradient = False
        label = fluid.data("label", [None, 1], "int64")
        loss = fluid.layers.mean(fluid.layers.cross_entropy(fluid.layers.softmax(x), label))
        return [loss] + fluid.gradients([loss], [x])
    loss, grad = build_and_run(build, {"x": LOGITS, "label": np.array([[0], [0]], "int64")})
    assert np.isfinite(grad).all()
    np.testing.assert_allclose(loss, [(64.0 + 63.048588) / 2], rtol=1e-5)
    # d(-log p_label)/dx = p - onehot, halved by the mean
    np.testing.assert_allclose(grad, [[-0.5, 0.5, 0], [-0.5, 0.0237129, 0.4762871]],
                               atol=1e-6)


def test_log_softmax_floors_the_shift_at_minus_64_and_its_grad_reads_the_floored_output(dygraph):
    # PaddleClas 2.0's label-smoothing CELoss (-log_softmax * smoothed one-hot): a logit 91.5
    # below the best counts 64, which an unclipped log_softmax made 91.5 (loss 2.90 for 2.79
    # on the same batch as Paddle 3.3.1)
    x = paddle.to_tensor(np.array([[-42.067, -10.7507, 49.4578], [0, 1, 100]], "float32"),
                         stop_gradient=False)
    y = paddle.nn.functional.log_softmax(x, axis=-1)
    np.testing.assert_allclose(y.numpy(), [[-64, -60.208504, 0], [-64, -64, 0]], rtol=1e-6)
    (y * paddle.to_tensor(np.array([[1, 2, 3], [0.5, -1, 1]], "float32"))).sum().backward()
    # dy - exp(y) * sum(dy) with y the floored output, as Paddle's grad kernel
    np.testing.assert_allclose(np.asarray(x.grad), [[1, 2, -3], [0.5, -1, 0.5]], atol=1e-6)
    x64 = paddle.to_tensor(np.array([[0.0], [70.0], [10.0]]))
    np.testing.assert_allclose(paddle.nn.functional.log_softmax(x64, axis=0).numpy().ravel(),
                               [-64, 0, -60], atol=1e-12)
