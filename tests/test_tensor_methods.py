"""Static Variables as Paddle 2.0 has them: indexing (x[...], x[...] = v) built from ops with
gradients, the tensor methods (x.sum(), x.reshape(...)), operators, T and size."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl import static, versions
from refimpl.framework.program import Program, Variable, program_guard
from refimpl.tensor_methods import FUNCTION_METHODS, methods
from helpers import central_differences

X = np.arange(20, dtype="float64").reshape(4, 5) - 7.5
MASK = X > 2


def run(build, feed):
    main, startup = Program(), Program()
    with program_guard(main, startup):
        fetch, ops = build()
    exe = static.Executor()
    return exe.run(main, feed=feed, fetch_list=fetch), main


# index as written, numpy's answer; Paddle 2.0 keeps shape [1] where numpy gives a scalar
GETITEM = [
    "x[0]", "x[-1]", "x[1:3]", "x[::2]", "x[::-1]", "x[:, -1]", "x[0, 0]", "x[1:-1, ::-2]",
    "x[-3:, None, 2]", "x[None]", "x[..., 1]", "x[1, ..., None]", "x[[0, 2]]",
    "x[:, [4, 0, 1]]", "x[np.array([[3, 1], [0, 0]])]", "x[[True, False, True, True]]",
    "x[mask]", "x[1, None, ..., -1]", "x[2:100]", "x[-100:2, 3:-100:-1]",
]


@pytest.mark.parametrize("expr", GETITEM)
def test_getitem_matches_numpy_values_and_build_time_shape(expr):
    def build():
        x = static.data("x", [4, 5], "float64")
        mask = static.data("mask", [4, 5], "bool")
        out = eval(expr, {"x": x, "mask": mask, "np": np})
        return [out], out

    (got,), main = run(build, {"x": X, "mask": MASK})
    want = np.asarray(eval(expr, {"x": X, "mask": MASK, "np": np}))
    want = want.reshape(1) if want.ndim == 0 else want
    np.testing.assert_array_equal(got, want)
    declared = main.global_block().var(main.global_block().ops[-1].output_arg_names[0]).shape
    assert all(d in (-1, g) for d, g in zip(declared, got.shape)) and \
        len(declared) == got.ndim


def test_getitem_ops_are_slice_strided_slice_unsqueeze_gather():
    def build():
        x = static.data("x", [4, 5], "float32")
        x[1:3], x[::2], x[None], x[[0, 2]]
        return [], None

    _, main = run(build, {"x": X.astype("float32")})
    types = [op.type for op in main.global_block().ops]
    assert types[0] == "slice" and types[1] == "strided_slice" and "unsqueeze2" in types
    assert "gather" in types


def test_int_variable_index_of_shape_1_drops_the_axis():
    # Paddle 1.8.5: x[i] with i = fluid.data('i', [1], 'int32') fed [2] gave shape (5,), row 2
    def build():
        x = static.data("x", [4, 5], "float64")
        i = static.data("i", [1], "int64")
        return [x[i], x[:, i]], None

    (row, col), _ = run(build, {"x": X, "i": np.array([2])})
    np.testing.assert_array_equal(row, X[2])
    np.testing.assert_array_equal(col, X[:, 2])


def test_variable_slice_bounds_and_steps_are_read_when_the_program_runs():
    # Paddle 1.8.5's test_strided_slice_op: x[minus_3:3:1, 0:100:2, :, minus_1:2:minus_1]
    def build():
        x = static.data("x", [4, 5], "float64")
        lo = static.data("lo", [1], "int32")
        step = static.data("step", [1], "int32")
        strided = paddle.strided_slice(x, [0, 1], [lo, 0], [4, 5], [1, step])
        return [x[lo:4:step, ::2], x[3:lo:step], strided], None

    (a, b, c), main = run(build, {"x": X, "lo": np.array([-3], "int32"),
                                  "step": np.array([2], "int32")})
    np.testing.assert_array_equal(a, X[-3:4:2, ::2])
    # X[3:-3:2] is empty: Paddle 2.0's fetch returns a tensor without elements as [0]
    want = X[3:-3:2]
    assert b.shape == ((0,) if versions.switch("fetch_empty_flat") else want.shape)
    np.testing.assert_array_equal(c, X[-3:4, 0:5:2])
    with pytest.raises(TypeError, match="Variable slice step needs both bounds"):
        static.data("y", [3], "float64")[::static.data("s", [1], "int32")]


@pytest.mark.parametrize("expr", ["x[1:3, ::-2]", "x[-1]", "x[:, [4, 0, 4]]", "x[mask]",
                                  "x[None, 2, 1:]", "x[np.array([True, False, True, True])]"])
def test_getitem_gradient_matches_finite_differences(expr, rng):
    weights = {}

    def build():
        x = static.data("x", [4, 5], "float64")
        x.stop_gradient = False
        mask = static.data("mask", [4, 5], "bool")
        out = eval(expr, {"x": x, "mask": mask, "np": np})
        w = static.data("w", [-1] * len(out.shape), "float64")
        loss = paddle.sum(out * out * w)
        return static.gradients(loss, [x]), None

    def f(xv):
        out = eval(expr, {"x": xv, "mask": MASK, "np": np})
        return float(np.sum(out * out * weights["w"]))

    weights["w"] = rng.rand(*np.asarray(eval(expr, {"x": X, "mask": MASK, "np": np})).shape)
    (grad,), _ = run(build, {"x": X, "mask": MASK, "w": weights["w"]})
    np.testing.assert_allclose(grad, central_differences(f, X), rtol=1e-6, atol=1e-6)


def test_getitem_errors_name_the_variable():
    with program_guard(Program(), Program()):
        x = static.data("x", [4, 5], "float32")
        with pytest.raises(IndexError, match=r"index 4 is out of bounds for axis 0 of 'x'"):
            x[4]
        with pytest.raises(IndexError, match="'x' has 2 dims, indexed with 3"):
            x[0, 0, 0]
        with pytest.raises(ValueError, match="step cannot be zero"):
            x[::0]
        with pytest.raises(IndexError, match="one list or tensor index"):
            x[[0, 1], [1, 2]]
        with pytest.raises(TypeError, match="index items must be"):
            x["a"]
        with pytest.raises(TypeError, match="known first dim"):
            list(static.data("y", [None, 3], "float32"))
        assert [v.shape for v in x] == [(5,)] * 4


def _set_program(xv, vv):
    """The numpy twin of the setitem program below: its result and loss."""
    y = xv * 2
    before = y * y          # read before the writes: its gradient needs the old y
    y[1:3, ::2] = 1.5
    y[0, 1:4] = vv
    y[-1] = y[0] * 10
    return y, float((y * y).sum() + before.sum())


@pytest.mark.paddle("3")     # a step in the index: 2.0 refuses it (switch static_setitem)
def test_setitem_writes_in_place_with_gradients_for_x_and_value():
    xv, vv = np.random.RandomState(0).rand(4, 5), np.random.RandomState(1).rand(3)

    def build():
        x = static.data("x", [4, 5], "float64")
        v = static.data("v", [3], "float64")
        x.stop_gradient = v.stop_gradient = False
        y = x * 2
        before = y * y
        y[1:3, ::2] = 1.5
        y[0, 1:4] = v
        y[-1] = y[0] * 10
        loss = paddle.sum(y * y) + paddle.sum(before)
        return [y, loss] + static.gradients(loss, [x, v]), None

    (y, loss, gx, gv), main = run(build, {"x": xv, "v": vv})
    want_y, want_loss = _set_program(xv, vv)
    np.testing.assert_allclose(y, want_y, rtol=1e-12)
    np.testing.assert_allclose(loss, want_loss, rtol=1e-12)
    set_ops = [op for op in main.global_block().ops if op.type == "set_value"]
    assert len(set_ops) == 3 and all(op.input("Input") == op.output("Out") for op in set_ops)
    eps = 1e-6
    for value, grad, shift in ((xv, gx, lambda d: (xv + d, vv)), (vv, gv, lambda d: (xv, vv + d))):
        numeric = np.zeros_like(value)
        for idx in np.ndindex(value.shape):
            d = np.zeros_like(value)
            d[idx] = eps
            numeric[idx] = (_set_program(*shift(d))[1] - _set_program(*shift(-d))[1]) / 2 / eps
        np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-5)


def test_setitem_after_a_cond_that_read_x_keeps_the_value_the_branch_read():
    # the cond's branch (its sub-block) reads the copy of y made before y[0] = 5, like the
    # cond op itself: its forward and its gradient see y's value before the write
    def build():
        x = static.data("x", [3], "float64")
        x.stop_gradient = False
        y = x * 1.0
        z = static.nn.cond(paddle.full([1], True, "bool"), lambda: y * y, lambda: y * 3.0)
        y[0] = 5.0
        loss = paddle.sum(z) + paddle.sum(y)
        return [loss] + static.gradients(loss, [x]), None

    (loss, gx), _ = run(build, {"x": np.array([1.0, 2.0, 3.0])})
    # sum(x * x) + 5 + x1 + x2, and its gradient 2 x + [0, 1, 1]
    np.testing.assert_allclose(loss, [24.0])
    np.testing.assert_allclose(gx, [2.0, 5.0, 7.0])


def test_setitem_with_array_value_mask_and_cast():
    def build():
        x = static.data("x", [4, 5], "float64")
        a = x * 1
        a[:, 1] = np.array([1, 2, 3, 4])
        b = x * 1
        b[b > 2] = 0.0
        c = x * 1
        c[0] = static.data("i", [5], "int64")
        return [a, b, c], None

    (a, b, c), _ = run(build, {"x": X, "i": np.arange(5)})
    want = X.copy()
    want[:, 1] = [1, 2, 3, 4]
    np.testing.assert_array_equal(a, want)
    np.testing.assert_array_equal(b, np.where(X > 2, 0.0, X))
    want = X.copy()
    want[0] = np.arange(5)
    np.testing.assert_array_equal(c, want)


@pytest.mark.paddle("3")     # refimpl's own messages; 2.0's are test_paddle20_api_additions'
def test_setitem_errors():
    with program_guard(Program(), Program()):
        x = static.data("x", [4, 5], "float32")
        with pytest.raises(IndexError, match="list or tensor index is not supported"):
            x[[0, 1]] = 1.0
        with pytest.raises(TypeError, match="value must be a number"):
            x[0] = "a"
        with pytest.raises(Exception, match="does not broadcast|shape"):
            y = x * 1
            y[0] = np.ones(3)
            static.Executor().run(feed={"x": np.ones((4, 5), "float32")}, fetch_list=[y])


def test_every_listed_function_is_a_method_calling_the_paddle_function():
    table = methods()
    for name in FUNCTION_METHODS:
        assert getattr(Variable, name) is getattr(paddle, name), name
        assert table[name] is getattr(paddle, name)
    assert Variable.shape.__class__ is property     # the class's own kept, as Paddle skips it


def test_methods_operators_and_properties_compute_like_numpy():
    def build():
        x = static.data("x", [4, 5], "float64")
        return [x.sum(), x.mean(axis=1), x.reshape([5, 4]), abs(x), x.T, x.size,
                x.max(axis=0), x.astype("int32"), 7.0 // (x + 8), x % 3, 3 % (x + 8),
                x.matmul(x.T), x.abs().sqrt(), x.unsqueeze(0).squeeze(0),
                x.transpose([1, 0]).flatten()], None

    outs, _ = run(build, {"x": X})
    want = [X.sum(), X.mean(axis=1), X.reshape(5, 4), abs(X), X.T, np.array([20]),
            X.max(axis=0), X.astype("int32"), 7.0 // (X + 8), X % 3, 3 % (X + 8), X @ X.T,
            np.sqrt(abs(X)), X, X.T.ravel()]
    for got, exp in zip(outs, want):
        np.testing.assert_allclose(got, exp, rtol=1e-12)
    with program_guard(Program(), Program()):
        x = static.data("x", [2, 3, 4], "float32")
        assert x.T.shape == (4, 3, 2) and x.dim() == x.ndimension() == 3
        v = static.data("v", [3], "float32")
        assert v.T is v


@pytest.mark.paddle("3")
def test_equality_builds_the_op_when_used_and_is_identity_as_a_truth_value():
    """Profile 3's truth value (1.8 and 2.0 give a script True: test_versions.py)."""
    main, startup = Program(), Program()
    with program_guard(main, startup):
        a = static.data("a", [None], "float32")
        b = static.data("b", [None], "float32")
        assert a in [b, a] and [b, a].index(a) == 1 and a != b and not (a == b)
        assert main.global_block().ops == []          # truth values append nothing
        eq, ne = a == b, a != b
        assert eq.dtype.name == "bool" and ne.dtype.name == "bool"
        assert [op.type for op in main.global_block().ops] == ["equal", "not_equal"]
    got = static.Executor().run(main, feed={"a": np.array([1, 2, 3], "float32"),
                                            "b": np.array([1, 5, 3], "float32")},
                                fetch_list=[eq, ne])
    np.testing.assert_array_equal(got[0], [True, False, True])
    np.testing.assert_array_equal(got[1], [False, True, False])


