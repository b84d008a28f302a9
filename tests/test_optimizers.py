"""Optimizers over several steps of a small fc program against hand-written numpy updates;
accumulator names and values; minimize's return; regularization; both API spellings.
(Learning-rate schedules and gradient clipping: tests/test_lr_clip.py.)"""
import math

import numpy as np
import pytest

import refimpl as paddle
from refimpl import fluid, static, versions
from refimpl.framework.scope import Scope

W0 = np.array([[0.5, -0.3], [0.2, 0.8], [-0.6, 0.1]], "float32")
B0 = np.array([0.1, -0.2], "float32")
X = np.array([[1.0, 2.0, -1.0], [0.5, -1.5, 2.0]], "float32")

# loss = mean(x @ w + b) over the 2x2 output: the gradients do not depend on w or b
GRAD_W = np.repeat(X.mean(0, keepdims=True).T, 2, axis=1) / 2
GRAD_B = np.full(2, 0.5)


def run_fc(make_optimizer, steps=3, weight_attr=None, bias=False):
    """Build the fc program, minimize with make_optimizer() (called inside the program
    guard, so decays and schedulers land in this program) and run `steps` times.
    Returns ({param name: [value after each step]}, main program, minimize result, scope)."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 3], "float32")
        w_attr = weight_attr or paddle.ParamAttr(name="w")
        w_attr.initializer = paddle.nn.initializer.Assign(W0)
        b_attr = paddle.ParamAttr(name="b", initializer=paddle.nn.initializer.Assign(B0)) \
            if bias else False
        loss = paddle.mean(static.nn.fc(x, 2, weight_attr=w_attr, bias_attr=b_attr))
        result = make_optimizer().minimize(loss)
    scope = Scope()
    exe = static.Executor()
    exe.run(startup, scope=scope)
    names = ["w", "b"] if bias else ["w"]
    history = {n: [] for n in names}
    for _ in range(steps):
        exe.run(main, feed={"x": X}, scope=scope)
        for n in names:
            history[n].append(np.array(scope.find_var(n).get_tensor()))
    return history, main, result, scope


def assert_steps(got, want, rtol=1e-5):
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-7, err_msg="step %d" % (k + 1))


def reference(update, p0, grad, steps=3):
    """Iterate update(p, grad, state, t) -> p from p0 (float64); the values after each step."""
    p, state, out = p0.astype(np.float64), {}, []
    for t in range(1, steps + 1):
        p = update(p, grad, state, t)
        out.append(p)
    return out


def sgd_update(lr):
    return lambda p, g, s, t: p - lr * g


def momentum_update(lr, mu, nesterov=False):
    def update(p, g, s, t):
        s["v"] = mu * s.get("v", 0.0) + g
        return p - lr * (g + mu * s["v"] if nesterov else s["v"])
    return update


def adam_update(lr, b1=0.9, b2=0.999, eps=1e-8, decay=0.0):
    def update(p, g, s, t):
        p = p - lr * decay * p
        s["m1"] = b1 * s.get("m1", 0.0) + (1 - b1) * g
        s["m2"] = b2 * s.get("m2", 0.0) + (1 - b2) * g * g
        lr_t = lr * math.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        # epsilon scaled by sqrt(1 - beta2^t) from 2.0 on (switch adam_epsilon)
        scaled = math.sqrt(1 - b2 ** t) if versions.switch("adam_epsilon") == "scaled" else 1
        return p - lr_t * s["m1"] / (np.sqrt(s["m2"]) + eps * scaled)
    return update


def adamax_update(lr, b1=0.9, b2=0.999, eps=1e-8):
    def update(p, g, s, t):
        s["m"] = b1 * s.get("m", 0.0) + (1 - b1) * g
        s["u"] = np.maximum(b2 * s.get("u", 0.0) + eps, np.abs(g))
        return p - lr / (1 - b1 ** t) * s["m"] / s["u"]
    return update


def rmsprop_update(lr, rho, eps, momentum, centered):
    def update(p, g, s, t):
        s["ms"] = rho * s.get("ms", 0.0) + (1 - rho) * g * g
        s["mg"] = rho * s.get("mg", 0.0) + (1 - rho) * g
        denom = s["ms"] - s["mg"] ** 2 if centered else s["ms"]
        s["mom"] = momentum * s.get("mom", 0.0) + lr * g / np.sqrt(denom + eps)
        return p - s["mom"]
    return update


def adagrad_update(lr, eps, initial=0.0):
    def update(p, g, s, t):
        s["acc"] = s.get("acc", initial) + g * g
        return p - lr * g / (np.sqrt(s["acc"]) + eps)
    return update


def lamb_update(lr, wd, b1=0.9, b2=0.999, eps=1e-6):
    def update(p, g, s, t):
        s["m1"] = b1 * s.get("m1", 0.0) + (1 - b1) * g
        s["m2"] = b2 * s.get("m2", 0.0) + (1 - b2) * g * g
        # bias-corrected moments from 2.0 on (switch lamb_bias_correction)
        corrected = versions.switch("lamb_bias_correction")
        c1, c2 = (1 - b1 ** t, 1 - b2 ** t) if corrected else (1, 1)
        r = (s["m1"] / c1) / (np.sqrt(s["m2"] / c2) + eps) + wd * p
        return p - lr * np.linalg.norm(p) / np.linalg.norm(r) * r
    return update


def lars_update(lr, mu, coeff, wd):
    def update(p, g, s, t):
        local = lr * coeff * np.linalg.norm(p) / (np.linalg.norm(g) + wd * np.linalg.norm(p))
        s["v"] = mu * s.get("v", 0.0) + local * (g + wd * p)
        return p - s["v"]
    return update


def decayed_adagrad_update(lr, decay, eps):
    def update(p, g, s, t):
        s["m"] = decay * s.get("m", 0.0) + (1 - decay) * g * g
        return p - lr * g / (np.sqrt(s["m"]) + eps)
    return update


def ftrl_update(lr, l1, l2):
    def update(p, g, s, t):
        old = s.get("sq", np.zeros_like(p))
        s["sq"] = old + g * g
        s["lin"] = s.get("lin", 0.0) + g - (np.sqrt(s["sq"]) - np.sqrt(old)) / lr * p
        shrunk = (l1 * np.sign(s["lin"]) - s["lin"]) / (np.sqrt(s["sq"]) / lr + 2 * l2)
        return np.where(np.abs(s["lin"]) > l1, shrunk, 0.0)
    return update


def dpsgd_update(lr, clip):
    def update(p, g, s, t):
        return p - lr * g / max(1.0, np.linalg.norm(g) / clip)
    return update


def lookahead_sgd_update(lr, alpha, k):
    def update(p, g, s, t):
        p = p - lr * g
        if t == 1:
            s["slow"] = p
        if t % k == 0:
            p = s["slow"] = alpha * p + (1 - alpha) * s["slow"]
        return p
    return update


CASES = {
    "sgd": (lambda: paddle.optimizer.SGD(0.1), sgd_update(0.1)),
    "momentum": (lambda: paddle.optimizer.Momentum(0.1, momentum=0.9),
                 momentum_update(0.1, 0.9)),
    "nesterov": (lambda: paddle.optimizer.Momentum(0.1, 0.8, use_nesterov=True),
                 momentum_update(0.1, 0.8, nesterov=True)),
    "adam": (lambda: paddle.optimizer.Adam(0.01, beta1=0.8, beta2=0.99, epsilon=1e-6),
             adam_update(0.01, 0.8, 0.99, 1e-6)),
    "adamw": (lambda: paddle.optimizer.AdamW(0.01, weight_decay=0.1),
              adam_update(0.01, decay=0.1)),
    "adamax": (lambda: paddle.optimizer.Adamax(0.01, beta1=0.8, beta2=0.9, epsilon=1e-4),
               adamax_update(0.01, 0.8, 0.9, 1e-4)),
    "rmsprop": (lambda: paddle.optimizer.RMSProp(0.01, rho=0.9, epsilon=1e-6, momentum=0.5),
                rmsprop_update(0.01, 0.9, 1e-6, 0.5, False)),
    "rmsprop_centered": (lambda: paddle.optimizer.RMSProp(0.01, 0.8, 1e-4, 0.3, centered=True),
                         rmsprop_update(0.01, 0.8, 1e-4, 0.3, True)),
    "adagrad": (lambda: paddle.optimizer.Adagrad(0.1, epsilon=1e-6,
                                                 initial_accumulator_value=0.2),
                adagrad_update(0.1, 1e-6, 0.2)),
    "lamb": (lambda: paddle.optimizer.Lamb(0.01, lamb_weight_decay=0.02),
             lamb_update(0.01, 0.02)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_update_matches_numpy_over_steps(name):
    make, update = CASES[name]
    history, _, _, _ = run_fc(make, steps=3, bias=True)
    assert_steps(history["w"], reference(update, W0, GRAD_W))
    assert_steps(history["b"], reference(update, B0, GRAD_B))


FLUID_CASES = {
    "SGDOptimizer": (lambda: fluid.optimizer.SGDOptimizer(learning_rate=0.1),
                     sgd_update(0.1)),
    "MomentumOptimizer": (lambda: fluid.optimizer.MomentumOptimizer(0.1, 0.9, None, True),
                          momentum_update(0.1, 0.9, nesterov=True)),
    "AdamOptimizer": (lambda: fluid.optimizer.AdamOptimizer(0.01, 0.9, 0.999, 1e-8),
                      adam_update(0.01)),
    "AdamaxOptimizer": (lambda: fluid.optimizer.AdamaxOptimizer(0.01), adamax_update(0.01)),
    "RMSPropOptimizer": (lambda: fluid.optimizer.RMSPropOptimizer(0.01, 0.95, 1e-6, 0.0),
                         rmsprop_update(0.01, 0.95, 1e-6, 0.0, False)),
    "AdagradOptimizer": (lambda: fluid.optimizer.AdagradOptimizer(0.1, 1e-6),
                         adagrad_update(0.1, 1e-6)),
    "LambOptimizer": (lambda: fluid.optimizer.LambOptimizer(0.01, 0.01),
                      lamb_update(0.01, 0.01)),
    "LarsMomentumOptimizer": (lambda: fluid.optimizer.LarsMomentumOptimizer(0.1, 0.9, 0.5, 0.1),
                              lars_update(0.1, 0.9, 0.5, 0.1)),
    "DecayedAdagradOptimizer": (lambda: fluid.optimizer.DecayedAdagradOptimizer(0.1, 0.8, 1e-6),
                                decayed_adagrad_update(0.1, 0.8, 1e-6)),
    "FtrlOptimizer": (lambda: fluid.optimizer.FtrlOptimizer(0.1, l1=0.01, l2=0.2),
                      ftrl_update(0.1, 0.01, 0.2)),
    "DpsgdOptimizer": (lambda: fluid.optimizer.DpsgdOptimizer(0.1, clip=0.3, batch_size=4.0,
                                                              sigma=0.0),
                       dpsgd_update(0.1, 0.3)),
}


def test_lookahead_blends_slow_and_fast_weights_every_k_steps():
    make = lambda: fluid.optimizer.LookaheadOptimizer(fluid.optimizer.SGD(0.1), alpha=0.25, k=2)
    history, _, (ops, _), _ = run_fc(make, steps=5)
    assert [op.type for op in ops] == ["sgd"]     # the inner minimize's result, as Paddle
    assert_steps(history["w"], reference(lookahead_sgd_update(0.1, 0.25, 2), W0, GRAD_W, 5))


@pytest.mark.parametrize("avg", [True, False])
def test_gradient_merge_updates_every_k_steps_from_the_summed_gradients(avg):
    """Paddle 2.0's GradientMergeOptimizer, k_steps=3: runs 1 and 2 only add the gradient
    into w@GRAD@GradientMerge, run 3 updates w from the sum (avg: divided by 3) and zeroes
    it; the constant gradient makes each update 0.1 * GRAD_W (avg) or 0.3 * GRAD_W."""
    make = lambda: fluid.optimizer.GradientMergeOptimizer(  # noqa: E731
        fluid.optimizer.SGD(0.1), k_steps=3, avg=avg)
    history, main, (ops, params_grads), scope = run_fc(make, steps=7)
    step = (0.1 if avg else 0.3) * GRAD_W
    assert_steps(history["w"], [W0, W0, W0 - step, W0 - step, W0 - step, W0 - 2 * step,
                                W0 - 2 * step])
    np.testing.assert_allclose(np.array(scope.find_var("w@GRAD@GradientMerge").get_tensor()),
                               GRAD_W, rtol=1e-6)
    assert [op.type for op in ops] == ["sgd"] and ops[0].block.idx == 1
    assert [op.type for op in main.block(1).ops] == \
        (["scale"] if avg else []) + ["sgd", "fill_constant"]
    assert [(p.name, g.name) for p, g in params_grads] == [("w", "w@GRAD")]


def test_gradient_merge_is_static_only():
    with fluid.dygraph.guard():
        with pytest.raises(Exception, match="In dygraph, we don't support GradientMerge"):
            fluid.optimizer.GradientMergeOptimizer(fluid.optimizer.SGD(0.1), k_steps=2)
    with pytest.raises(AssertionError, match="k_steps should be a positive integer"):
        fluid.optimizer.GradientMergeOptimizer(fluid.optimizer.SGD(0.1), k_steps=0)


@pytest.mark.parametrize("name", sorted(FLUID_CASES))
def test_fluid_spellings(name):
    make, update = FLUID_CASES[name]
    history, _, _, _ = run_fc(make, steps=2)
    assert_steps(history["w"], reference(update, W0, GRAD_W, steps=2))


@pytest.mark.paddle("2.0")    # trust ratio always (switch lamb_trust_ratio)
def test_fluid_lamb_takes_regularization_before_grad_clip():
    # positional 1.8 order: (..., epsilon, parameter_list, regularization, grad_clip)
    make = lambda: fluid.optimizer.Lamb(0.01, 0.0, 0.9, 0.999, 1e-6, None,  # noqa: E731
                                        fluid.regularizer.L2Decay(0.5))
    history, _, _, _ = run_fc(make, steps=1)
    m1, m2 = 0.1 * (GRAD_W + 0.5 * W0), 0.001 * (GRAD_W + 0.5 * W0) ** 2
    r = (m1 / 0.1) / (np.sqrt(m2 / 0.001) + 1e-6)
    assert_steps(history["w"], [W0 - 0.01 * np.linalg.norm(W0) / np.linalg.norm(r) * r])


def test_minimize_returns_update_ops_and_params_grads():
    _, main, (ops, params_grads), _ = run_fc(lambda: paddle.optimizer.Momentum(0.1), bias=True)
    assert [op.type for op in ops] == ["momentum", "momentum"]
    assert [(p.name, g.name) for p, g in params_grads] == [("w", "w@GRAD"), ("b", "b@GRAD")]
    assert all(op.attr("op_role") & 2 for op in ops)               # OpRole.Optimize
    # updates are appended in parameter-name order, as Paddle sorts params_grads
    assert [op.attr("op_role_var")[0] for op in ops] == ["b", "w"]
    # the update writes the parameter and its velocity in place
    op = ops[1]
    assert op.input("Param") == op.output("ParamOut") == ["w"]
    assert op.input("Velocity") == op.output("VelocityOut") == ["w_velocity_0"]


def test_adam_accumulators_are_named_and_advanced_like_paddle():
    _, main, _, scope = run_fc(lambda: paddle.optimizer.Adam(0.01, beta1=0.8, beta2=0.9),
                               steps=3)
    block = main.global_block()
    for name in ("w_moment1_0", "w_moment2_0", "w_beta1_pow_acc_0", "w_beta2_pow_acc_0"):
        assert block.var(name).persistable
    assert list(block.var("w_beta1_pow_acc_0").shape) == [1]
    value = lambda n: np.array(scope.find_var(n).get_tensor())  # noqa: E731
    np.testing.assert_allclose(value("w_beta1_pow_acc_0"), [0.8 ** 4], rtol=1e-6)
    np.testing.assert_allclose(value("w_beta2_pow_acc_0"), [0.9 ** 4], rtol=1e-6)
    m1 = sum(0.2 * 0.8 ** k for k in range(3)) * GRAD_W
    np.testing.assert_allclose(value("w_moment1_0"), m1, rtol=1e-5)


@pytest.mark.parametrize("make,names", [
    (lambda: paddle.optimizer.Momentum(0.1), ["w_velocity_0"]),
    (lambda: paddle.optimizer.RMSProp(0.1), ["w_momentum_0", "w_mean_square_0",
                                            "w_mean_grad_0"]),
    (lambda: paddle.optimizer.Adagrad(0.1), ["w_moment_0"]),
    (lambda: paddle.optimizer.Adamax(0.1), ["w_moment_0", "w_inf_norm_0", "w_beta1_pow_acc_0"]),
    (lambda: paddle.optimizer.Lamb(0.1), ["w_moment1_0", "w_moment2_0", "w_beta1_pow_acc_0",
                                          "w_beta2_pow_acc_0"]),
])
def test_accumulator_names(make, names):
    _, main, _, _ = run_fc(make, steps=1)
    assert set(names) <= set(main.global_block().vars)


def test_adamw_apply_decay_param_fun_skips_the_decay():
    make = lambda: paddle.optimizer.AdamW(0.01, weight_decay=0.1,  # noqa: E731
                                          apply_decay_param_fun=lambda name: name != "b")
    history, _, _, _ = run_fc(make, steps=2, bias=True)
    assert_steps(history["w"], reference(adam_update(0.01, decay=0.1), W0, GRAD_W, 2))
    assert_steps(history["b"], reference(adam_update(0.01), B0, GRAD_B, 2))


@pytest.mark.paddle("2.0")    # trust ratio always (switch lamb_trust_ratio)
def test_lamb_exclude_from_weight_decay():
    make = lambda: paddle.optimizer.Lamb(0.01, 0.05,  # noqa: E731
                                         exclude_from_weight_decay_fn=lambda p: p.name == "b")
    history, _, _, _ = run_fc(make, steps=2, bias=True)
    assert_steps(history["w"], reference(lamb_update(0.01, 0.05), W0, GRAD_W, 2))
    assert_steps(history["b"], reference(lamb_update(0.01, 0.0), B0, GRAD_B, 2))


def test_param_attr_learning_rate_scales_the_step():
    attr = paddle.ParamAttr(name="w", learning_rate=0.5)
    history, _, _, _ = run_fc(lambda: paddle.optimizer.SGD(0.1), steps=2, weight_attr=attr)
    assert_steps(history["w"], reference(sgd_update(0.05), W0, GRAD_W, 2))


@pytest.mark.parametrize("make,coeff", [
    (lambda: paddle.optimizer.SGD(0.1, weight_decay=0.3), 0.3),            # float = L2Decay
    (lambda: paddle.optimizer.SGD(0.1, weight_decay=paddle.regularizer.L2Decay(0.2)), 0.2),
    (lambda: fluid.optimizer.SGD(0.1, regularization=fluid.regularizer.L2Decay(0.4)), 0.4),
    (lambda: fluid.optimizer.SGD(0.1, regularization=fluid.regularizer.
                                 L2DecayRegularizer(regularization_coeff=0.1)), 0.1),
])
def test_l2_decay_adds_coeff_times_param(make, coeff):
    history, _, _, _ = run_fc(make, steps=3)
    update = lambda p, g, s, t: p - 0.1 * (g + coeff * p)  # noqa: E731
    assert_steps(history["w"], reference(update, W0, GRAD_W))


def test_l1_decay_adds_coeff_times_sign():
    make = lambda: paddle.optimizer.Momentum(  # noqa: E731
        0.1, 0.9, weight_decay=paddle.regularizer.L1Decay(0.2))
    history, _, _, _ = run_fc(make, steps=3)
    mom = momentum_update(0.1, 0.9)
    update = lambda p, g, s, t: mom(p, g + 0.2 * np.sign(p), s, t)  # noqa: E731
    assert_steps(history["w"], reference(update, W0, GRAD_W))


def test_param_attr_regularizer_wins_over_the_optimizers():
    attr = paddle.ParamAttr(name="w", regularizer=paddle.regularizer.L1Decay(0.1))
    make = lambda: paddle.optimizer.SGD(0.1, weight_decay=paddle.regularizer.L2Decay(0.5))  # noqa
    history, _, _, _ = run_fc(make, steps=1, weight_attr=attr, bias=True)
    assert_steps(history["w"], [W0 - 0.1 * (GRAD_W + 0.1 * np.sign(W0))])
    assert_steps(history["b"], [B0 - 0.1 * (GRAD_B + 0.5 * B0)])     # the optimizer's


def test_regularizer_namespaces():
    assert paddle.regularizer.L2Decay is fluid.regularizer.L2Decay
    assert fluid.regularizer.L1DecayRegularizer is fluid.regularizer.L1Decay
    assert paddle.regularizer.L2Decay(coeff=0.25).coeff == 0.25


def test_set_lr_changes_the_next_runs_step():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 3], "float32")
        attr = paddle.ParamAttr(name="w", initializer=paddle.nn.initializer.Assign(W0))
        loss = paddle.mean(static.nn.fc(x, 2, weight_attr=attr, bias_attr=False))
        opt = paddle.optimizer.SGD(0.1)
        opt.minimize(loss)
    scope, exe = Scope(), static.Executor()
    exe.run(startup, scope=scope)
    exe.run(main, feed={"x": X}, scope=scope)
    with static.scope_guard(scope):
        opt.set_lr(0.01)
    assert opt.get_lr() == pytest.approx(0.01)
    exe.run(main, feed={"x": X}, scope=scope)
    w = np.array(scope.find_var("w").get_tensor())
    np.testing.assert_allclose(w, W0 - 0.11 * GRAD_W, rtol=1e-5)


def test_errors_name_the_problem():
    with pytest.raises(TypeError, match="learning_rate must be"):
        paddle.optimizer.SGD("0.1")
    with pytest.raises(TypeError, match="loss must be a Variable"):
        paddle.optimizer.SGD(0.1).minimize(np.zeros(1))


def _adam_with_beta_variables(steps):
    x = fluid.data("x", [2, 3], "float32")
    y = fluid.layers.fc(x, 1, bias_attr=False, param_attr=fluid.ParamAttr(
        name="w", initializer=fluid.initializer.Constant(0.5)))
    loss = fluid.layers.mean(y * y)
    b1 = fluid.layers.create_global_var([1], 0.5, "float32", persistable=True, name="b1")
    b2 = fluid.layers.create_global_var([1], 0.75, "float32", persistable=True, name="b2")
    fluid.optimizer.Adam(learning_rate=0.1, beta1=b1, beta2=b2).minimize(loss)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    xs = np.array([[1, 2, 3], [-1, 0.5, 2]], "float32")
    for _ in range(steps):
        exe.run(feed={"x": xs})
    scope = fluid.global_scope()
    value = lambda n: np.array(scope.find_var(n).get_tensor()).ravel()
    powers = sorted(n for n in fluid.default_main_program().global_block().vars if "pow" in n)
    adam, = [op for op in fluid.default_main_program().global_block().ops if op.type == "adam"]
    return value("w"), [value(n)[0] for n in powers], adam, xs


@pytest.mark.paddle("1.8")
def test_adam_beta_variables_match_paddle_1_8():
    """Adam(beta1=Variable 0.5, beta2=Variable 0.75), 3 steps: Paddle 1.8.5 gives w = 0.27238839864730835
    (each element) and beta powers 0.1125 = 0.9 * 0.5^3, 0.42145312 = 0.999 * 0.75^3: the
    powers start at the default betas, the updates use the Variables' values."""
    w, powers, adam, _ = _adam_with_beta_variables(3)
    assert adam.input("Beta1Tensor") == ["b1"] and adam.input("Beta2Tensor") == ["b2"]
    np.testing.assert_array_equal(w, np.float32([0.27238839864730835] * 3))
    np.testing.assert_array_equal(powers, np.float32([0.11249999701976776, 0.4214531183242798]))


