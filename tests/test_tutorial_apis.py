"""Names and behaviours the Paddle 2.0 tutorials (specs/tutorials.md) use, each asserted on
real values."""
import numpy as np

import refimpl as paddle


def test_nn_loss_is_the_loss_layer_module(dygraph):
    # the AutoEncoder tutorial writes paddle.nn.loss.MSELoss()
    assert paddle.nn.loss.MSELoss is paddle.nn.MSELoss
    loss = paddle.nn.loss.MSELoss()(paddle.to_tensor(np.array([1.0, 3.0], np.float32)),
                                    paddle.to_tensor(np.array([0.0, 0.0], np.float32)))
    np.testing.assert_allclose(loss.numpy(), 5.0)
