"""Executor: feeding, fetching, scopes, plan caching, error messages."""
import re
import threading

import numpy as np
import pytest

import refimpl as paddle
from refimpl import static, versions
from refimpl.framework.errors import FeedError, OpError
from refimpl.framework.scope import Scope


def _net():
    x = static.data("x", [None, 3], "float32")
    h = static.nn.fc(x, 2, weight_attr=paddle.ParamAttr(
        initializer=paddle.nn.initializer.Constant(0.5)))
    return x, h, paddle.mean(h)


def test_forward_values_match_numpy():
    x, h, loss = _net()
    exe = static.Executor(paddle.CPUPlace())
    exe.run(static.default_startup_program())
    data = np.arange(6, dtype="float32").reshape(2, 3)
    h_val, loss_val = exe.run(feed={"x": data}, fetch_list=[h, loss.name])
    np.testing.assert_allclose(h_val, data @ np.full((3, 2), 0.5))
    np.testing.assert_allclose(loss_val, h_val.mean())
    assert loss_val.shape == versions.switch("scalar_shape")     # (1,); 0-D under 3


def test_sgd_step_matches_hand_derivation():
    x, h, loss = _net()
    paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)
    exe = static.Executor()
    exe.run(static.default_startup_program())
    data = np.arange(6, dtype="float32").reshape(2, 3)
    exe.run(feed={"x": data})
    w = np.array(static.global_scope().find_var("fc_0.w_0").get_tensor())
    b = np.array(static.global_scope().find_var("fc_0.b_0").get_tensor())
    # d mean(xW + b)/dW = mean over rows of x, broadcast over the 2 outputs, / 2 outputs
    dw = np.repeat(data.mean(0, keepdims=True).T, 2, axis=1) / 2
    np.testing.assert_allclose(w, 0.5 - 0.1 * dw, rtol=1e-6)
    np.testing.assert_allclose(b, -0.1 * np.full(2, 0.5), rtol=1e-6)


def test_temporaries_are_dropped_and_params_stay():
    x, h, loss = _net()
    exe = static.Executor()
    exe.run(static.default_startup_program())
    exe.run(feed={"x": np.ones((2, 3), "float32")}, fetch_list=[loss])
    scope = static.global_scope()
    assert scope.find_var("fc_0.w_0") is not None
    assert scope.find_var(h.name) is None and scope.find_var("x") is None


def test_fetched_parameter_is_a_copy():
    x, h, loss = _net()
    paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)
    exe = static.Executor()
    exe.run(static.default_startup_program())
    w1, = exe.run(feed={"x": np.ones((2, 3), "float32")}, fetch_list=["fc_0.w_0"])
    before = w1.copy()
    exe.run(feed={"x": np.ones((2, 3), "float32")})
    np.testing.assert_array_equal(w1, before)


def test_feed_dtype_mismatch_names_variable():
    _net()
    exe = static.Executor()
    exe.run(static.default_startup_program())
    with pytest.raises(FeedError, match=r"The data type of fed Variable 'x' must be "
                       r"'float32', but received 'float64'"):
        exe.run(feed={"x": np.ones((2, 3))})


def test_feed_shape_mismatch_names_variable():
    _net()
    exe = static.Executor()
    exe.run(static.default_startup_program())
    with pytest.raises(FeedError, match=r"The fed Variable 'x' should have dimensions = 2, "
                       r"shape = \(-1, 3\), but received fed shape \[2, 4\] on each device"):
        exe.run(feed={"x": np.ones((2, 4), "float32")})


@pytest.mark.parametrize("declared, fed, ok", [
    ([None, 1], [5], True), ([None, 3], [5], True), ([4, 3], [4], True),
    ([None, 2, 3], [4, 2], True), ([2, 2], [4], False), ([None, 2, 3], [4, 3], False),
    ([None, 1], [5, 1, 1], False), ([None], [4, 1], False), ([None, 1], [1, 5], False)])
def test_feed_of_fewer_dims_is_checked_against_the_leading_ones(declared, fed, ok):
    # measured on Paddle 1.8.5 (fluid.data) and 3.3.1's legacy executor
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", declared, "float32")
        y = x * 2.0
    exe = static.Executor()
    if ok:
        (out,) = exe.run(main, feed={"x": np.full(fed, 1.5, "float32")}, fetch_list=[y])
        np.testing.assert_array_equal(out, np.full(fed, 3.0, "float32"))
    else:
        with pytest.raises(FeedError, match=r"received fed shape \%s" % str(fed)[:-1]):
            exe.run(main, feed={"x": np.ones(fed, "float32")}, fetch_list=[y])


