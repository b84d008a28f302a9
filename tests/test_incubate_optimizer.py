"""paddle.incubate.optimizer.LookAhead and ModelAverage (Paddle 2.0) in both modes, against
values worked out by hand: a loss sum(c * w) has the constant gradient c, so SGD moves
w by -lr * c each step."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl import static

W0 = np.array([1.0, 2.0], np.float32)
C = np.array([0.5, -1.0], np.float32)
LR = 0.1


def _eager_param(value, name):
    return paddle.create_parameter(
        [2], "float32", name=name,
        default_initializer=paddle.nn.initializer.Assign(np.array(value, np.float32)))


def _eager_steps(optimizer_of, n, values=(W0,)):
    """The parameters' values after each of n steps of optimizer_of(params)."""
    params = [_eager_param(v, "p%d" % i) for i, v in enumerate(values)]
    opt = optimizer_of(params)
    seen = []
    for _ in range(n):
        loss = sum(paddle.sum(p * paddle.to_tensor(C)) for p in params)
        loss.backward()
        opt.step()
        opt.clear_grad()
        seen.append([p.numpy().copy() for p in params])
    return params, opt, seen


def _lookahead(params, alpha=0.5, k=2):
    sgd = paddle.optimizer.SGD(LR, parameters=params)
    return paddle.incubate.optimizer.LookAhead(sgd, alpha=alpha, k=k)


# one parameter, alpha 0.5, k 2: the fast weights after each SGD step are W0 - 0.1 t C;
# at step 1 slow = [0.95, 2.1]; at step 2 both become (fast + slow) / 2 = [0.925, 2.15];
# step 3 moves on from there; at step 4 (0.825, 2.35) meets slow (0.925, 2.15)
LOOKAHEAD_ONE = [[0.95, 2.1], [0.925, 2.15], [0.875, 2.25], [0.875, 2.25]]


@pytest.mark.parametrize("version", ["2.0", "3"])
def test_lookahead_one_parameter(paddle_version, dygraph, version):
    with paddle_version(version):
        _, _, seen = _eager_steps(_lookahead, 4)
    np.testing.assert_allclose([s[0] for s in seen], LOOKAHEAD_ONE, rtol=1e-6)


def test_lookahead_counts_parameters_under_2_0_and_steps_under_3(paddle_version, dygraph):
    # two parameters p0, p1 (both W0), k 2, alpha 0.5. Paddle 2.0 counts each parameter's
    # update: p0 sees counts 1, 3, ... (slow taken at 1, never synced at odd counts), p1
    # sees 2, 4, ...: synced every step with a slow weight that starts at 0, so after step
    # 1 p1 = 0.5 * [0.95, 2.1] and slow = p1; after step 2 p1 = (p1 - 0.1 C + slow) / 2
    with paddle_version("2.0"):
        _, _, seen = _eager_steps(_lookahead, 2, values=(W0, W0))
    np.testing.assert_allclose([s[0] for s in seen], [[0.95, 2.1], [0.9, 2.2]], rtol=1e-6)
    first = 0.5 * np.array([0.95, 2.1])
    second = (first - LR * C + first) / 2
    np.testing.assert_allclose([s[1] for s in seen], [first, second], rtol=1e-6)
    with paddle_version("3"):     # one count per step: both parameters as LOOKAHEAD_ONE
        _, _, seen = _eager_steps(_lookahead, 4, values=(W0, W0))
    for i in range(2):
        np.testing.assert_allclose([s[i] for s in seen], LOOKAHEAD_ONE, rtol=1e-6)


def _static_program(make_optimizers):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        w = static.create_parameter(
            [2], "float32", name="w",
            default_initializer=paddle.nn.initializer.Assign(W0))
        loss = paddle.sum(w * paddle.to_tensor(C))
        extra = make_optimizers(loss)
    exe = static.Executor()
    scope = static.Scope()
    exe.run(startup, scope=scope)
    return main, exe, scope, extra


def test_lookahead_static_program():
    paddle.enable_static()
    try:
        def build(loss):
            sgd = paddle.optimizer.SGD(LR)
            paddle.incubate.optimizer.LookAhead(sgd, alpha=0.5, k=2).minimize(loss)
        main, exe, scope, _ = _static_program(build)
        seen = [exe.run(main, fetch_list=["w"], scope=scope)[0] for _ in range(4)]
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(seen, LOOKAHEAD_ONE, rtol=1e-6)


def test_lookahead_argument_checks(dygraph):
    sgd = paddle.optimizer.SGD(LR, parameters=[_eager_param(W0, "q")])
    with pytest.raises(ValueError, match="alpha must be a float in \\[0, 1\\], got 1.5"):
        paddle.incubate.optimizer.LookAhead(sgd, alpha=1.5)
    with pytest.raises(ValueError, match="k must be a positive int, got 0"):
        paddle.incubate.optimizer.LookAhead(sgd, k=0)
    with pytest.raises(ValueError, match="inner_optimizer must not be None"):
        paddle.incubate.optimizer.LookAhead(None)


# a window longer than the run: the average of the values after steps 1..4,
# W0 - 0.1 * 2.5 C
AVERAGE_OF_4 = W0 - LR * 2.5 * C


def test_model_average_dynamic_apply_and_restore(dygraph):
    w = _eager_param(W0, "w")
    sgd = paddle.optimizer.SGD(LR, parameters=[w])
    average = paddle.incubate.optimizer.ModelAverage(
        0.5, parameters=[w], min_average_window=100, max_average_window=100)
    for _ in range(4):
        paddle.sum(w * paddle.to_tensor(C)).backward()
        sgd.step()
        average.step()
        sgd.clear_grad()
    latest = W0 - LR * 4 * C
    assert average._get_accumulator("num_updates", w).numpy().tolist() == [4]
    np.testing.assert_allclose(average._get_accumulator("sum_1", w).numpy(),
                               4 * AVERAGE_OF_4, rtol=1e-6)
    with average.apply():
        np.testing.assert_allclose(w.numpy(), AVERAGE_OF_4, rtol=1e-6)
    np.testing.assert_allclose(w.numpy(), latest, rtol=1e-6)
    with average.apply(need_restore=False):
        pass
    np.testing.assert_allclose(w.numpy(), AVERAGE_OF_4, rtol=1e-6)
    average.restore()
    np.testing.assert_allclose(w.numpy(), latest, rtol=1e-6)


def test_model_average_static_names_window_and_apply():
    paddle.enable_static()
    try:
        def build(loss):
            paddle.optimizer.SGD(LR).minimize(loss)
            return paddle.incubate.optimizer.ModelAverage(0.5, min_average_window=100,
                                                          max_average_window=100)
        main, exe, scope, average = _static_program(build)
        for _ in range(4):
            w, total, count = exe.run(main, fetch_list=["w", "w_sum_1_0",
                                                         "w_num_accumulates_0"], scope=scope)
        np.testing.assert_allclose(total, 4 * AVERAGE_OF_4, rtol=1e-6)
        assert count.tolist() == [4]
        with static.scope_guard(scope):
            with average.apply(exe):
                np.testing.assert_allclose(np.array(scope.find_var("w").get_tensor()),
                                           AVERAGE_OF_4, rtol=1e-6)
            np.testing.assert_allclose(np.array(scope.find_var("w").get_tensor()), w,
                                       rtol=1e-6)
            with pytest.raises(RuntimeError, match="pass the Executor"):
                with average.apply():
                    pass
    finally:
        paddle.disable_static()
