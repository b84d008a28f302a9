"""Optimizer APIs after 2.0 that Paddle 3's unittest files use, checked on Paddle 3.3.1:
Optimizer.set_lr_scheduler and append_regularization_ops, and the Paddle 3 homes of
DGCMomentumOptimizer, LarsMomentumOptimizer and PipelineOptimizer."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl import fluid


def test_set_lr_scheduler_replaces_the_rate():
    paddle.disable_static()
    linear = paddle.nn.Linear(2, 2)
    adam = paddle.optimizer.Adam(0.1, parameters=linear.parameters())
    adam.set_lr_scheduler(paddle.optimizer.lr.StepDecay(learning_rate=0.2, step_size=5,
                                                        gamma=0.6))
    assert adam.get_lr() == pytest.approx(0.2)
    scheduler = paddle.optimizer.lr.MultiStepDecay(learning_rate=0.5, milestones=[1], gamma=0.8)
    adam.set_lr_scheduler(scheduler)
    scheduler.step()
    assert adam.get_lr() == pytest.approx(0.4)
    with pytest.raises(TypeError, match="must be LRScheduler"):
        adam.set_lr_scheduler(0.3)


def test_append_regularization_ops_adds_the_parameters_decay():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        block = main.global_block()
        w = block.create_parameter(name="w", shape=[2], dtype="float32",
                                   regularizer=paddle.regularizer.L1Decay(0.5))
        g = block.create_var(name="w@GRAD", shape=[2], dtype="float32")
        out = paddle.optimizer.Adam().append_regularization_ops([(w, g)])
    assert [op.type for op in block.ops] == ["sign", "scale", "sum"]
    scope = paddle.static.global_scope()
    scope.var("w").get_tensor().set(np.array([2., -3.], np.float32), paddle.CPUPlace())
    scope.var("w@GRAD").get_tensor().set(np.array([1., 1.], np.float32), paddle.CPUPlace())
    got, = paddle.static.Executor(paddle.CPUPlace()).run(main, fetch_list=[out[0][1]])
    np.testing.assert_allclose(got, [1.5, 0.5])      # g + 0.5 * sign(w)


def test_paddle_3_homes_of_fluid_optimizers():
    from refimpl.distributed.fleet.meta_optimizers import DGCMomentumOptimizer
    assert DGCMomentumOptimizer is fluid.optimizer.DGCMomentumOptimizer
    assert paddle.incubate.optimizer.PipelineOptimizer is fluid.optimizer.PipelineOptimizer
    paddle.disable_static()
    linear = paddle.nn.Linear(2, 2)
    with pytest.raises(Exception, match="In dygraph, don't support DGCMomentumOptimizer."):
        DGCMomentumOptimizer(learning_rate=0.1, momentum=0.9, rampup_begin_step=0)
    lars = paddle.incubate.optimizer.LarsMomentumOptimizer(
        learning_rate=0.1, momentum=0.9, parameter_list=linear.parameters())
    assert isinstance(lars, paddle.optimizer.Optimizer) and lars.type == "lars_momentum"


def _momentum_startup(optimizer):
    """The startup ops of a [2, 3] parameter's update: (type, value, output name)."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        w = main.global_block().create_parameter(dtype="float32", shape=[2, 3], name="w")
        loss = paddle.mean(w * 2.0)
        params_grads = paddle.static.append_backward(loss)
        optimizer.apply_gradients(params_grads)
    return [(op.type, op.attr("value"), op.output_arg_names[0])
            for op in startup.global_block().ops]


@pytest.mark.paddle("3")
def test_learning_rate_is_initialized_before_the_accumulators_under_3():
    # 3.3.1 (FLAGS_enable_pir_api=0): [('fill_constant', 0.01, learning_rate_0),
    # ('fill_constant', 0.0, w_velocity_0)], appended in that order
    ops = _momentum_startup(paddle.optimizer.Momentum(0.01, momentum=0.2))
    assert [(t, n.split("_")[0]) for t, _, n in ops] == [("fill_constant", "learning"),
                                                         ("fill_constant", "w")]
    assert ops[0][1] == pytest.approx(0.01) and ops[1][1] == 0.0


@pytest.mark.paddle("2.0")
def test_learning_rate_is_initialized_first_under_2_0_too():
    ops = _momentum_startup(paddle.optimizer.Momentum(0.01, momentum=0.2))
    assert ops[0][2].startswith("learning_rate") and ops[1][2].startswith("w_velocity")


@pytest.mark.paddle("3")
def test_optimizer_dtype_comes_from_the_parameters_under_3():
    paddle.disable_static()
    w = paddle.create_parameter([2], "float64")
    adam = paddle.optimizer.Adam(0.5, parameters=[w])
    assert adam._dtype == paddle.float64
    (w * w).sum().backward()
    adam.step()
    assert adam._global_learning_rate().dtype == paddle.float64
    half = paddle.optimizer.SGD(0.5, parameters=[paddle.create_parameter([2], "float16")])
    assert half._dtype == paddle.float16 and half._lr_dtype() == "float32"


@pytest.mark.paddle("2.0")
def test_optimizer_dtype_is_the_minimized_losss_under_2_0():
    paddle.disable_static()
    adam = paddle.optimizer.Adam(0.5, parameters=[paddle.create_parameter([2], "float64")])
    assert adam._dtype is None


def test_incubate_gradient_merge_is_the_optimizers():
    from refimpl.optimizer.gradient_merge import GradientMergeOptimizer
    assert paddle.incubate.optimizer.GradientMergeOptimizer is GradientMergeOptimizer
