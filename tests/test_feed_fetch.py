"""Feeds and fetches as Paddle takes and gives them: numbers for [1] variables, LoDTensors,
persistable feeds copied to every device, tensor-array fetches, return_numpy=False; and the
Program's to_string, state_dict / set_state_dict, bias_attr=True, static.Scope."""
import warnings

import numpy as np
import pytest

import refimpl as paddle
from refimpl import fluid, static
from refimpl.framework import unique_name
from refimpl.framework.scope import LoDTensorArray, Scope, Tensor


def _scaled_fc():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), unique_name.guard():
        x = static.data("x", [None, 3], "float32")
        lr = static.data("lr", [1], "float32")
        y = fluid.layers.fc(x, 2, bias_attr=True)
        out = y * lr
    return main, startup, y, out


@pytest.mark.parametrize("lr", [0.5, np.float32(0.5), np.array(0.5, "float32"), [0.5],
                                np.array([0.5], "float32")])
def test_a_number_or_0d_array_feeds_a_shape_1_variable(lr):
    main, startup, y, out = _scaled_fc()
    scope = Scope()
    exe = static.Executor()
    exe.run(startup, scope=scope)
    x = np.arange(6, dtype="float32").reshape(2, 3)
    got_y, got = exe.run(main, feed={"x": x, "lr": lr}, fetch_list=[y, out], scope=scope)
    np.testing.assert_allclose(got, got_y * 0.5, rtol=1e-6)


def test_bias_attr_true_is_the_default_bias():
    main, startup, y, out = _scaled_fc()
    assert [p.name for p in main.all_parameters()] == ["fc_0.w_0", "fc_0.b_0"]


def test_lod_tensor_feed_and_return_numpy_false():
    main, startup, y, out = _scaled_fc()
    scope = Scope()
    exe = static.Executor()
    exe.run(startup, scope=scope)
    x = np.arange(6, dtype="float32").reshape(2, 3)
    t = fluid.LoDTensor()
    t.set(x, fluid.CPUPlace())
    want, = exe.run(main, feed={"x": x, "lr": 1.0}, fetch_list=[y], scope=scope)
    got, = exe.run(main, feed={"x": t, "lr": 1.0}, fetch_list=[y], scope=scope,
                   return_numpy=False)
    assert isinstance(got, Tensor) and got.shape() == [2, 2]
    np.testing.assert_array_equal(np.array(got), want)
    # fc keeps x's LoD (Paddle's mul shares it): only a LoDTensor can hold the result
    lod = fluid.create_lod_tensor(x, [[1, 1]], fluid.CPUPlace())
    again, = exe.run(main, feed={"x": lod, "lr": 1.0}, fetch_list=[y], scope=scope,
                     return_numpy=False)
    np.testing.assert_array_equal(np.array(again), want)
    assert again.recursive_sequence_lengths() == [[1, 1]]
    with pytest.raises(RuntimeError, match="hold LoD information"):
        exe.run(main, feed={"x": lod, "lr": 1.0}, fetch_list=[y], scope=scope)


def test_tensor_array_fetch_is_a_list_of_arrays():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [2, 3], "float32")
        arr = fluid.layers.create_array("float32")
        i = fluid.layers.fill_constant([1], "int64", 0)
        fluid.layers.array_write(x, i, array=arr)
        fluid.layers.array_write(paddle.sum(x, axis=1), i + 1, array=arr)
    exe = static.Executor()
    x = np.arange(6, dtype="float32").reshape(2, 3)
    got, = exe.run(main, feed={"x": x}, fetch_list=[arr], scope=Scope())
    assert isinstance(got, list) and len(got) == 2
    np.testing.assert_array_equal(got[0], x)
    np.testing.assert_array_equal(got[1], x.sum(1))
    tensors, = exe.run(main, feed={"x": x}, fetch_list=[arr], scope=Scope(),
                       return_numpy=False)
    assert isinstance(tensors, LoDTensorArray) and all(isinstance(t, Tensor) for t in tensors)
    np.testing.assert_array_equal(np.array(tensors[1]), x.sum(1))


def _persistable_model():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), unique_name.guard():
        x = static.data("x", [None, 3], "float32")
        lr = fluid.layers.create_global_var([1], 0.0, "float32", persistable=True, name="lr")
        wp = fluid.layers.create_global_var([2, 3], 0.0, "float32", persistable=True,
                                            name="wp")
        y = fluid.layers.fc(x, 1)
        out = fluid.layers.reduce_sum(y) * 0 + lr + fluid.layers.reduce_sum(wp)
        loss = fluid.layers.mean(y)
        fluid.optimizer.SGD(0.1).minimize(loss)
    return main, startup, loss, out, lr, wp


