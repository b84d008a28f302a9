"""fluid.optimizer's ExponentialMovingAverage, ModelAverage (with the average_accumulates
op) and Adadelta, against values recorded on Paddle 1.8.5 (specs/fluid_moving_average.md,
specs/optimizer.md)."""
import numpy as np
import pytest

from refimpl import fluid
from refimpl.ops.average_accumulates import AverageAccumulates

from fluid18_net import BATCH, build, w_value

pytestmark = pytest.mark.paddle("1.8")

# the SGD(0.1) trajectory of w's rows (each row's two entries are equal), Paddle 1.8.5
W_AFTER_3 = [0.2981621, 0.10322365, -0.09171485]


def _train(main, startup, steps, inspect=None):
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        seen = []
        for _ in range(steps):
            exe.run(main, feed={"x": BATCH})
            if inspect:
                seen.append(inspect(exe, scope))
    return exe, scope, seen


def _rows(values):
    return np.asarray(values).reshape(-1, 2)[:, 0]


@pytest.mark.parametrize("thres, applied", [
    (None, [0.3375655, 0.13292097, -0.07172366]),
    ("int", [0.3375655, 0.13292097, -0.07172366]),      # 1.8.5: an int counter: no warm-up
    ("float", [0.31769493, 0.11445523, -0.08878449])])


def test_ema_apply_restore_as_paddle18(thres, applied):
    def make(loss):
        fluid.optimizer.SGD(0.1).minimize(loss)
        steps = None
        if thres:
            steps = fluid.layers.autoincreased_step_counter()
            if thres == "float":
                steps = fluid.layers.cast(steps, "float32")
        ema = fluid.optimizer.ExponentialMovingAverage(0.9, thres_steps=steps)
        ema.update()
        return ema
    main, startup, ema = build(make)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        with ema.apply(exe):
            np.testing.assert_array_equal(w_value(scope), 0)     # t = 0: the zero ema
        for _ in range(3):
            exe.run(main, feed={"x": BATCH})
        np.testing.assert_allclose(_rows(w_value(scope)), W_AFTER_3, rtol=1e-6)
        with ema.apply(exe):
            np.testing.assert_allclose(_rows(w_value(scope)), applied, rtol=1e-6)
        np.testing.assert_allclose(_rows(w_value(scope)), W_AFTER_3, rtol=1e-6)


def test_ema_apply_without_restore_corrects_the_ema_again():
    def make(loss):
        fluid.optimizer.SGD(0.1).minimize(loss)
        ema = fluid.optimizer.ExponentialMovingAverage(0.9)
        ema.update()
        return ema
    main, startup, average = build(make)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        for _ in range(3):
            exe.run(main, feed={"x": BATCH})
        with average.apply(exe):
            pass
        with average.apply(exe, need_restore=False):
            pass
        # Paddle 1.8.5: the bias correction is written back into the ema each apply
        np.testing.assert_allclose(_rows(w_value(scope)), [1.2456288, 0.4904831, -0.26466286],
                                   rtol=1e-6)


def test_ema_and_model_average_refuse_dynamic_mode(dygraph):
    with pytest.raises(Exception, match="dygraph"):
        fluid.optimizer.ExponentialMovingAverage(0.9)
    with pytest.raises(Exception, match="dygraph"):
        fluid.optimizer.ModelAverage(0.5)


def test_model_average_apply_as_paddle18():
    def make(loss):
        fluid.optimizer.SGD(0.1).minimize(loss)
        return fluid.optimizer.ModelAverage(0.5, min_average_window=2, max_average_window=3)
    main, startup, average = build(make)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    trained, applied = [], []
    with fluid.scope_guard(scope):
        exe.run(startup)
        for _ in range(5):
            exe.run(main, feed={"x": BATCH})
            trained.append(_rows(w_value(scope)))
            with average.apply(exe):
                applied.append(_rows(w_value(scope)))
        np.testing.assert_array_equal(_rows(w_value(scope)), trained[-1])   # restored
    expected = [[0.3875, 0.18125, -0.02500004], [0.3619531, 0.15183595, -0.05828127],
                [0.34068942, 0.13563184, -0.0694258], [0.281676, 0.09712516, -0.08742572],
                [0.2664509, 0.09171412, -0.08302269]]       # Paddle 1.8.5
    np.testing.assert_allclose(applied, expected, rtol=1e-6)
    names = sorted(v.name for v in main.list_vars() if v.persistable and "_num_" in v.name
                   or v.name.startswith("w_sum"))
    assert names == ["w_num_accumulates_0", "w_num_updates_0", "w_old_num_accumulates_0",
                     "w_sum_1_0", "w_sum_2_0", "w_sum_3_0"]


