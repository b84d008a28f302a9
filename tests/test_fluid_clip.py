"""fluid.clip's set_gradient_clip and ErrorClipByValue (Paddle 1.8) against values and op
lists recorded on Paddle 1.8.5 (specs/fluid_clip.md). The net: h = fc(x, 4, w1 = 0.5s),
y = fc(h, 1, w2 = 2s), loss = sum(y), SGD(0.1), one step."""
import numpy as np
import pytest

from refimpl import fluid

pytestmark = pytest.mark.paddle("1.8")

BATCH = np.array([[1., 2., 3.], [-1., 0.5, 2.]], np.float32)


def _step(configure):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.data(name="x", shape=[None, 3], dtype="float32")
        h = fluid.layers.fc(x, size=4, bias_attr=False, param_attr=fluid.ParamAttr(
            "w1", initializer=fluid.initializer.Constant(0.5)))
        y = fluid.layers.fc(h, size=1, bias_attr=False, param_attr=fluid.ParamAttr(
            "w2", initializer=fluid.initializer.Constant(2.0)))
        loss = fluid.layers.reduce_sum(y)
        configure(h)
        fluid.optimizer.SGD(0.1).minimize(loss)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        exe.run(main, feed={"x": BATCH})
    rows = np.array(scope.find_var("w1").get_tensor())[:, 0]
    w2 = np.array(scope.find_var("w2").get_tensor())[0, 0]
    return rows, w2, [op.type for op in main.global_block().ops]


def test_error_clip_clips_the_gradient_where_backward_computes_it():
    def configure(h):
        h.error_clip = fluid.clip.ErrorClipByValue(max=0.5, min=-0.25)
    rows, w2, ops = _step(configure)
    np.testing.assert_allclose(rows, [0.5, 0.375, 0.25])        # Paddle 1.8.5
    # Variable._set_error_clip (2.0's fluid/tests/test_error_clip) sets the same
    set_rows, set_w2, set_ops = _step(
        lambda h: h._set_error_clip(fluid.clip.ErrorClipByValue(max=0.5, min=-0.25)))
    np.testing.assert_allclose(set_rows, [0.5, 0.375, 0.25])
    assert set_w2 == pytest.approx(1.625) and set_ops == ops
    assert w2 == pytest.approx(1.625)
    assert ops == ["mul", "mul", "reduce_sum", "fill_constant", "reduce_sum_grad", "mul_grad",
                   "clip", "mul_grad", "sgd", "sgd"]
    assert str(fluid.clip.ErrorClipByValue(1.0)) == "ByValue, min=-1.000000, max=1.000000"
    with pytest.raises(ValueError, match="min"):
        fluid.clip.ErrorClipByValue(max=-1.0, min=0.0)


def test_set_gradient_clip_needs_a_clip_on_every_parameter():
    # Paddle 1.8.5: w2 without a clip turns w1's off too
    rows, w2, ops = _step(lambda h: fluid.clip.set_gradient_clip(
        fluid.clip.GradientClipByValue(max=0.3, min=-0.1), param_list=["w1"]))
    np.testing.assert_allclose(rows, [0.5, 0.0, -0.5])
    assert "clip" not in ops


def test_set_gradient_clip_the_last_parameters_clip_clips_all():
    def configure(h):
        fluid.clip.set_gradient_clip(fluid.clip.GradientClipByValue(max=0.3, min=-0.1),
                                     param_list=["w1"])
        fluid.clip.set_gradient_clip(fluid.clip.GradientClipByNorm(1.0), param_list=["w2"])
    rows, w2, ops = _step(configure)
    # Paddle 1.8.5: w2's ByNorm clips w1's gradient too
    np.testing.assert_allclose(rows, [0.5, 0.4776393, 0.4552786], rtol=1e-6)
    assert w2 == pytest.approx(1.95)
    assert ops.count("clip_by_norm") == 2


def test_set_gradient_clip_global_norm_over_all_parameters():
    rows, w2, _ = _step(lambda h: fluid.clip.set_gradient_clip(
        fluid.clip.GradientClipByGlobalNorm(clip_norm=1.0)))
    np.testing.assert_allclose(rows, [0.5, 0.4788001, 0.4576001], rtol=1e-6)   # 1.8.5
    assert w2 == pytest.approx(1.9841, rel=1e-5)


def test_set_gradient_clip_checks_its_arguments_and_yields_to_grad_clip():
    with pytest.raises(TypeError, match="GradientClipBy"):
        fluid.clip.set_gradient_clip(0.5)

    def configure(h):
        fluid.clip.set_gradient_clip(fluid.clip.GradientClipByGlobalNorm(clip_norm=1.0))
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data(name="x", shape=[None, 3], dtype="float32")
        loss = fluid.layers.reduce_sum(fluid.layers.fc(x, size=1))
        configure(None)
        fluid.optimizer.SGD(0.1, grad_clip=fluid.clip.GradientClipByValue(1.0)).minimize(loss)
    types = [op.type for op in main.global_block().ops]
    assert "clip" in types and "squared_l2_norm" not in types


def test_append_gradient_clip_ops_applies_the_parameters_clips():
    """fluid.clip.append_gradient_clip_ops: minimize's clip step on its own (1.8.5's rule:
    all or nothing, then the last parameter's clip for all)."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.data(name="x", shape=[None, 3], dtype="float32")
        y = fluid.layers.fc(x, size=1, bias_attr=False, param_attr=fluid.ParamAttr(
            "w", initializer=fluid.initializer.Constant(2.0)))
        params_grads = fluid.backward.append_backward(fluid.layers.reduce_sum(y))
        assert fluid.clip.append_gradient_clip_ops(params_grads) == params_grads   # no clip
        fluid.clip.set_gradient_clip(fluid.clip.GradientClipByValue(max=1.5, min=-0.5))
        (param, clipped), = fluid.clip.append_gradient_clip_ops(params_grads)
    assert param.name == "w" and clipped.name != params_grads[0][1].name
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        got, = exe.run(main, feed={"x": BATCH}, fetch_list=[clipped])
    np.testing.assert_allclose(got[:, 0], np.clip(BATCH.sum(0), -0.5, 1.5))


def test_optimizer_grad_clip_must_be_a_clip():
    with pytest.raises(TypeError, match="grad_clip"):
        fluid.optimizer.SGD(learning_rate=0.1, grad_clip="test")
    with pytest.raises(TypeError, match="need_clip"):
        fluid.clip.GradientClipByGlobalNorm(clip_norm=1.0, need_clip="test")


def test_dygraph_minimize_returns_the_gradients_before_clipping():
    # Paddle 1.8.5 (and 2.0): minimize returns backward's pairs; the clip makes new ones
    with fluid.dygraph.guard():
        linear = fluid.dygraph.Linear(5, 5)
        x = np.linspace(-10, 10, 80).reshape(16, 5).astype("float32")
        loss = fluid.layers.reduce_mean(linear(fluid.dygraph.to_variable(x)))
        loss.backward()
        sgd = fluid.optimizer.SGD(learning_rate=0.0, parameter_list=linear.parameters(),
                                  grad_clip=fluid.clip.GradientClipByGlobalNorm(0.1))
        _, params_grads = sgd.minimize(loss)
        grads = {p.name: g.numpy() for p, g in params_grads}
    np.testing.assert_allclose(grads[linear.bias.name], np.full(5, 0.2), rtol=1e-6)
    np.testing.assert_allclose(grads[linear.weight.name],
                               np.repeat(x.mean(0)[:, None] / 5, 5, axis=1), atol=1e-6)
