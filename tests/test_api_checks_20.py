"""Paddle 2.0's API argument checks and small 2.0 API behaviours that its own unittest
files (release/2.0, specs/paddle20_tests.txt) assert, each with the value or error 2.0
gives (read from release/2.0's source, measured on Paddle 3.3.1 where they agree). Tests run in
static mode unless they take the `dygraph` fixture (conftest.py)."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl import static


@pytest.mark.parametrize("api", [paddle.argmax, paddle.argmin])
def test_arg_reduce_checks_axis_and_dtype(api):
    x = static.data("x", [10], "float32")
    with pytest.raises(TypeError, match="dtype must be int32 or int64, got float32"):
        api(x, dtype="float32")
    with pytest.raises(TypeError, match="axis must be an int or None, got float 1.2"):
        api(x, axis=1.2)
    with pytest.raises(ValueError, match="dtype must be int32 or int64, got None"):
        api(x, dtype=None)
    assert api(x, axis=0, dtype="int32").dtype.name == "int32"


def test_arg_reduce_values_with_int32_dtype(dygraph):
    x = paddle.to_tensor(np.array([[1., 5., 2.], [7., 0., 3.]], "float32"))
    out = paddle.argmax(x, axis=1, dtype="int32")
    assert out.dtype.name == "int32"
    np.testing.assert_array_equal(out.numpy(), [1, 0])
    np.testing.assert_array_equal(paddle.argmin(x, axis=0).numpy(), [0, 1, 0])


def test_expand_takes_run_time_shapes():
    """paddle.expand's shape: ints with 1-element int Tensors (expand_shapes_tensor), or an
    int Tensor (Shape); -1 keeps x's dim."""
    x = static.data("x", [1, 3], "float32")
    n = static.data("n", [1], "int32")
    shape = static.data("shape", [3], "int32")
    outs = [paddle.expand(x, [n, 3]), paddle.expand(x, shape), paddle.broadcast_to(x, [2, -1])]
    assert [list(o.shape) for o in outs] == [[-1, 3], [-1, -1, -1], [2, 3]]
    exe = static.Executor()
    x_np = np.array([[1., 2., 3.]], "float32")
    got = exe.run(feed={"x": x_np, "n": np.array([2], "int32"),
                        "shape": np.array([2, 2, 3], "int32")}, fetch_list=outs)
    np.testing.assert_array_equal(got[0], np.tile(x_np, (2, 1)))
    np.testing.assert_array_equal(got[1], np.tile(x_np, (2, 2, 1)))
    np.testing.assert_array_equal(got[2], np.tile(x_np, (2, 1)))


@pytest.mark.parametrize("api", [
    lambda x: paddle.expand(x, [2, 4]), lambda x: paddle.broadcast_to(x, [2, 4]),
    lambda x: paddle.expand_as(x, static.data("y", [2, 4], "int32"))])
def test_expand_apis_check_x(api):
    """Paddle 2.0's static checks: x's dtype (bool, float32/64, int32/64), and a bool x must
    stop gradients."""
    with pytest.raises(TypeError, match="x must have dtype in .*got uint8"):
        api(static.data("xu", [4], "uint8"))
    xb = static.data("xb", [4], "bool")
    xb.stop_gradient = False
    with pytest.raises(ValueError, match="a bool x must have stop_gradient=True"):
        api(xb)


@pytest.mark.parametrize("version", ["2.0", "3"])
def test_flatten_dtypes_by_version(version, paddle_version):
    with paddle_version(version):
        x16 = static.data("x16", [2, 3, 4], "float16")
        if version == "2.0":
            with pytest.raises(TypeError, match="x must have dtype in .*got float16"):
                paddle.flatten(x16)
        else:
            assert list(paddle.flatten(x16).shape) == [24]
        assert list(paddle.flatten(static.data("x", [2, 3, 4], "int8"), 1).shape) == [2, 12]
        with pytest.raises(ValueError, match="x must be a Tensor, got ndarray"):
            paddle.flatten(np.ones((2, 3)))


def test_empty_and_empty_like_shapes_dtypes_and_checks():
    """paddle.empty / empty_like build the empty op (zeros in refimpl); shapes may come at
    run time; dtypes as Paddle 2.0 checks them."""
    n = static.data("n", [1], "int64")
    shape = static.data("shape", [2], "int32")
    x = static.data("x", [-1, 3], "float64")
    outs = [paddle.empty([2, n], "int32"), paddle.empty(shape), paddle.empty_like(x),
            paddle.empty_like(x, "bool")]
    assert [list(o.shape) for o in outs] == [[2, -1], [-1, -1], [-1, -1], [-1, -1]]
    assert [o.dtype.name for o in outs] == ["int32", "float32", "float64", "bool"]
    got = static.Executor().run(feed={"n": np.array([4], "int64"),
                                      "shape": np.array([1, 5], "int32"),
                                      "x": np.ones((2, 3))}, fetch_list=outs)
    assert [g.shape for g in got] == [(2, 4), (1, 5), (2, 3), (2, 3)]
    assert [g.dtype for g in got] == [np.int32, np.float32, np.float64, np.bool_]
    with pytest.raises(TypeError, match=r"empty: dtype must be one of .*got uint8"):
        paddle.empty([2], "uint8")
    with pytest.raises(TypeError, match="empty_like: x must be a Variable, got ndarray"):
        paddle.empty_like(np.ones(3))


