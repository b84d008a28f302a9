"""fluid.contrib.extend_with_decoupled_weight_decay (Paddle 1.8), against values recorded on
Paddle 1.8.5 (specs/fluid_contrib.md)."""
import numpy as np
import pytest

from refimpl import fluid

pytestmark = pytest.mark.paddle("1.8")


@pytest.mark.parametrize("base, loss_185, w_185, b_185", [
    (fluid.optimizer.SGD, 1.2309565544128418,
     [0.3204687237739563, 0.16718748211860657, 0.013906225562095642], 0.09984375536441803),
    (fluid.optimizer.Adam, 3.6999993324279785, [0.3105939030647278] * 3, 0.15059387683868408),
])
def test_decay_then_base_update_as_paddle_185(base, loss_185, w_185, b_185):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [2, 3], "float32")
        y = fluid.layers.fc(x, 2, param_attr=fluid.ParamAttr(
            name="w", initializer=fluid.initializer.Constant(0.5)), bias_attr=fluid.ParamAttr(
            name="b", initializer=fluid.initializer.Constant(0.25)))
        loss = fluid.layers.mean(y * y)
        optimizer_class = fluid.contrib.extend_with_decoupled_weight_decay(base)
        optimizer = optimizer_class(weight_decay=0.1, apply_decay_param_fun=lambda n: n == "w",
                                    learning_rate=0.05)
        optimizer.minimize(loss)
    assert optimizer_class.__name__ == "OptimizerWithDecoupledWeightDecay"
    assert str(optimizer) == "Weight Decay, params: w"
    types = [op.type for op in main.global_block().ops]
    assert types[-5:-2] == ["scale", "elementwise_sub", "assign"]      # before the updates
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    feed = {"x": np.array([[1, 2, 3], [-1, 0.5, 2]], np.float32)}
    for _ in range(2):
        value, = exe.run(main, feed=feed, fetch_list=[loss])
    scope = fluid.global_scope()
    np.testing.assert_allclose(value, [loss_185], rtol=1e-5)
    np.testing.assert_allclose(np.array(scope.find_var("w").get_tensor()),
                               np.repeat(w_185, 2).reshape(3, 2), rtol=1e-5)
    np.testing.assert_allclose(np.array(scope.find_var("b").get_tensor()), [b_185] * 2,
                               rtol=1e-5)


def test_arguments_are_checked_as_paddle_185():
    with pytest.raises(TypeError, match="derived class of Optimizer"):
        fluid.contrib.extend_with_decoupled_weight_decay(int)
    with pytest.raises(TypeError, match="float or Variable"):
        fluid.contrib.extend_with_decoupled_weight_decay(fluid.optimizer.SGD)(
            weight_decay=1, learning_rate=0.1)