def test_adam_beta_variables_against_numpy():
    """Profile 2.0 (the compiled kernel, epsilon scaled by sqrt(1 - beta2^t))."""
    w, _, _, xs = _adam_with_beta_variables(2)
    want, m1, m2, p1, p2 = np.full(3, 0.5), 0.0, 0.0, 0.9, 0.999
    for _ in range(2):
        grad = 2 * (xs @ want) @ xs / 2                 # d mean((x w)^2) / dw
        m1, m2 = 0.5 * m1 + 0.5 * grad, 0.75 * m2 + 0.25 * grad ** 2
        corr = np.sqrt(1 - p2)
        want = want - 0.1 * corr / (1 - p1) * m1 / (np.sqrt(m2) + 1e-8 * corr)
        p1, p2 = p1 * 0.5, p2 * 0.75
    np.testing.assert_allclose(w, want, rtol=1e-5)


def test_lamb_refuses_beta_variable():
    b1 = fluid.layers.create_global_var([1], 0.5, "float32", persistable=True)
    with pytest.raises(TypeError, match="Lamb: beta1 must be a float"):
        fluid.optimizer.Lamb(beta1=b1)


def test_dpsgd_seed_attribute_fixes_its_noise():
    def make():
        opt = fluid.optimizer.DpsgdOptimizer(0.1, clip=0.3, batch_size=4.0, sigma=1.0)
        opt._seed = 100                # as Paddle's own tests set it
        return opt
    first, main, _, _ = run_fc(make, steps=1)
    again, _, _, _ = run_fc(make, steps=1)
    assert [op.attr("seed") for op in main.global_block().ops if op.type == "dpsgd"] == [100]
    np.testing.assert_array_equal(first["w"][0], again["w"][0])
    noise = np.random.default_rng(100).normal(0.0, 1.0)
    clipped = dpsgd_update(0.1, 0.3)(W0, GRAD_W, None, 1)
    np.testing.assert_allclose(first["w"][0], clipped - 0.1 * noise / 4.0, rtol=1e-5)


