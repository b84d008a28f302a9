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
    paddle.enable_static()
    try:
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
    finally:
        paddle.disable_static()


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
