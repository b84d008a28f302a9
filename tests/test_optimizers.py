"""Optimizers over several steps against hand-written numpy updates; accumulator names;
regularization, clipping and learning-rate schedules."""
import math

import numpy as np
import pytest

import refimpl as paddle
from refimpl import fluid, static
from refimpl.framework.scope import Scope

W0 = np.array([[0.5, -0.3], [0.2, 0.8], [-0.6, 0.1]], "float32")
X = np.array([[1.0, 2.0, -1.0], [0.5, -1.5, 2.0]], "float32")


def _run(opt, steps=3, weight_attr=None):
    """loss = mean(x @ w); returns (w after each step, main program, minimize result)."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 3], "float32")
        attr = weight_attr or paddle.ParamAttr(name="w")
        attr.initializer = paddle.nn.initializer.Assign(W0)
        loss = paddle.mean(static.nn.fc(x, 2, weight_attr=attr, bias_attr=False))
        result = opt.minimize(loss)
    scope = Scope()
    exe = static.Executor()
    exe.run(startup, scope=scope)
    ws = []
    for _ in range(steps):
        exe.run(main, feed={"x": X}, scope=scope)
        ws.append(np.array(scope.find_var("w").get_tensor()))
    return ws, main, result


GRAD = np.repeat(X.mean(0, keepdims=True).T, 2, axis=1) / 2   # d mean(x@w) / dw


def test_sgd_and_minimize_returns_ops_and_params_grads():
    ws, main, (ops, params_grads) = _run(paddle.optimizer.SGD(0.1))
    for k, w in enumerate(ws, 1):
        np.testing.assert_allclose(w, W0 - 0.1 * k * GRAD, rtol=1e-6)
    assert [op.type for op in ops] == ["sgd"]
    assert [(p.name, g.name) for p, g in params_grads] == [("w", "w@GRAD")]


@pytest.mark.parametrize("nesterov", [False, True])
def test_momentum(nesterov):
    ws, main, _ = _run(paddle.optimizer.Momentum(0.1, momentum=0.9, use_nesterov=nesterov))
    w, v = W0.astype(np.float64), np.zeros_like(W0, np.float64)
    for got in ws:
        v = 0.9 * v + GRAD
        w = w - 0.1 * (GRAD + 0.9 * v if nesterov else v)
        np.testing.assert_allclose(got, w, rtol=1e-5)
    assert main.global_block().has_var("w_velocity_0")


def _adam_reference(steps, lr=0.01, b1=0.9, b2=0.999, eps=1e-8, decay=0.0):
    w, m1, m2 = W0.astype(np.float64), 0.0, 0.0
    out = []
    for t in range(1, steps + 1):
        w = w - lr * decay * w
        m1 = b1 * m1 + (1 - b1) * GRAD
        m2 = b2 * m2 + (1 - b2) * GRAD ** 2
        lr_t = lr * math.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        w = w - lr_t * m1 / (np.sqrt(m2) + eps * math.sqrt(1 - b2 ** t))
        out.append(w)
    return out


def test_adam_and_its_accumulators():
    ws, main, _ = _run(paddle.optimizer.Adam(0.01))
    for got, want in zip(ws, _adam_reference(3)):
        np.testing.assert_allclose(got, want, rtol=1e-5)
    names = set(main.global_block().vars)
    assert {"w_moment1_0", "w_moment2_0", "w_beta1_pow_acc_0", "w_beta2_pow_acc_0"} <= names


def test_adamw_decays_before_the_adam_step():
    ws, _, _ = _run(paddle.optimizer.AdamW(0.01, weight_decay=0.1))
    for got, want in zip(ws, _adam_reference(3, decay=0.1)):
        np.testing.assert_allclose(got, want, rtol=1e-5)


def test_rmsprop_and_adagrad():
    ws, _, _ = _run(fluid.optimizer.RMSProp(0.01, rho=0.9, epsilon=1e-6, momentum=0.5))
    w, ms, mom = W0.astype(np.float64), 0.0, 0.0
    for got in ws:
        ms = 0.9 * ms + 0.1 * GRAD ** 2
        mom = 0.5 * mom + 0.01 * GRAD / np.sqrt(ms + 1e-6)
        w = w - mom
        np.testing.assert_allclose(got, w, rtol=1e-5)
    ws, _, _ = _run(fluid.optimizer.Adagrad(0.1, epsilon=1e-6))
    w, acc = W0.astype(np.float64), 0.0
    for got in ws:
        acc = acc + GRAD ** 2
        w = w - 0.1 * GRAD / (np.sqrt(acc) + 1e-6)
        np.testing.assert_allclose(got, w, rtol=1e-5)


def test_lamb_trust_ratio():
    ws, _, _ = _run(fluid.optimizer.Lamb(0.01, lamb_weight_decay=0.01), steps=2)
    w, m1, m2 = W0.astype(np.float64), 0.0, 0.0
    for t, got in enumerate(ws, 1):
        m1 = 0.9 * m1 + 0.1 * GRAD
        m2 = 0.999 * m2 + 0.001 * GRAD ** 2
        update = (m1 / (1 - 0.9 ** t)) / (np.sqrt(m2 / (1 - 0.999 ** t)) + 1e-6) + 0.01 * w
        w = w - 0.01 * np.linalg.norm(w) / np.linalg.norm(update) * update
        np.testing.assert_allclose(got, w, rtol=1e-5)


def test_l2_regularization_param_attr_wins_over_optimizer():
    opt = paddle.optimizer.SGD(0.1, weight_decay=paddle.regularizer.L2Decay(0.5))
    ws, _, _ = _run(opt, steps=1, weight_attr=paddle.ParamAttr(
        name="w", regularizer=paddle.regularizer.L2Decay(0.1)))
    np.testing.assert_allclose(ws[0], W0 - 0.1 * (GRAD + 0.1 * W0), rtol=1e-6)
    ws, _, _ = _run(fluid.optimizer.SGD(0.1, regularization=fluid.regularizer.L1Decay(0.2)),
                    steps=1)
    np.testing.assert_allclose(ws[0], W0 - 0.1 * (GRAD + 0.2 * np.sign(W0)), rtol=1e-6)


def test_gradient_clipping():
    norm = np.sqrt((GRAD ** 2).sum())
    ws, _, _ = _run(paddle.optimizer.SGD(1.0, grad_clip=paddle.nn.ClipGradByGlobalNorm(0.1)),
                    steps=1)
    np.testing.assert_allclose(ws[0], W0 - GRAD * 0.1 / norm, rtol=1e-5)
    ws, _, _ = _run(paddle.optimizer.SGD(1.0, grad_clip=paddle.nn.ClipGradByValue(0.1)),
                    steps=1)
    np.testing.assert_allclose(ws[0], W0 - np.clip(GRAD, -0.1, 0.1), rtol=1e-6)
    ws, _, _ = _run(paddle.optimizer.SGD(1.0, grad_clip=fluid.clip.GradientClipByNorm(10.0)),
                    steps=1)
    np.testing.assert_allclose(ws[0], W0 - GRAD, rtol=1e-6)   # below the limit: unchanged


def test_scheduler_feeds_the_learning_rate_each_run():
    sched = paddle.optimizer.lr.PiecewiseDecay([1], [0.1, 0.01])
    ws, _, _ = _run(paddle.optimizer.SGD(sched), steps=1)
    sched.step()
    # the same program object was run once with 0.1; check the value now offered is 0.01
    assert sched() == pytest.approx(0.01)
    np.testing.assert_allclose(ws[0], W0 - 0.1 * GRAD, rtol=1e-6)


def test_fluid_decay_advances_once_per_run():
    ws, _, _ = _run(fluid.optimizer.SGD(fluid.layers.exponential_decay(0.1, 1, 0.5)), steps=3)
    w = W0.astype(np.float64)
    for k, got in enumerate(ws):
        w = w - 0.1 * 0.5 ** k * GRAD
        np.testing.assert_allclose(got, w, rtol=1e-6)


@pytest.mark.parametrize("sched,expected", [
    (lambda: paddle.optimizer.lr.ExponentialDecay(1.0, 0.5), [1.0, 0.5, 0.25, 0.125]),
    (lambda: paddle.optimizer.lr.StepDecay(1.0, 2, 0.1), [1.0, 1.0, 0.1, 0.1]),
    (lambda: paddle.optimizer.lr.MultiStepDecay(1.0, [1, 3], 0.5), [1.0, 0.5, 0.5, 0.25]),
    (lambda: paddle.optimizer.lr.CosineAnnealingDecay(1.0, 2), [1.0, 0.5, 0.0, 0.5]),
    (lambda: paddle.optimizer.lr.LinearWarmup(1.0, 2, 0.0, 1.0), [0.0, 0.5, 1.0, 1.0]),
    (lambda: paddle.optimizer.lr.InverseTimeDecay(1.0, 1.0), [1.0, 0.5, 1 / 3, 0.25]),
    (lambda: paddle.optimizer.lr.PolynomialDecay(1.0, 2, end_lr=0.0), [1.0, 0.5, 0.0, 0.0]),
    (lambda: paddle.optimizer.lr.NaturalExpDecay(1.0, 1.0),
     [1.0, math.exp(-1), math.exp(-2), math.exp(-3)]),
    (lambda: paddle.optimizer.lr.LambdaDecay(2.0, lambda e: 0.5 ** e), [2.0, 1.0, 0.5, 0.25]),
])
def test_scheduler_values(sched, expected):
    s = sched()
    got = []
    for _ in expected:
        got.append(s())
        s.step()
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)


def test_reduce_on_plateau():
    s = paddle.optimizer.lr.ReduceOnPlateau(1.0, patience=1, factor=0.5)
    for metric in [1.0, 0.9, 0.95, 0.95]:
        s.step(metric)
    assert s() == 0.5


def test_bad_learning_rate_type():
    with pytest.raises(TypeError, match="learning_rate must be"):
        paddle.optimizer.SGD("0.1")
