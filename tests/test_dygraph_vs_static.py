"""Property: a model trained N steps eagerly and the same model trained as a static program
give the same losses and parameters (float64 to 1e-10, float32 to 1e-5): random MLPs, CNNs
and RNNs with batch norm, dropout with a fixed seed and residual adds, under SGD, Momentum
(with weight decay) and Adam (with global-norm clipping)."""
import numpy as np
from hypothesis import given, settings, strategies as st

import refimpl as paddle
import refimpl.nn as nn
from refimpl import fluid, static, versions
from refimpl.framework import mode
from refimpl.framework.program import Program, program_guard
from helpers import train_layer_statically

CLASSES = 3


class Net(nn.Layer):
    def __init__(self, kind, width, batch_norm, dropout, residual, cell):
        super().__init__()
        self.kind, self.dropout, self.residual = kind, dropout, residual
        if kind == "mlp":
            self.body = nn.Linear(6, width)
            self.norm = nn.BatchNorm1D(width) if batch_norm else None
        elif kind == "cnn":
            self.body = nn.Conv2D(2, width, 3, padding=1)
            self.norm = nn.BatchNorm2D(width) if batch_norm else None
            self.pool = nn.MaxPool2D(2, 2)
            self.flat = nn.Flatten()
        else:
            self.body = {"lstm": nn.LSTM, "gru": nn.GRU, "simple": nn.SimpleRNN}[cell](
                4, width)
            self.norm = None
        features = width * 4 if kind == "cnn" else width
        self.mix = nn.Linear(features, features) if residual else None
        self.head = nn.Linear(features, CLASSES)

    def forward(self, x):
        if self.kind == "rnn":
            h = _last_step(self.body(x)[0])
        else:
            h = self.body(x)
            if self.norm is not None:
                h = self.norm(h)
            h = paddle.nn.functional.relu(h)
            if self.kind == "cnn":
                h = self.flat(self.pool(h))
        if self.dropout:
            h = fluid.layers.dropout(h, 0.3, seed=7,
                                     dropout_implementation="upscale_in_train")
        if self.mix is not None:
            h = h + paddle.tanh(self.mix(h))
        return self.head(h)


def _last_step(outputs):
    steps = outputs.shape[1]
    return paddle.squeeze(paddle.slice(outputs, [1], [steps - 1], [steps]), [1])


def _input_shape(kind):
    return {"mlp": (8, 6), "cnn": (4, 2, 4, 4), "rnn": (4, 3, 4)}[kind]


def _optimizer(name, params):
    if name == "sgd":
        return paddle.optimizer.SGD(0.1, parameters=params)
    if name == "momentum":
        return paddle.optimizer.Momentum(0.05, 0.9, parameters=params, weight_decay=0.01)
    return paddle.optimizer.Adam(0.01, parameters=params,
                                 grad_clip=nn.ClipGradByGlobalNorm(0.5))


def _loss(logits, label):
    return paddle.mean(paddle.nn.functional.softmax_with_cross_entropy(logits, label))


def _make(config, dtype):
    old = paddle.get_default_dtype()
    paddle.set_default_dtype(dtype)
    try:
        return Net(*config)
    finally:
        paddle.set_default_dtype(old)


def train_static(config, optimizer, dtype, init, x, y, steps):
    main, startup = Program(), Program()
    with program_guard(main, startup):
        net = _make(config, dtype)
        xv = static.data("x", list(x.shape), dtype)
        yv = static.data("y", list(y.shape), "int64")
        loss = _loss(net(xv), yv)
        _optimizer(optimizer, None).minimize(loss)
    return train_layer_statically(main, startup, net, loss, init, x, y, steps)


def train_eager(config, optimizer, dtype, init, x, y, steps):
    mode.disable_static()
    old = paddle.get_default_dtype()
    # a float64 model trains eagerly under the float64 default dtype, as in Paddle 2.0:
    # the eager learning rate takes the default dtype (the static one the loss's)
    paddle.set_default_dtype(dtype)
    try:
        net = _make(config, dtype)
        net.set_state_dict(init)
        opt = _optimizer(optimizer, net.parameters())
        xt, yt = paddle.to_tensor(x), paddle.to_tensor(y)
        losses = []
        for _ in range(steps):
            loss = _loss(net(xt), yt)
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses.append(loss.numpy())
        return losses, {k: v.numpy() for k, v in net.state_dict().items()}
    finally:
        paddle.set_default_dtype(old)
        mode.enable_static()


def _init(config, dtype, rng):
    """Random values for every parameter and buffer (the same in both modes)."""
    main, startup = Program(), Program()
    with program_guard(main, startup):
        net = _make(config, dtype)
    init = {}
    for k, v in net.state_dict().items():
        value = rng.uniform(-0.5, 0.5, v.shape)
        if k.endswith("_variance"):
            value = np.abs(value) + 0.5
        init[k] = value.astype(dtype)
    return init


@settings(max_examples=25, deadline=None)
@given(kind=st.sampled_from(["mlp", "cnn", "rnn"]), width=st.integers(2, 5),
       batch_norm=st.booleans(), dropout=st.booleans(), residual=st.booleans(),
       cell=st.sampled_from(["lstm", "gru", "simple"]),
       optimizer=st.sampled_from(["sgd", "momentum", "adam"]),
       dtype=st.sampled_from(["float64", "float32"]), seed=st.integers(0, 1000))
def test_eager_training_equals_the_static_program(kind, width, batch_norm, dropout, residual,
                                                  cell, optimizer, dtype, seed):
    config = (kind, width, batch_norm, dropout, residual, cell)
    rng = np.random.RandomState(seed)
    init = _init(config, dtype, rng)
    x = rng.randn(*_input_shape(kind)).astype(dtype)
    y = rng.randint(0, CLASSES, (x.shape[0], 1)).astype("int64")
    s_losses, s_params = train_static(config, optimizer, dtype, init, x, y, steps=4)
    e_losses, e_params = train_eager(config, optimizer, dtype, init, x, y, steps=4)
    tol = dict(rtol=1e-10, atol=1e-10) if dtype == "float64" else dict(rtol=1e-5, atol=1e-5)
    if dtype == "float64" and optimizer == "adam" and \
            versions.switch("eager_float_attrs") == "api":
        # Paddle 3's eager Adam takes beta1 / beta2 / epsilon as doubles, its static
        # program as 32-bit FLOAT attrs (specs/ops/README.md): 3.3.1's two modes differ so
        # (four steps of a 4-channel conv net, seed 1: losses 2.6e-6 apart)
        tol = dict(rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.ravel(e_losses), np.ravel(s_losses), **tol)
    assert sorted(e_params) == sorted(s_params)
    for k in s_params:
        np.testing.assert_allclose(e_params[k], s_params[k], err_msg=k, **tol)
    moved = [k for k in s_params if not np.allclose(s_params[k], init[k])]
    assert moved                                  # training changed the parameters