def test_dgc_momentum_and_pipeline_refuse_as_paddles_cpu_build():
    with pytest.raises(AssertionError, match="Paddle is not compiled with CUDA. DGC is only "
                                             "support GPU for now."):
        fluid.optimizer.DGCMomentumOptimizer(0.1, momentum=0.9, rampup_begin_step=0)
    with pytest.raises(NotImplementedError, match="without pipeline stages; minimize with SGD"):
        fluid.optimizer.PipelineOptimizer(fluid.optimizer.SGD(0.1))
    paddle.disable_static()
    with pytest.raises(Exception, match="^In dygraph, don't support DGCMomentumOptimizer.$"):
        fluid.optimizer.DGCMomentumOptimizer(0.1, momentum=0.9, rampup_begin_step=0)
    with pytest.raises(Exception, match="^In dygraph, don't support PipelineOptimizer.$"):
        fluid.optimizer.PipelineOptimizer(paddle.optimizer.SGD(0.1))
def test_contrib_momentum_folds_l2_decay_into_the_op():
    """fluid.contrib.optimizer.Momentum (2.0): L2Decay becomes the momentum op's
    regularization attrs, no regularization op; one step from w = 2, grad 1 (mean of a
    [1, 1] linear), coeff 0.1, lr 0.01: v = 1 + 0.1 * 2 = 1.2, w = 2 - 0.012."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = fluid.data("x", [1, 1], "float32")
        y = fluid.layers.fc(x, 1, param_attr=fluid.ParamAttr(
            name="w", initializer=fluid.initializer.Constant(2.0)), bias_attr=False)
        opt = fluid.contrib.optimizer.Momentum(
            learning_rate=0.01, momentum=0.9,
            regularization=fluid.regularizer.L2Decay(regularization_coeff=0.1))
        opt.minimize(fluid.layers.mean(y))
    ops = [op.type for op in main.global_block().ops]
    momentum = [op for op in main.global_block().ops if op.type == "momentum"][0]
    assert "scale" not in ops[ops.index("mean_grad"):] and ops.count("momentum") == 1
    assert momentum.attr("regularization_method") == "l2_decay"
    assert momentum.attr("regularization_coeff") == pytest.approx(0.1)
    scope = Scope()
    exe = static.Executor()
    exe.run(startup, scope=scope)
    exe.run(main, feed={"x": np.ones((1, 1), "float32")}, scope=scope)
    np.testing.assert_allclose(np.array(scope.find_var("w").get_tensor()), [[1.988]],
                               rtol=1e-6)
    with pytest.raises(ValueError, match="learning_rate is not set"):
        paddle.optimizer.Momentum(learning_rate=None)
    for sgd in (paddle.optimizer.SGD, fluid.optimizer.SGDOptimizer):   # 2.0's test_sgd_op
        with pytest.raises(ValueError, match=r"SGD(Optimizer)?: learning_rate is not set") as caught:
            sgd(learning_rate=None)
        assert isinstance(caught.value, AssertionError)        # 1.8.5's (measured)
    with pytest.raises(ValueError, match="rho is not set"):
        paddle.optimizer.RMSProp(learning_rate=0.1, rho=None)


def test_adamax_reads_one_value_tensor_betas(dygraph):
    """Paddle 2.0's Adamax example passes betas as [1] Tensors; their values are the betas."""
    linear = paddle.nn.Linear(2, 1, bias_attr=False)
    w0 = np.array([[1.0], [2.0]], "float32")
    linear.weight.set_value(w0)
    opt = paddle.optimizer.Adamax(0.1, beta1=paddle.to_tensor([0.8]),
                                  beta2=paddle.to_tensor([0.9]), parameters=linear.parameters())
    x = paddle.to_tensor([[3.0, -4.0]])
    got = []
    for _ in range(2):
        paddle.mean(linear(x)).backward()
        opt.step()
        opt.clear_grad()
        got.append(linear.weight.numpy())
    update, state, want = adamax_update(0.1, 0.8, 0.9), {}, [w0]
    for t in (1, 2):
        want.append(update(want[-1], np.array([[3.0], [-4.0]]), state, t))
    assert_steps(got, want[1:])


