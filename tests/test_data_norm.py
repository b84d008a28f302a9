"""fluid.layers.data_norm (Paddle 1.8) and its op: outputs, gradients and the statistics
its grad op reports, and an SGD step on them, against values recorded on Paddle 1.8.5
(specs/ops/norm.md#data_norm)."""
import numpy as np
import pytest

from refimpl import fluid

pytestmark = pytest.mark.paddle("1.8")

X = np.array([[0.5, -1.0, 2.0, 0.0], [0.0, 0.0, 0.7, 1.5], [1.0, 2.0, -0.5, 0.25]],
             np.float32)
W = np.array([[1, 2, 3, 4], [0.5, -1, 2, 1], [-1, 1, 1, -2]], np.float32)
STATS = {"batch_size": 100.0, "batch_sum": 10.0, "batch_square": 200.0}


def _build(slot_dim, scale_and_shift, sgd):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [3, 4], "float32")
        x.stop_gradient = False
        attr = dict(STATS, scale_w=1.5, bias=0.25) if scale_and_shift else dict(STATS)
        y = fluid.layers.data_norm(x, param_attr=attr, slot_dim=slot_dim,
                                   enable_scale_and_shift=scale_and_shift)
        loss = fluid.layers.reduce_sum(y * fluid.layers.assign(W))
        if sgd:
            fluid.optimizer.SGD(0.5).minimize(loss)
            grads = []
        else:
            grads = [g for _, g in fluid.backward.append_backward(loss)]
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    return main, exe, y, grads


def test_data_norm_gradients_and_statistics_as_paddle_185():
    main, exe, y, grads = _build(-1, False, False)
    assert [g.name for g in grads] == ["dn.batch_size@GRAD", "dn.batch_sum@GRAD",
                                       "dn.batch_square_sum@GRAD"]
    out, dx, size, total, square = exe.run(main, feed={"x": X},
                                           fetch_list=[y, "x@GRAD"] + grads)
    # Paddle 1.8.5: means 0.1, scales sqrt(100 / 200)
    np.testing.assert_allclose(out, (X - 0.1) * np.sqrt(0.5), rtol=1e-6)
    np.testing.assert_allclose(dx, W * np.sqrt(0.5), rtol=1e-6)
    np.testing.assert_array_equal(size, [3, 3, 3, 3])
    np.testing.assert_allclose(total, [1.5, 1.0, 2.2, 1.75], rtol=1e-6)
    np.testing.assert_allclose(square, [0.98003, 4.83003, 4.33003, 1.99253], rtol=1e-6)


def test_data_norm_slots_with_scale_and_shift_as_paddle_185():
    main, exe, y, grads = _build(2, True, False)
    assert [g.name for g in grads][:2] == ["dn.scale_w@GRAD", "dn.bias@GRAD"]
    out, dx, scale_w, bias, size, total, square = exe.run(
        main, feed={"x": X}, fetch_list=[y, "x@GRAD"] + grads)
    np.testing.assert_allclose(out.ravel(), [
        0.6742640733718872, -0.9167262315750122, 2.265254259109497, 0.1439339816570282,
        0.0, 0.0, 0.886396050453186, 1.7349241971969604, 1.2045941352844238,
        2.265254259109497, -0.3863961100578308, 0.4090990424156189], rtol=1e-6)
    np.testing.assert_allclose(dx.ravel(), [
        1.0606601238250732, 2.1213202476501465, 3.1819803714752197, 4.242640495300293,
        0.0, 0.0, 2.1213202476501465, 1.0606601238250732, -1.0606601238250732,
        1.0606601238250732, 1.0606601238250732, -2.1213202476501465], rtol=1e-6)
    np.testing.assert_allclose(scale_w, [-0.35355332, -0.2121321, 4.4547725, 0.49497467],
                               rtol=1e-6)
    np.testing.assert_array_equal(bias, [0.0, 3.0, 6.0, 3.0])
    np.testing.assert_array_equal(size, [1, 1, 1, 1])
    np.testing.assert_allclose(total, [0.75, 0.5, 0.73333335, 0.5833333], rtol=1e-6)
    np.testing.assert_allclose(square, [0.48502, 2.41002, 1.4433633, 0.6641966], rtol=1e-6)


def test_data_norm_sgd_step_moves_the_statistics_as_paddle_185():
    main, exe, y, _ = _build(2, True, True)
    exe.run(main, feed={"x": X})
    scope = fluid.global_scope()
    value = {name: np.array(scope.find_var("dn." + name).get_tensor())
             for name in ("batch_size", "batch_sum", "batch_square_sum", "scale_w", "bias")}
    np.testing.assert_array_equal(value["batch_size"], [99.5] * 4)
    np.testing.assert_allclose(value["batch_sum"], [9.625, 9.75, 9.633333, 9.708333],
                               rtol=1e-6)
    np.testing.assert_allclose(value["batch_square_sum"],
                               [199.75749, 198.79498, 199.27832, 199.66791], rtol=1e-6)
    np.testing.assert_allclose(value["scale_w"], [1.6767766, 1.606066, -0.72738624, 1.2525127],
                               rtol=1e-6)
    np.testing.assert_array_equal(value["bias"], [0.25, -1.25, -2.75, -1.25])


def test_data_norm_absent_slot_everywhere_reports_zero_statistics():
    from refimpl.ops.data_norm import DataNorm
    x = np.array([[0.0, -1.0, 2.0, 0.0], [0.0, 0.0, 0.7, 1.5]], np.float32)
    stats = [np.full(4, v, np.float32) for v in (100.0, 10.0, 200.0)]
    _, size, total, square, _, _ = DataNorm.backward(x, *stats, None, None,
                                                     np.ones_like(x), epsilon=1e-5, slot_dim=2)
    np.testing.assert_array_equal(size, [0, 0, 1, 1])          # as Paddle 1.8.5
    np.testing.assert_allclose(total, [0, 0, 1.35, 0.75], rtol=1e-6)
    np.testing.assert_allclose(square, [0, 0, 1.98502, 0.98502], rtol=1e-6)


def test_data_norm_checks_its_arguments():
    with fluid.program_guard(fluid.Program()):
        x = fluid.data("x", [3, 4], "float32")
        with pytest.raises(ValueError, match="data layout"):
            fluid.layers.data_norm(x, data_layout="NDHW")
        with pytest.raises(Exception, match=r"must be \[N, C\]"):
            fluid.layers.data_norm(fluid.data("v", [4], "float32"))