@pytest.mark.paddle("1.8")
def test_integer_variable_with_a_scalar_as_paddle_1_8_5():
    # Paddle 1.8.5: a / 7 and a / 2.5 are fill_constant (a's dtype) + elementwise_div
    # (truncating); a * 3 and a + 2 are scale ops
    def build():
        a = static.data("a", [None], "int64")
        return [a / 7, a * 3, a + 2, a / 2.5], None
    got, main = run(build, {"a": np.array([3, 4, 10, -14, 9, 18], "int64")})
    assert [op.type for op in main.global_block().ops] == [
        "fill_constant", "elementwise_div", "scale", "scale", "fill_constant",
        "elementwise_div"]
    assert [g.tolist() for g in got] == [[0, 0, 1, -2, 1, 2], [9, 12, 30, -42, 27, 54],
                                         [5, 6, 12, -12, 11, 20], [1, 2, 5, -7, 4, 9]]


def test_eager_equality_is_elementwise_like_paddle():
    """An eager Tensor's == / != run equal / not_equal now, as Paddle's dygraph does (the
    static Variable's identity truth value above does not apply)."""
    with paddle.fluid.dygraph.guard():
        t = paddle.to_tensor(np.array([1.0, 2.0, 3.0], "float32"))
        np.testing.assert_array_equal((t == 2.0).numpy(), [False, True, False])
        np.testing.assert_array_equal((t != t).numpy(), [False, False, False])
        np.testing.assert_array_equal((2.0 == t).numpy(), [False, True, False])
        assert (t == paddle.to_tensor(np.array([1.0, 0.0, 3.0], "float32"))).numpy().sum() == 2
        assert bool(t[1:2] == 2.0) and not bool(t[0:1] != 1.0)