def test_proximal_gd_soft_thresholds_and_shrinks():
    """p - lr g = [0.5, -1.5, -0.4]; minus lr l1 = 0.1 in magnitude; over 1 + lr l2 = 1.5:
    Paddle 1.8.5's values (measured)."""
    scope = Scope()
    for name, value in (("p", [1.0, -1.0, 0.1]), ("g", [1.0, 1.0, 1.0]), ("lr", [0.5])):
        scope.var(name).get_tensor().set(np.array(value, "float32"), paddle.CPUPlace())
    fluid.op.Operator("proximal_gd", Param="p", Grad="g", LearningRate="lr", ParamOut="p",
                      l1=0.2, l2=1.0).run(scope, paddle.CPUPlace())
    np.testing.assert_allclose(np.array(scope.find_var("p").get_tensor()),
                               [0.4 / 1.5, -1.4 / 1.5, -0.3 / 1.5], rtol=1e-6)


def test_paddle_optimizers_take_a_float_or_a_scheduler_from_20(paddle_version):
    """Paddle 2.0's (and 3.3.1's, measured) paddle.optimizer refuses another learning rate
    (its test_adam_op: a Tensor; an int too); fluid.optimizer's take a Variable, and under
    1.8, where paddle.optimizer holds fluid's optimizers, both do."""
    from refimpl import fluid
    import refimpl as paddle
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        lr_var = fluid.layers.create_global_var([1], 0.1, "float32", persistable=True)
        for bad in (lr_var, 1):
            with paddle_version("2.0"), pytest.raises(
                    TypeError, match="learning rate should be float or LRScheduler"):
                paddle.optimizer.Adam(bad)
        assert fluid.optimizer.Adam(lr_var)._learning_rate is lr_var
        assert isinstance(fluid.optimizer.AdamOptimizer(lr_var), paddle.optimizer.Adam)
        paddle.optimizer.SGD(paddle.optimizer.lr.StepDecay(0.1, 1))
        paddle.optimizer.Momentum(np.float64(0.1))          # a float subclass
        with paddle_version("1.8"):
            assert paddle.optimizer.Adam(lr_var)._learning_rate is lr_var


