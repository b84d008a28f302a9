"""fluid.contrib.mixed_precision (Paddle 1.8): the op lists, the program rewrite (checked
against the program Paddle 1.8.5 builds) and dynamic loss scaling, run in float16 on CPU
(specs/fluid_contrib.md#mixed_precision)."""
import numpy as np
import pytest

from refimpl import fluid
from refimpl.fluid.contrib import mixed_precision

pytestmark = pytest.mark.paddle("1.8")


def test_lists_move_custom_types_as_paddle_185():
    lists = mixed_precision.AutoMixedPrecisionLists(custom_white_list=["softmax"],
                                                    custom_black_list=["relu"])
    assert lists.white_list == {"conv2d", "matmul", "mul", "softmax"}     # 1.8.5
    assert (len(lists.white_list), len(lists.black_list), len(lists.gray_list)) == (4, 11, 36)
    assert "relu" in lists.black_list and "relu" not in lists.gray_list
    with pytest.raises(ValueError, match="overlap"):
        mixed_precision.AutoMixedPrecisionLists(["mul"], ["mul"])


def _build(x_value_shape=(4, 3), **decorate_args):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.data("x", list(x_value_shape), "float32")
        y = fluid.layers.fc(x, 2, act="relu", param_attr=fluid.ParamAttr(
            initializer=fluid.initializer.Constant(0.5)))
        loss = fluid.layers.mean(fluid.layers.softmax(y) * fluid.layers.assign(
            np.array([[1.0, -2.0]], np.float32)))
        optimizer = fluid.optimizer.SGD(0.1)
        if decorate_args is not None:
            lists = mixed_precision.AutoMixedPrecisionLists(custom_white_list=["softmax"],
                                                            custom_black_list=["relu"])
            optimizer = mixed_precision.decorate(optimizer, amp_lists=lists, **decorate_args)
        optimizer.minimize(loss)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    return main, exe, loss, optimizer


def test_rewrite_casts_around_white_and_black_ops_as_paddle_185():
    main, _, _, _ = _build(init_loss_scaling=8.0)
    types = [op.type for op in main.global_block().ops]
    # Paddle 1.8.5's forward part of the same program
    assert types[:13] == ["cast", "cast", "mul", "cast", "elementwise_add", "cast", "relu",
                          "cast", "softmax", "assign_value", "cast", "elementwise_mul",
                          "mean"]
    block = main.global_block()
    dtypes = {name: block.var(name).dtype.name for name in (
        "x.cast_fp16", "fc_0.w_0.cast_fp16", "fc_0.tmp_0", "fc_0.tmp_1",
        "fc_0.tmp_1.cast_fp32", "softmax_0.tmp_0", "fc_0.w_0@GRAD")}
    assert dtypes == {"x.cast_fp16": "float16", "fc_0.w_0.cast_fp16": "float16",
                      "fc_0.tmp_0": "float16", "fc_0.tmp_1": "float16",
                      "fc_0.tmp_1.cast_fp32": "float32", "softmax_0.tmp_0": "float16",
                      "fc_0.w_0@GRAD": "float32"}


def test_training_step_matches_float32_within_half_precision():
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
    results = []
    for args in (None, {"init_loss_scaling": 8.0}):
        main, exe, loss, optimizer = _build(**(args or {})) if args else _plain()
        exe.run(main, feed={"x": x})
        results.append(np.array(fluid.global_scope().find_var("fc_0.w_0").get_tensor()))
    assert not np.array_equal(results[1], np.full((3, 2), 0.5))          # it trained
    np.testing.assert_allclose(results[1], results[0], rtol=2e-3, atol=2e-4)


def _plain():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.data("x", [4, 3], "float32")
        y = fluid.layers.fc(x, 2, act="relu", param_attr=fluid.ParamAttr(
            initializer=fluid.initializer.Constant(0.5)))
        loss = fluid.layers.mean(fluid.layers.softmax(y) * fluid.layers.assign(
            np.array([[1.0, -2.0]], np.float32)))
        fluid.optimizer.SGD(0.1).minimize(loss)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    return main, exe, loss, None