def test_persistable_feed_goes_whole_to_every_device():
    # Paddle 1.8.5, CPU_NUM=4, the same program: out and lr fetched as [0.25] * 4, the
    # scope's lr 0.25 afterwards; a list feed gives each device its own ([0, 1, 2, 3]) and
    # leaves device 0's in the scope; wp fed 2 samples is refused
    main, startup, loss, out, lr, wp = _persistable_model()
    scope = Scope()
    exe = static.Executor()
    exe.run(startup, scope=scope)
    prog = static.CompiledProgram(main).with_data_parallel(
        loss_name=loss.name, places=[paddle.CPUPlace()] * 4)
    x = np.ones((8, 3), "float32")
    got_out, got_lr = exe.run(prog, feed={"x": x, "lr": np.array([0.25], "float32")},
                              fetch_list=[out, lr], scope=scope)
    np.testing.assert_array_equal(got_out, [0.25] * 4)
    np.testing.assert_array_equal(got_lr, [0.25] * 4)
    np.testing.assert_array_equal(np.array(scope.find_var("lr").get_tensor()), [0.25])
    got_out, _ = exe.run(prog, feed={"x": x, "lr": 0.5}, fetch_list=[out, lr], scope=scope)
    np.testing.assert_array_equal(got_out, [0.5] * 4)
    feeds = [{"x": np.ones((2, 3), "float32"), "lr": np.array([i], "float32")}
             for i in range(4)]
    got_out, got_lr = exe.run(prog, feed=feeds, fetch_list=[out, lr], scope=scope)
    np.testing.assert_array_equal(got_lr, [0, 1, 2, 3])
    np.testing.assert_array_equal(np.array(scope.find_var("lr").get_tensor()), [0])
    # Paddle's PreconditionNotMet: RuntimeError in 2.0 (test_parallel_executor_feed_
    # persistable_var), EnforceNotMet in 1.8.5; refimpl's feed errors are ValueErrors too
    with pytest.raises(RuntimeError, match="'wp' is persistable: feed 1 sample .* or 4 .* "
                                           "got 2") as caught:
        exe.run(prog, feed={"x": x, "wp": np.ones((2, 3), "float32")}, fetch_list=[out],
                scope=scope)
    assert isinstance(caught.value, ValueError) and \
        isinstance(caught.value, fluid.core.EnforceNotMet)
    with pytest.raises(RuntimeError, match="'x' has 1 samples, fewer than the 4 devices"):
        exe.run(prog, feed={"x": x[:1]}, fetch_list=[out], scope=scope)


def test_to_string_prints_the_program_desc_and_details():
    main, startup, loss, out, lr, wp = _persistable_model()
    plain = main.to_string(True)
    detailed = main.to_string(throw_on_error=True, with_details=True)
    for text in (plain, detailed):
        assert text.startswith("blocks {\n  idx: 0\n  parent_idx: -1\n  vars {\n")
        assert '    name: "x"\n    type {\n      type: LOD_TENSOR\n      lod_tensor {\n' \
               '        tensor {\n          data_type: FP32\n          dims: -1\n' \
               '          dims: 3\n        }\n        lod_level: 0\n      }\n    }\n' \
               '    persistable: false\n    need_check_feed: true\n' in text
        assert '    attrs {\n      name: "x_num_col_dims"\n      type: INT\n      i: 1\n    }\n' \
            in text
        assert text.count("ops {") == len(main.global_block().ops)
    assert "stop_gradient" not in plain and "trainable" not in plain
    assert "    persistable: true\n    error_clip: None\n    stop_gradient: False\n" \
           "    trainable: True\n    optimize_attr: {'learning_rate': 1.0}\n" in detailed
    with pytest.raises(TypeError, match="with_details must be a bool"):
        main.to_string(True, "yes")


def test_to_string_throw_on_error_reports_a_variable_without_a_data_type():
    # Paddle 1.8.5's test_framework_debug_str: a shape but no dtype leaves data_type unset
    prog = fluid.Program()
    block = prog.current_block()
    t = block.create_var(name="t", shape=[0, 1])
    block.create_var(name="typed", shape=[2], dtype="int64")
    block.create_var(name="no_shape")
    with pytest.raises(ValueError, match="\\['blocks\\[0\\].vars\\[0\\].type.lod_tensor"
                                         ".tensor.data_type \\(variable t\\)'\\]"):
        prog.to_string(True)
    assert 'name: "t"' in prog.to_string(False)
    t._set_shape_dtype([0, 1], "float32")     # as an op's shape inference gives it one
    assert "data_type: FP32" in prog.to_string(True)


def test_state_dict_and_set_state_dict():
    main, startup, loss, out, lr, wp = _persistable_model()
    scope = Scope()
    static.Executor().run(startup, scope=scope)
    assert set(main.state_dict("param", scope)) == {"fc_0.w_0", "fc_0.b_0"}
    assert set(main.state_dict("opt", scope)) == {"lr", "wp", "learning_rate_0"}
    state = main.state_dict(scope=scope)
    assert set(state) == {"fc_0.w_0", "fc_0.b_0", "lr", "wp", "learning_rate_0"}
    assert all(isinstance(v, Tensor) for v in state.values())
    w = np.arange(3, dtype="float32").reshape(3, 1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        main.set_state_dict({"fc_0.w_0": w, "nope": np.ones(2)}, scope)
    assert any("skipped 'nope'" in str(c.message) for c in caught)
    np.testing.assert_array_equal(np.array(main.state_dict(scope=scope)["fc_0.w_0"]), w)
    with pytest.raises(ValueError, match="'fc_0.w_0' expects shape \\[3, 1\\]"):
        main.set_state_dict({"lr": np.array([9.0], "float32"),
                             "fc_0.w_0": np.ones((2, 2), "float32")}, scope)
    # checked before anything is set: lr kept its value
    np.testing.assert_array_equal(np.array(main.state_dict(scope=scope)["lr"]), [0.0])
    with pytest.raises(ValueError, match="mode must be 'param', 'opt' or 'all'"):
        main.state_dict("bad")
    with pytest.raises(ValueError, match="has no value in the scope"):
        main.state_dict(scope=Scope())


def test_static_scope_is_the_scope_class():
    scope = static.Scope()
    with static.scope_guard(scope):
        assert static.global_scope() is scope
    assert isinstance(scope, Scope)