def test_get_opti_var_name_list_names_the_accumulators_as_made():
    # Paddle 1.8 / 2.0's Optimizer.get_opti_var_name_list (2.0's test_adam_op reads it)
    import refimpl as paddle
    from refimpl import fluid
    with fluid.program_guard(fluid.Program(), fluid.Program()), fluid.unique_name.guard():
        x = fluid.data("x", [None, 3], "float32")
        loss = paddle.mean(fluid.layers.fc(x, 2, param_attr="w", bias_attr=False))
        sgd, momentum = paddle.optimizer.SGD(0.1), paddle.optimizer.Momentum(0.1, 0.9)
        sgd.minimize(loss)
        momentum.minimize(loss)
    assert sgd.get_opti_var_name_list() == []
    assert momentum.get_opti_var_name_list() == ["w_velocity_0"]


@pytest.mark.paddle("3")
def test_float64_momentum_steps_as_paddle():
    """The learning rate is made in the default dtype (release/2.0's optimizer.py) and mu is
    a 32-bit FLOAT attribute: two float64 Momentum steps of w^2 from w = 1 at lr 0.01 give
    Paddle 3.3.1's 0.9424000004768371 (recorded), where float64 throughout gives 0.9424.
    (Under 1.8 and 2.0 the learning rate itself is float32(0.01): switch init_str_value.)"""
    paddle.disable_static()
    paddle.set_default_dtype("float64")
    try:
        lin = paddle.nn.Linear(1, 1, weight_attr=paddle.nn.initializer.Constant(1.0),
                               bias_attr=False)
        opt = paddle.optimizer.Momentum(0.01, 0.9, parameters=lin.parameters())
        x = paddle.to_tensor(np.array([[1.0]]))
        for _ in range(2):
            loss = (lin(x) ** 2).mean()
            loss.backward()
            opt.step()
            opt.clear_grad()
        assert float(lin.weight.numpy()[0, 0]) == 0.9424000004768371
        assert opt._global_learning_rate()._array().dtype == np.float64
    finally:
        paddle.set_default_dtype("float32")