def _accumulate(params, rate, low, high):
    """average_accumulates' reference run once per param; [(sum_1, sum_3, old, acc)]."""
    sums = [np.zeros(1) for _ in range(3)]
    counts = [np.zeros(1, np.int64) for _ in range(3)]
    seen = []
    for p in params:
        AverageAccumulates.forward(np.array([p], float), *sums, *counts, average_window=rate,
                                   min_average_window=low, max_average_window=high)
        seen.append((sums[0][0], sums[2][0], counts[1][0], counts[0][0]))
    return seen


def test_average_accumulates_windows_as_paddle18():
    # param 1..10, rate 0.5, windows 2..3: measured on Paddle 1.8.5
    seen = _accumulate(range(1, 11), 0.5, 2, 3)
    assert seen[1] == (0, 3, 2, 0) and seen[3] == (0, 7, 2, 0)
    assert seen[5] == (11, 7, 2, 2) and seen[6] == (0, 18, 3, 0) and seen[9] == (0, 27, 3, 0)
    # int(num_updates * rate) truncates: rate 0.7, min 1 closes the window at update 2
    seen = _accumulate(range(1, 5), 0.7, 1, 100)
    assert [s[1] for s in seen] == [1, 2, 2, 7]


def test_average_accumulates_moves_sum_1_every_16384_updates():
    sums = [np.array([5.0]), np.array([1.0]), np.zeros(1)]
    counts = [np.array([16383], np.int64), np.zeros(1, np.int64),
              np.array([16383], np.int64)]
    AverageAccumulates.forward(np.array([2.0]), *sums, *counts, average_window=0.5,
                               min_average_window=100000, max_average_window=100000)
    assert (sums[0][0], sums[1][0], counts[2][0]) == (0, 8.0, 16384)


def test_adadelta_accumulators_and_update():
    main, startup, _ = build(lambda loss: fluid.optimizer.Adadelta(
        learning_rate=0.5, epsilon=1e-6, rho=0.9).minimize(loss))
    names = sorted(v.name for v in main.list_vars() if v.persistable)
    assert names == ["learning_rate_0", "w", "w__avg_squared_grad_0",
                     "w__avg_squared_update_0"]      # as Paddle 1.8.5
    _, scope, _ = _train(main, startup, 1)
    # the textbook update (Paddle's op reference): |u| = sqrt(eps / ((1 - rho) g^2)) |g|,
    # whatever the learning rate (specs/optimizer.md: 1.8.5's program kernel differs)
    grad = np.array([1.125, 3.1875, 5.25])
    step = np.sqrt(1e-6 / (0.1 * grad ** 2 + 1e-6)) * grad
    np.testing.assert_allclose(_rows(w_value(scope)), 0.5 - step, rtol=1e-5)
    assert fluid.optimizer.AdadeltaOptimizer is fluid.optimizer.Adadelta
    with pytest.raises(ValueError, match="rho is not set"):
        fluid.optimizer.Adadelta(0.1, rho=None)


def test_paddle_optimizer_adadelta_takes_parameters_and_weight_decay():
    # Paddle 2.0's paddle.optimizer.Adadelta(learning_rate, epsilon, rho, parameters,
    # weight_decay, ...): one eager step of the textbook update on the L2-decayed gradient
    import refimpl as paddle
    with fluid.dygraph.guard():
        w = paddle.create_parameter([2], "float32",
                                    default_initializer=paddle.nn.initializer.Constant(1.0))
        opt = paddle.optimizer.Adadelta(learning_rate=0.5, epsilon=1e-6, rho=0.9,
                                        parameters=[w], weight_decay=0.1)
        (w * paddle.to_tensor([2.0, 4.0])).sum().backward()
        opt.step()
        grad = np.array([2.0, 4.0]) + 0.1 * 1.0
        step = np.sqrt(1e-6 / (0.1 * grad ** 2 + 1e-6)) * grad
        np.testing.assert_allclose(w.numpy(), 1.0 - step, rtol=1e-5)
    assert issubclass(fluid.optimizer.Adadelta, paddle.optimizer.Adadelta)   # 2.0: takes a Variable lr too
    with pytest.raises(ValueError, match="learning_rate is not set"):
        paddle.optimizer.Adadelta(None)
