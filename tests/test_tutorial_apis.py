"""Names and behaviours the Paddle 2.0 tutorials (specs/tutorials.md) use, each asserted on
real values."""
import numpy as np
import pytest

import refimpl as paddle


def test_nn_loss_is_the_loss_layer_module(dygraph):
    # the AutoEncoder tutorial writes paddle.nn.loss.MSELoss()
    assert paddle.nn.loss.MSELoss is paddle.nn.MSELoss
    loss = paddle.nn.loss.MSELoss()(paddle.to_tensor(np.array([1.0, 3.0], np.float32)),
                                    paddle.to_tensor(np.array([0.0, 0.0], np.float32)))
    np.testing.assert_allclose(loss.numpy(), 5.0)


def test_nll_loss_takes_a_column_of_labels(dygraph):
    # PointNet's Dataset yields [1] labels, batched to [N, 1] for X [N, C]; Paddle 3.3.1:
    # mean 0.47570542, 'none' [N], gradient -1/N at each label
    probs = np.array([[0.2, 0.5, 0.3], [0.1, 0.1, 0.8], [0.6, 0.3, 0.1]], np.float32)
    x = paddle.to_tensor(np.log(probs), stop_gradient=False)
    column = paddle.to_tensor(np.array([[1], [2], [0]], np.int64))
    F = paddle.nn.functional
    loss = F.nll_loss(x, column)
    np.testing.assert_allclose(loss.numpy(), -np.log([0.5, 0.8, 0.6]).mean(), rtol=1e-6)
    np.testing.assert_allclose(F.nll_loss(x, column, reduction="none").numpy(),
                               -np.log([0.5, 0.8, 0.6]), rtol=1e-6)
    loss.backward()
    np.testing.assert_allclose(np.asarray(x.grad), -np.eye(3)[[1, 2, 0]] / 3, rtol=1e-6)
    with pytest.raises(Exception, match=r"Label .*\[1, 3\]"):
        F.nll_loss(x, paddle.to_tensor(np.array([[1, 2, 0]], np.int64)))


def test_ctc_loss_reads_column_lengths_and_the_first_batch_of_them(dygraph):
    # the OCR tutorial passes paddle.full([BATCH_SIZE, 1], ...) lengths, also for a smaller
    # last batch; Paddle 3.3.1 on these logits: [2.9465423 5.4430294 2.7191486] every way
    rng = np.random.RandomState(0)
    logits = paddle.to_tensor(rng.uniform(-2, 2, (5, 3, 4)).astype(np.float32))
    labels = paddle.to_tensor(np.array([[1, 2], [3, 3], [2, 1]], np.int32))
    want = [2.9465423, 5.4430294, 2.7191486]
    for shape in ([3], [3, 1], [6, 1]):
        loss = paddle.nn.functional.ctc_loss(logits, labels, paddle.full(shape, 5, "int64"),
                                             paddle.full(shape, 2, "int64"), reduction="none")
        np.testing.assert_allclose(loss.numpy(), want, rtol=1e-6)
    with pytest.raises(Exception, match="LogitsLength \\(2\\)"):
        paddle.nn.functional.ctc_loss(logits, labels, paddle.full([2, 1], 5, "int64"),
                                      paddle.full([2, 1], 2, "int64"))