def test_unknown_feed_warns_and_unknown_fetch_is_an_error():
    x, h, loss = _net()
    exe = static.Executor()
    exe.run(static.default_startup_program())
    # Paddle's Executor drops a feed the program does not have ("not declared or pruned")
    with pytest.warns(UserWarning, match="nope is not found in program"):
        (value,) = exe.run(feed={"nope": np.ones(1, "float32"),
                                 "x": np.ones((1, 3), "float32")}, fetch_list=[h])
    assert value.shape == (1, 2)
    with pytest.raises(ValueError, match="fetch 'nope'"):
        exe.run(feed={"x": np.ones((1, 3), "float32")}, fetch_list=["nope"])


def test_missing_startup_run_is_explained_with_user_line():
    _net()
    with pytest.raises(OpError) as info:
        static.Executor().run(feed={"x": np.ones((2, 3), "float32")})
    msg = str(info.value)
    assert "[operator mul]" in msg and "'fc_0.w_0' has no value" in msg
    assert "startup program" in msg and "test_executor.py:" in msg


def test_build_time_shape_error_names_op_vars_and_line():
    x = static.data("x", [None, 3], "float32")
    w = static.default_main_program().global_block().create_var(name="w", shape=[4, 5],
                                                                   dtype="float32")
    out = static.default_main_program().global_block().create_var(name="o", dtype="float32")
    with pytest.raises(OpError) as info:
        static.default_main_program().global_block().append_op(
            type="mul", inputs={"X": [x], "Y": [w]}, outputs={"Out": [out]})
    msg = str(info.value)
    assert "[operator mul]" in msg and "'x'" in msg and "'w'" in msg
    assert "K=3" in msg and "K=4" in msg and "test_executor.py:" in msg


def test_plan_is_rebuilt_when_program_changes():
    x, h, loss = _net()
    exe = static.Executor()
    exe.run(static.default_startup_program())
    feed = {"x": np.ones((2, 3), "float32")}
    first, = exe.run(feed=feed, fetch_list=[loss])
    doubled = loss * 2.0
    second, = exe.run(feed=feed, fetch_list=[doubled])
    np.testing.assert_allclose(second, first * 2)


def test_return_numpy_false_gives_tensors():
    x, h, loss = _net()
    exe = static.Executor()
    exe.run(static.default_startup_program())
    t, = exe.run(feed={"x": np.ones((2, 3), "float32")}, fetch_list=[loss],
                 return_numpy=False)
    np.testing.assert_allclose(np.array(t), 1.5)


def test_scope_guard_is_process_wide_so_a_second_thread_is_refused():
    """scope_guard switches the one global scope of the process (as Paddle's does): a
    thread entering one while another thread is inside one would switch that thread's scope
    too, and leaving them in the other order used to leave the wrong scope behind for good.
    The second thread is refused, pointed to exe.run(scope=...)."""
    mine = Scope()
    errors = []

    def second():
        try:
            with static.scope_guard(Scope()):
                pass
        except RuntimeError as e:
            errors.append(e)
    with static.scope_guard(mine):
        worker = threading.Thread(target=second, name="worker")
        worker.start()
        worker.join(10)
        assert static.global_scope() is mine
    assert len(errors) == 1
    assert re.match(r"scope_guard in thread 'worker' while thread 'MainThread' is inside one: "
                    r"the global scope is process-wide \(as in Paddle\), so this would switch "
                    r"it for that thread too. Give each thread's runs their own scope instead: "
                    r"exe.run\(program, scope=my_scope\)", str(errors[0]))
    # nested guards in one thread restore in order
    outer, a, b = static.global_scope(), Scope(), Scope()
    with static.scope_guard(a):
        with static.scope_guard(b):
            assert static.global_scope() is b
        assert static.global_scope() is a
    assert static.global_scope() is outer


def test_unchecked_feed_is_converted_to_the_declared_dtype_only_when_its_ints_fit():
    # fluid.layers.data feeds are not checked; Paddle computes with the fed array. refimpl
    # converts a value of the declared kind, but an int64 that int32 cannot hold stays
    # int64 (2.0's test_strided_slice_op feeds ends 2**31 into an int32 variable)
    main = static.Program()
    with static.program_guard(main, static.Program()):
        ends = paddle.fluid.layers.data("ends", [3], dtype="int32", append_batch_size=False)
        small = paddle.fluid.layers.data("small", [3], dtype="int32", append_batch_size=False)
        x = paddle.fluid.layers.data("x", [3, 4, 5], dtype="float64",
                                      append_batch_size=False)
        out = paddle.fluid.layers.strided_slice(x, [0, 1, 2], [0, 0, 2], ends, [1, 1, 1])
        copies = [ends + 0, small + 0]
    x_in = np.arange(60.0).reshape(3, 4, 5)
    got, big, fit = static.Executor().run(main, feed={
        "x": x_in, "ends": np.array([3, 2 ** 31, -1], "int64"),
        "small": np.array([1, 2, 3], "int64")}, fetch_list=[out] + copies)
    np.testing.assert_array_equal(got, x_in[:, :, 2:-1])
    assert big.dtype == np.int64 and big[1] == 2 ** 31
    assert fit.dtype == np.int32 and list(fit) == [1, 2, 3]
