"""Under the 1.8 profile an attention block trained eagerly and as a static program gives
bit-identical losses and parameters, as Paddle 1.8.5's test_imperative_transformer_sorted_
gradient asserts: dropout draws the same masks from the program's random_seed in both
modes, and a tensor read by several ops (q, k and v of one input; residuals) sums its
gradients in the same order."""
import numpy as np
import pytest

import refimpl as paddle
import refimpl.nn as nn
from refimpl import fluid, static
from refimpl.framework import mode
from refimpl.framework.program import Program, program_guard
from helpers import train_layer_statically

pytestmark = pytest.mark.paddle("1.8")
SEED, WIDTH = 90, 16


class Attention(nn.Layer):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(WIDTH)
        self.q, self.k, self.v = (nn.Linear(WIDTH, WIDTH) for _ in range(3))
        self.out = nn.Linear(WIDTH, 5)

    def forward(self, x):
        h = self.norm(x)
        # v made first: the graph reaches h's three consumers in another order than the
        # reverse of the order they were made in, which static backward sums by
        value = self.v(h)
        scores = fluid.layers.matmul(self.q(h), self.k(h), transpose_y=True, alpha=0.25)
        weights = fluid.layers.dropout(fluid.layers.softmax(scores), 0.2)
        h = x + fluid.layers.dropout(fluid.layers.matmul(weights, value), 0.2)
        return self.out(h)


def _loss(net, x, y):
    return fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(net(x), y))


def _train_static(init, x, y, steps):
    main, startup = Program(), Program()
    main.random_seed = startup.random_seed = SEED
    with program_guard(main, startup):
        net = Attention()
        loss = _loss(net, static.data("x", list(x.shape), "float32"),
                     static.data("y", list(y.shape), "int64"))
        fluid.optimizer.SGD(0.5).minimize(loss)
    return train_layer_statically(main, startup, net, loss, init, x, y, steps)


def _train_eager(init, x, y, steps):
    mode.disable_static()
    try:
        fluid.default_main_program().random_seed = SEED
        net = Attention()
        net.set_state_dict(init)
        sgd = fluid.optimizer.SGD(0.5, parameter_list=net.parameters())
        losses = []
        for _ in range(steps):
            loss = _loss(net, paddle.to_tensor(x), paddle.to_tensor(y))
            loss.backward()
            sgd.minimize(loss)
            net.clear_gradients()
            losses.append(loss.numpy())
        return losses, {k: v.numpy() for k, v in net.state_dict().items()}
    finally:
        mode.enable_static()


def test_attention_with_dropout_trains_bit_for_bit_as_its_static_program():
    rng = np.random.RandomState(3)
    with program_guard(Program(), Program()):
        shapes = {k: v.shape for k, v in Attention().state_dict().items()}
    init = {k: rng.uniform(-0.5, 0.5, s).astype("float32") for k, s in shapes.items()}
    x = rng.randn(4, 6, WIDTH).astype("float32")
    y = rng.randint(0, 5, (4, 6, 1)).astype("int64")
    static_losses, static_params = _train_static(init, x, y, 3)
    eager_losses, eager_params = _train_eager(init, x, y, 3)
    np.testing.assert_array_equal(np.ravel(eager_losses), np.ravel(static_losses))
    assert len(set(np.ravel(static_losses).tolist())) == 3     # it trains
    for name, value in static_params.items():
        np.testing.assert_array_equal(eager_params[name], value, err_msg=name)