@pytest.mark.filterwarnings("ignore:invalid value encountered")     # the inf fed on purpose
def test_dynamic_loss_scaling_grows_shrinks_and_skips_bad_steps():
    main, exe, loss, optimizer = _build(init_loss_scaling=8.0, incr_every_n_steps=2,
                                        decr_every_n_nan_or_inf=2, decr_ratio=0.5)
    scaling = optimizer.get_loss_scaling()
    scope = fluid.global_scope()
    good = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
    bad = good.copy()
    bad[0, 0] = np.inf

    def step(x):
        value, = exe.run(main, feed={"x": x}, fetch_list=[scaling])
        return float(value[0])
    assert [step(good) for _ in range(3)] == [8.0, 8.0, 16.0]    # grows on the 3rd good step
    before = np.array(scope.find_var("fc_0.w_0").get_tensor())
    assert [step(bad) for _ in range(2)] == [16.0, 16.0]          # two bad steps: kept
    np.testing.assert_array_equal(np.array(scope.find_var("fc_0.w_0").get_tensor()), before)
    assert step(bad) == 8.0                                       # the third shrinks
    scaled, plain = exe.run(main, feed={"x": good},
                            fetch_list=[optimizer.get_scaled_loss(), loss])
    np.testing.assert_allclose(scaled, plain * 8.0, rtol=1e-6)


@pytest.mark.paddle("2.0")
def test_pure_fp16_casts_around_the_ops_kept_in_float32():
    # Paddle 2.0's cast_model_to_fp16 / cast_parameters_to_fp16 (PaddleClas's static
    # trainer with use_pure_fp16): ops outside fp16_guard stay float32, with casts
    from refimpl.fluid.contrib.mixed_precision import (cast_model_to_fp16,
                                                       cast_parameters_to_fp16, fp16_guard)
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.data("x", [2, 3], "float32")
        with fp16_guard():
            h = fluid.layers.fc(x, 2, param_attr=fluid.ParamAttr(
                initializer=fluid.initializer.Constant(0.5)))
        s = fluid.layers.softmax(h)            # outside the guard: float32
        with fp16_guard():
            out = fluid.layers.scale(s, 2.0)
        loss = fluid.layers.mean(out)
    names = cast_model_to_fp16(main)
    block = main.global_block()
    assert names == {"x", "fc_0.w_0", "fc_0.b_0", "softmax_0.tmp_0"}
    assert [op.type for op in block.ops] == ["mul", "elementwise_add", "cast", "softmax",
                                             "cast", "scale", "cast", "mean"]
    assert block.ops[3].input("X") == ["fc_0.tmp_1.cast_fp32"]
    assert block.ops[5].input("X") == ["softmax_0.tmp_0.cast_fp16"]
    dtypes = {n: block.var(n).dtype.name for n in ("x", "fc_0.w_0", "fc_0.tmp_1",
                                                   "softmax_0.tmp_0", "scale_0.tmp_0",
                                                   loss.name)}
    assert dtypes == {"x": "float16", "fc_0.w_0": "float16", "fc_0.tmp_1": "float16",
                      "softmax_0.tmp_0": "float32", "scale_0.tmp_0": "float16",
                      loss.name: "float32"}
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    scope = fluid.global_scope()
    cast_parameters_to_fp16(fluid.CPUPlace(), main)            # no names: nothing changes
    assert np.array(scope.find_var("fc_0.w_0").get_tensor()).dtype == np.float32
    cast_parameters_to_fp16(fluid.CPUPlace(), main, to_fp16_var_names=names)
    assert np.array(scope.find_var("fc_0.w_0").get_tensor()).dtype == np.float16
    assert np.array(scope.find_var("fc_0.b_0").get_tensor()).dtype == np.float16
    x_value = np.array([[1, 2, 3], [0, -1, 4]], np.float16)
    (got,) = exe.run(main, feed={"x": x_value}, fetch_list=[loss])
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, 1.0, rtol=1e-3)    # two softmax rows, doubled, averaged
