"""BuildStrategy / ExecutionStrategy options are checked when set (issue #13): a wrong type
or range raises at once, naming the option, the value and what is allowed. Before, every
value below trained exactly like the default (or failed ten frames deep). Every value the
seeds (000, 002) document keeps working.

Paddle 1.8.5 (CPU, measured): rejects reduce_strategy 'foo' / 7 / 1 and
gradient_scale_strategy 'bar' / 2 (TypeError: only the enum members), memory_optimize 'yes'
/ 1 ("must be set to None, False or True"), debug_graphviz_path 123, enable_inplace 'yes',
num_threads -1 / 2.5 / '4', num_iteration_per_run -1 (TypeError); it accepts trainer_id 5 and
num_trainers 0 / -2 when set, num_iteration_per_run 0 and num_iteration_per_drop_scope 0, and
converts num_threads True to 1 and enable_inplace 2 to True. refimpl refuses those too."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl import fluid, static
from refimpl.framework.scope import Scope

Build, Execution = static.BuildStrategy, static.ExecutionStrategy
BOOL_OPTIONS = ["enable_sequential_execution", "fuse_broadcast_ops", "fuse_elewise_add_act_ops",
                "fuse_relu_depthwise_conv", "fuse_bn_act_ops", "fuse_bn_add_act_ops",
                "fuse_all_optimizer_ops", "fuse_all_reduce_ops", "enable_inplace",
                "remove_unnecessary_lock", "sync_batch_norm", "enable_auto_fusion",
                "enable_addto", "cache_runtime_context"]

REFUSED = [
    (Build, "reduce_strategy", "foo", TypeError, "BuildStrategy.ReduceStrategy.AllReduce or "
                                                 "BuildStrategy.ReduceStrategy.Reduce"),
    (Build, "reduce_strategy", 7, TypeError, "BuildStrategy.ReduceStrategy.AllReduce"),
    (Build, "reduce_strategy", 1, TypeError, "BuildStrategy.ReduceStrategy.Reduce"),
    (Build, "gradient_scale_strategy", "bar", TypeError,
     "GradientScaleStrategy.CoeffNumDevice or BuildStrategy.GradientScaleStrategy.One or "
     "BuildStrategy.GradientScaleStrategy.Customized"),
    (Build, "memory_optimize", "yes", TypeError, "None, False or True"),
    (Build, "memory_optimize", 1, TypeError, "None, False or True"),
    (Build, "num_trainers", 0, ValueError, "an integer >= 1"),
    (Build, "num_trainers", 1.0, TypeError, "an integer >= 1"),
    (Build, "trainer_id", -1, ValueError, "an integer >= 0"),
    (Build, "debug_graphviz_path", 123, TypeError, "a path (str)"),
    (Build, "enable_inplace", "yes", TypeError, "True or False"),
    (Build, "enable_inplace", 2, ValueError, "True or False"),
    (Build, "sync_batch_norm", None, TypeError, "True or False"),
    (Execution, "num_threads", -1, ValueError, "an integer >= 0"),
    (Execution, "num_threads", 2.5, TypeError, "an integer >= 0"),
    (Execution, "num_threads", "4", TypeError, "an integer >= 0"),
    (Execution, "num_threads", True, ValueError, "an integer >= 0"),
    (Execution, "num_iteration_per_run", 0, ValueError, "an integer >= 1"),
    (Execution, "num_iteration_per_run", -1, ValueError, "an integer >= 1"),
    (Execution, "num_iteration_per_drop_scope", 0, ValueError, "an integer >= 1"),
    (Execution, "use_thread_barrier", "x", TypeError, "True or False"),
    (Execution, "allow_op_delay", 3, ValueError, "True or False"),
    (Execution, "_use_device", 0, TypeError, "core.DeviceType.CPU, CUDA or XPU"),
]


@pytest.mark.parametrize("cls, name, value, error, allowed", REFUSED)
def test_a_bad_value_is_refused_when_set_naming_option_value_and_what_is_allowed(
        cls, name, value, error, allowed):
    strategy = cls()
    with pytest.raises(error) as info:
        setattr(strategy, name, value)
    message = str(info.value)
    assert message.startswith("%s.%s = %r (%s) is not allowed: expected "
                              % (cls.__name__, name, value, type(value).__name__))
    assert allowed in message
    assert getattr(strategy, name) == getattr(cls(), name)     # unchanged


def test_every_value_the_seeds_document_is_accepted():
    build = Build()
    for name in BOOL_OPTIONS:
        for value in (True, False, np.bool_(True), 0, 1):
            setattr(build, name, value)
            assert getattr(build, name) is bool(value)
    for value in Build.ReduceStrategy:
        build.reduce_strategy = value
    for value in Build.GradientScaleStrategy:
        build.gradient_scale_strategy = value
    for value in (True, False, None):
        build.memory_optimize = value
        assert build.memory_optimize is value
    build.debug_graphviz_path = "./graph"
    build.num_trainers, build.trainer_id = 4, 3
    execution = fluid.ExecutionStrategy()
    for value in (0, 1, 4, np.int64(2)):
        execution.num_threads = value
        assert execution.num_threads == value and type(execution.num_threads) is int
    execution.num_iteration_per_drop_scope = 10
    execution.num_iteration_per_run = 3
    execution.use_thread_barrier = execution.allow_op_delay = True
    assert execution._use_device is fluid.core.DeviceType.CUDA    # 2.0's default
    execution._use_device = fluid.core.DeviceType.CPU
    assert execution._use_device is fluid.core.DeviceType.CPU


def _model():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 4], "float32")
        loss = paddle.mean(static.nn.fc(x, 1))
        paddle.optimizer.SGD(0.1).minimize(loss)
    scope = Scope()
    static.Executor().run(startup, scope=scope)
    return main, loss, scope


def test_trainer_id_must_be_one_of_the_trainers_when_both_are_known():
    """trainer_id 5 with one trainer used to give this process global ranks 10 and 11 of 2:
    under Reduce no place owned any parameter, so nothing was ever updated."""
    main, loss, scope = _model()
    strategy = Build()
    strategy.trainer_id = 5           # num_trainers may still be set after it
    prog = static.CompiledProgram(main).with_data_parallel(
        loss_name=loss.name, build_strategy=strategy, places=[paddle.CPUPlace()] * 2)
    with pytest.raises(ValueError, match=r"BuildStrategy.trainer_id = 5 is not a trainer of "
                                         r"num_trainers = 1: expected 0 <= trainer_id < "
                                         r"num_trainers"):
        static.Executor().run(prog, feed={"x": np.ones((2, 4), "float32")},
                              fetch_list=[loss], scope=scope)


def test_parallel_executor_passes_its_trainers_on_without_a_build_strategy(monkeypatch):
    """num_trainers=2 used to be dropped silently when no build_strategy was given."""
    monkeypatch.setenv("CPU_NUM", "1")
    main, loss, scope = _model()
    pe = static.ParallelExecutor(use_cuda=False, loss_name=loss.name, main_program=main,
                                 num_trainers=2, trainer_id=1, scope=scope)
    with pytest.raises(ValueError, match="num_trainers=2 needs one process per trainer"):
        pe.run(fetch_list=[loss.name], feed={"x": np.ones((2, 4), "float32")})


def test_with_data_parallel_checks_the_strategies_types():
    main, loss, _ = _model()
    with pytest.raises(TypeError, match="exec_strategy: expected ExecutionStrategy, got "
                                        "BuildStrategy"):
        static.CompiledProgram(main).with_data_parallel(loss_name=loss.name,
                                                        exec_strategy=Build())