def test_element_size_is_the_bytes_of_one_element():
    # Paddle 3.3.1: static Variables and eager Tensors (its test_variable / test_var_base)
    sizes = {"bool": 1, "float16": 2, "float32": 4, "float64": 8, "int8": 1, "int16": 2,
             "int32": 4, "int64": 8, "uint8": 1, "complex64": 8, "complex128": 16}
    with paddle.static.program_guard(paddle.static.Program()):
        assert {d: paddle.static.data("x_" + d, [2], d).element_size()
                for d in sizes} == sizes
    with paddle.fluid.dygraph.guard():
        assert {d: paddle.to_tensor(np.zeros(2, d)).element_size() for d in sizes} == sizes


def test_setitem_with_a_mask_of_the_leading_dims():
    # numpy's rule, which Paddle 3.3.1 follows (its test_var_base TestVarBaseSetitemBoolIndex):
    # a [4] mask of a [4, 2, 3] tensor selects rows, the value broadcasts over each
    with paddle.fluid.dygraph.guard():
        x = paddle.to_tensor(np.ones((4, 2, 3), "int32"))
        mask = np.array([True, False, True, False])
        x[paddle.to_tensor(mask)] = paddle.to_tensor(np.arange(6, dtype="int32").reshape(2, 3))
        want = np.ones((4, 2, 3), "int32")
        want[mask] = np.arange(6).reshape(2, 3)
        np.testing.assert_array_equal(x.numpy(), want)
        x[paddle.to_tensor(mask)] = 7
        want[mask] = 7
        np.testing.assert_array_equal(x.numpy(), want)
        with pytest.raises(IndexError, match=r"must have x's shape \[4, 2, 3\] or its leading "
                           r"dims, got \[2\]"):
            x[paddle.to_tensor(np.array([True, False]))] = 1
    main = Program()
    with program_guard(main, Program()):
        v = static.data("v", [4, 2], "float32")
        v[static.data("m", [4], "bool")] = 5.0
    out, = paddle.static.Executor().run(
        main, feed={"v": np.zeros((4, 2), "float32"), "m": mask}, fetch_list=[v])
    np.testing.assert_array_equal(out, [[5, 5], [0, 0], [5, 5], [0, 0]])