def test_empty_like_takes_an_array_in_dynamic_mode(dygraph):
    out = paddle.empty_like(np.ones((2, 3), "float32"), "int64")
    assert out.shape == [2, 3] and out.dtype.name == "int64" and out.stop_gradient


def test_broadcast_shape():
    assert paddle.broadcast_shape([2, 1, 3], [1, 3, 1]) == [2, 3, 3]
    # unknown dims (-1): with a dim > 1 that dim, with 1 or -1 still unknown
    assert paddle.broadcast_shape([-1, 1, 3], [1, 3, 1]) == [-1, 3, 3]
    assert paddle.tensor.math.broadcast_shape([-1, -1, 4], [3, -1]) == [-1, 3, 4]
    with pytest.raises(ValueError, match=r"dim 0 of the aligned shapes is 2 and 3"):
        paddle.broadcast_shape([2, 1, 3], [3, 3, 1])


@pytest.mark.parametrize("version", ["1.8", "2.0"])
def test_as_lodtensor_by_version(version, paddle_version):
    from refimpl import fluid
    cpu = fluid.CPUPlace()
    as_tensor = fluid.executor._as_lodtensor
    with paddle_version(version):
        one = as_tensor(3, cpu, "int32")
        np.testing.assert_array_equal(np.array(one), np.array([3], "int32"))
        with pytest.raises(AssertionError):
            as_tensor(1, cpu)
        if version == "1.8":
            with pytest.raises(RuntimeError, match="may hold sequences"):
                as_tensor([1, 2], cpu, "float64")
            return
        got = as_tensor((1, 2), cpu, fluid.core.VarDesc.VarType.FP64)
        assert got._dtype() == fluid.core.VarDesc.VarType.FP64
        np.testing.assert_array_equal(np.array(got), [1.0, 2.0])
        with pytest.raises(TypeError, match="no regular array"):
            as_tensor([[1], [1, 2]], cpu, "int32")
        with pytest.raises(TypeError, match="data of type dict"):
            as_tensor({"a": 1}, cpu, "int32")


def test_assert_passes_a_true_condition_and_fails_a_false_one(capsys):
    from refimpl import fluid
    layers = fluid.layers

    def run(make_cond):
        main = static.Program()
        with static.program_guard(main, static.Program()):
            x = layers.fill_constant([2, 3], "float32", 2.0)
            layers.Assert(make_cond(x), [x], summarize=4)
        static.Executor().run(main)
    run(lambda x: layers.reduce_max(x) > 1.0)
    assert capsys.readouterr().out == ""
    with pytest.raises(ValueError, match="condition .* is false"):
        run(lambda x: layers.reduce_max(x) < 1.0)
    printed = capsys.readouterr().out
    assert "shape: [2,3,]" in printed and "data: 2,2,2,2,\n" in printed
    with pytest.raises(ValueError, match=r"must have shape \[1\], got \[1, 2\]"):
        run(lambda x: layers.fill_constant([1, 2], "bool", True))
    with pytest.raises(TypeError, match="cond must be a bool Variable, got float32"):
        run(lambda x: x)


def test_diag_checks_its_arguments_in_static_mode():
    """Paddle 2.0's paddle.diag: x a float32/64 or int32/64 Variable, an int offset, an int
    or float padding_value, a 1-D or 2-D x."""
    with pytest.raises(TypeError, match="argument 'x' must be"):
        paddle.diag([1, 2, 3])
    x = static.data("x", [3, 3], "float32")
    with pytest.raises(TypeError, match="offset must be an int, got float 2.5"):
        paddle.diag(x, offset=2.5)
    with pytest.raises(TypeError, match=r"padding_value must be an int or a float, got list"):
        paddle.diag(x, padding_value=[9])
    with pytest.raises(ValueError, match=r"x must be 1-D or 2-D, got shape \[3, 3, 3\]"):
        paddle.diag(static.data("x3", [3, 3, 3], "float32"))
    got = static.Executor().run(feed={"x": np.arange(9, dtype="float32").reshape(3, 3)},
                                fetch_list=[paddle.diag(x, offset=1)])[0]
    np.testing.assert_array_equal(got, [1, 5])


def test_unique_checks_its_flags_axis_and_dtypes(paddle_version):
    with paddle_version("2.0"):
        x = static.data("x", [10, 10], "float64")
        for arg, value in (("return_index", 0), ("return_inverse", "s"),
                           ("return_counts", 3), ("axis", "12")):
            with pytest.raises(TypeError, match="%s" % arg):
                paddle.unique(x, **{arg: value})
        with pytest.raises(TypeError, match="dtype"):
            paddle.unique(x, dtype="float64")
        with pytest.raises(TypeError, match="float16"):
            paddle.unique(static.data("h", [10], "float16"))
        out, counts = paddle.unique(x, return_counts=True, axis=0, dtype="int32")
        assert counts.dtype.name == "int32" and out.dtype.name == "float64"


def test_reshape_checks_x_and_shape_as_fluid_layers_reshape(paddle_version):
    with paddle_version("2.0"):
        with pytest.raises(TypeError, match="int8"):
            paddle.reshape(static.data("x8", [2, 25], "int8"), shape=[2, 5, 5])
        with pytest.raises(TypeError, match="shape"):
            paddle.reshape(static.data("x", [2, 25], "float32"), shape=1)
        assert list(paddle.reshape(static.data("b", [2, 25], "bool"), [5, 10]).shape) == [5, 10]