def test_static_learning_rate_takes_the_loss_dtype():
    """Paddle's minimize makes the learning-rate variable in the loss's dtype; without a
    minimize, fluid.optimizer's is float32 and paddle.optimizer's the default dtype."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [None, 2], "float64")
        loss = fluid.layers.mean(fluid.layers.fc(x, 1))
        opt = paddle.optimizer.SGD(0.1)
        opt.minimize(loss)
    lr = opt._global_learning_rate(main)
    assert lr.dtype == paddle.float64
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        assert np.array(scope.find_var(lr.name).get_tensor()).dtype == np.float64
        exe.run(main, feed={"x": np.ones((3, 2))}, fetch_list=[loss])
    assert fluid.optimizer.SGD(0.1)._lr_dtype() == "float32"


@pytest.mark.parametrize("use_nesterov", [False, True])
def test_momentum_without_regularization_adds_no_zero_decay(use_nesterov):
    # Paddle 1.8.5 and 3.3.1 (measured: a static momentum op, float64, lr 1, mu 0.5):
    # v mu + g and p - lr v with no decay term, so negative zeros stay (0 added would make
    # them 0.0)
    from refimpl.dispatch import select_kernel
    from refimpl.ops.optimizer_ops import Momentum
    attrs = dict(Momentum.attrs, mu=0.5, use_nesterov=use_nesterov)
    for fn in (Momentum.forward, select_kernel("momentum", "forward", attrs, "float64").fn):
        param, velocity = fn(np.array([-0.0, 0.0]), np.array([-0.0, -0.0]),
                             np.array([-0.0, -0.0]), np.array([1.0]), **attrs)
        assert np.signbit(param).tolist() == [False, False]
        assert np.signbit(velocity).tolist() == [True, True]
