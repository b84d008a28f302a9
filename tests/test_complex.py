"""complex64 / complex128 tensors: conj, real, imag, abs, elementwise ops, matmul and
reductions, forward against numpy and gradients (dL/dRe x + i dL/dIm x, Paddle's
convention) against finite differences and values recorded from Paddle 3.3.1."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl import static, versions
from refimpl.framework.program import Program, program_guard

RNG = np.random.RandomState(0)
XV = RNG.randn(2, 3) + 1j * RNG.randn(2, 3)
YV = RNG.randn(2, 3) + 1j * RNG.randn(2, 3)
MV = RNG.randn(3, 2) + 1j * RNG.randn(3, 2)

# name: (refimpl builder on (x, y, m), numpy twin)
CASES = {
    "add": (lambda x, y, m: x + y, lambda x, y, m: x + y),
    "mul": (lambda x, y, m: x * y, lambda x, y, m: x * y),
    "div": (lambda x, y, m: x / y, lambda x, y, m: x / y),
    "sub_scalar": (lambda x, y, m: (x - 1.5) * y, lambda x, y, m: (x - 1.5) * y),
    "matmul": (lambda x, y, m: paddle.matmul(x, m), lambda x, y, m: x @ m),
    "conj": (lambda x, y, m: paddle.conj(x) * y, lambda x, y, m: np.conj(x) * y),
    "mean": (lambda x, y, m: paddle.mean(x) * y, lambda x, y, m: x.mean() * y),
    "sum": (lambda x, y, m: paddle.sum(x, axis=1) * 2.0, lambda x, y, m: x.sum(1) * 2.0),
    "abs": (lambda x, y, m: paddle.abs(x * y), lambda x, y, m: np.abs(x * y)),
    "real_imag": (lambda x, y, m: paddle.real(x) * paddle.imag(y),
                  lambda x, y, m: x.real * y.imag),
}


def _loss_np(z):
    """The real loss the tests differentiate: sum(1.5 Re z + 0.5 Im z)."""
    return float(np.sum(np.real(z) * 1.5 + np.imag(z) * 0.5))


def _run(case, dtype):
    # a static paddle.mean of a complex x: Paddle 3 builds it, 2.0 checks for float32 /
    # float64 (switch mean_dtypes)
    with versions.use("3" if case == "mean" else versions.current()):
        return _run_as_built(case, dtype)


def _run_as_built(case, dtype):
    build, _ = CASES[case]
    main, startup = Program(), Program()
    with program_guard(main, startup):
        x = static.data("x", [2, 3], dtype)
        y = static.data("y", [2, 3], dtype)
        m = static.data("m", [3, 2], dtype)
        x.stop_gradient = y.stop_gradient = False
        z = build(x, y, m)
        loss = paddle.sum(paddle.real(z) * 1.5 + paddle.imag(z) * 0.5) if \
            z.dtype.name.startswith("complex") else paddle.sum(z * 1.5)
        grads = static.gradients(loss, [x, y])
    feed = {"x": XV.astype(dtype), "y": YV.astype(dtype), "m": MV.astype(dtype)}
    got = static.Executor().run(main, feed=feed,
                                fetch_list=[z, loss] + [g for g in grads if g is not None])
    got = iter(got)
    z_value, loss_value = next(got), next(got)
    # an input the case does not use gets no gradient: zeros
    return [z_value, loss_value] + [np.zeros_like(XV) if g is None else next(got)
                                    for g in grads], z


@pytest.mark.parametrize("case", sorted(CASES))
def test_complex_forward_and_gradient_match_numpy_and_finite_differences(case):
    (z, loss, gx, gy), zvar = _run(case, "complex128")
    want = CASES[case][1](XV, YV, MV)
    np.testing.assert_allclose(z, want, rtol=1e-12)
    assert zvar.dtype.name == np.asarray(want).dtype.name or \
        (zvar.dtype.name, np.asarray(want).dtype.name) == ("float64", "float64")
    f = CASES[case][1]
    for value, grad, which in ((XV, gx, 0), (YV, gy, 1)):
        numeric = np.zeros_like(value)
        for idx in np.ndindex(value.shape):
            for unit in (1, 1j):
                step = np.zeros_like(value)
                step[idx] = 1e-6 * unit
                args = [XV, YV, MV]
                plus, minus = list(args), list(args)
                plus[which], minus[which] = value + step, value - step
                slope = (_loss_np(f(*plus)) - _loss_np(f(*minus))) / 2e-6
                numeric[idx] += slope * unit
        np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-7)


def test_complex_gradients_match_paddle():
    # Paddle 3.3.1, the same inputs and loss: the first three entries of dL/dx (and dL/dy)
    recorded = {
        "mul": ([1.29809044 - 0.08908269j, -0.24453534 + 1.34198112j,
                 -0.61070006 + 4.05141634j],
                [3.12112273 - 0.54310645j, 0.52455721 + 0.42711442j,
                 1.41649755 + 0.64419727j]),
        "div": ([1.45457408 + 1.25536505j, 0.8189886 - 1.63956976j,
                 0.28925627 - 0.53725627j],
                [-3.83914542 - 2.67328156j, 0.51649024 + 0.74784222j,
                 0.16619298 + 0.1615079j]),
        "matmul": ([1.4896384 - 0.39197044j, -1.64642911 + 4.23216066j,
                    4.40742539 + 1.78841376j], None),
        "mean": ([0.54411544 + 0.82529628j] * 3, [1.79389921 - 0.15326358j] * 3),
    }
    for case, (gx_want, gy_want) in recorded.items():
        (_, _, gx, gy), _ = _run(case, "complex128")
        np.testing.assert_allclose(gx.ravel()[:3], gx_want, atol=1e-8)
        if gy_want is not None:
            np.testing.assert_allclose(gy.ravel()[:3], gy_want, atol=1e-8)


def test_complex64_keeps_its_precision_and_parts_are_float32():
    main = Program()
    with program_guard(main, Program()):
        x = static.data("x", [2, 3], "complex64")
        parts = [paddle.real(x), paddle.imag(x), paddle.abs(x), paddle.conj(x),
                 paddle.matmul(x, paddle.conj(x).T), paddle.sum(x)]
    got = static.Executor().run(main, feed={"x": XV.astype("complex64")}, fetch_list=parts)
    assert [g.dtype.name for g in got] == ["float32", "float32", "float32", "complex64",
                                           "complex64", "complex64"]
    x64 = XV.astype("complex64")
    for g, want in zip(got, [x64.real, x64.imag, np.abs(x64), np.conj(x64),
                             x64 @ np.conj(x64).T, x64.sum()]):
        np.testing.assert_allclose(g, want, rtol=1e-5)
    assert paddle.complex64 == "complex64" and paddle.complex128 == np.complex128


def test_conj_copies_a_real_tensor_and_real_imag_refuse_it():
    """Paddle 2.0 (test_real_imag_op) and 3.3.1 (measured): real / imag of a float32 tensor
    are a TypeError statically, a RuntimeError (no kernel) eagerly; conj copies it."""
    main = Program()
    with program_guard(main, Program()):
        r = static.data("r", [3], "float32")
        for part in (paddle.real, paddle.imag):
            with pytest.raises(TypeError, match="'x' in %s must be" % part.__name__):
                part(r)
        conj = paddle.conj(r)
    got, = static.Executor().run(main, feed={"r": np.array([1, -2, 3], "float32")},
                                 fetch_list=[conj])
    np.testing.assert_array_equal(got, [1, -2, 3])
    with paddle.fluid.dygraph.guard():
        eager = paddle.to_tensor(np.array([1, -2, 3], "float32"))
        for part in (paddle.real, paddle.imag):
            with pytest.raises(RuntimeError, match="%s op has no kernel for float32"
                               % part.__name__):
                part(eager)


@pytest.mark.parametrize("op, fn, dx, dy", [
    ("add", np.add, lambda x, y, g: g, lambda x, y, g: g),
    ("sub", np.subtract, lambda x, y, g: g, lambda x, y, g: -g),
    ("mul", np.multiply, lambda x, y, g: g * np.conj(y), lambda x, y, g: g * np.conj(x)),
    ("div", np.divide, lambda x, y, g: g / np.conj(y),
     lambda x, y, g: -g * np.conj(x / y / y))])


def test_a_real_operand_with_a_complex_one_is_promoted_and_gets_a_real_gradient(op, fn, dx,
                                                                                  dy):
    # Paddle 2.0's TestRealComplexElementwise{Add,Sub,Mul,Div}Op: float64 X, complex128 Y
    # give a complex128 Out; X's gradient is the real part of the complex one
    x = RNG.rand(2, 3)
    y = YV
    g = np.full((2, 3), 1 + 1j)
    main = Program()
    with program_guard(main, Program()):
        xv = static.data("x", [2, 3], "float64")
        yv = static.data("y", [2, 3], "complex128")
        gv = static.data("g", [2, 3], "complex128")
        xv.stop_gradient = yv.stop_gradient = False
        out = main.global_block().create_var(name="out", dtype="complex128")
        main.global_block().append_op(type="elementwise_" + op, inputs={"X": [xv], "Y": [yv]},
                                      outputs={"Out": [out]}, attrs={"axis": -1})
        gx, gy = paddle.static.gradients([out], [xv, yv], target_gradients=[gv])
    assert out.dtype.name == "complex128" and gx.dtype.name == "float64"
    got_out, got_gx, got_gy = static.Executor().run(
        main, feed={"x": x, "y": y, "g": g}, fetch_list=[out, gx, gy])
    np.testing.assert_allclose(got_out, fn(x, y))
    assert got_gx.dtype == np.float64
    np.testing.assert_allclose(got_gx, np.real(dx(x, y, g)), rtol=1e-12)
    np.testing.assert_allclose(got_gy, dy(x, y, g), rtol=1e-12)


@pytest.mark.parametrize("x_dtype, y_dtype, out_dtype", [
    ("float32", "complex128", "complex128"), ("float64", "complex64", "complex128"),
    ("complex64", "complex128", "complex128"), ("float32", "complex64", "complex64")])
def test_mixed_widths_promote_as_paddle_20s_table(x_dtype, y_dtype, out_dtype):
    # Paddle 2.0's PromoteTypesIfComplexExists: float32 with complex64 stays complex64, any
    # other float / complex pair is complex128 (3.3.1 measured the same); each operand's
    # gradient comes back in its own dtype: X * Y gives dX = g * conj(Y), real part for a
    # real X, dY = g * conj(X)
    x = (XV if x_dtype.startswith("complex") else XV.real).astype(x_dtype)
    y = YV.astype(y_dtype)
    g = np.full((2, 3), 1 - 2j)
    main = Program()
    with program_guard(main, Program()):
        xv, yv = static.data("x", [2, 3], x_dtype), static.data("y", [2, 3], y_dtype)
        gv = static.data("g", [2, 3], out_dtype)
        xv.stop_gradient = yv.stop_gradient = False
        out = main.global_block().create_var(name="out", dtype=out_dtype)
        main.global_block().append_op(type="elementwise_mul", inputs={"X": [xv], "Y": [yv]},
                                      outputs={"Out": [out]}, attrs={"axis": -1})
        gx, gy = paddle.static.gradients([out], [xv, yv], target_gradients=[gv])
    assert out.dtype.name == out_dtype
    got_out, got_gx, got_gy = static.Executor().run(
        main, feed={"x": x, "y": y, "g": g.astype(out_dtype)}, fetch_list=[out, gx, gy])
    assert (got_out.dtype, got_gx.dtype, got_gy.dtype) == (out_dtype, x_dtype, y_dtype)
    tol = 1e-6     # a float32 / complex64 operand's rounding
    np.testing.assert_allclose(got_out, x.astype(out_dtype) * y.astype(out_dtype), rtol=tol)
    dx = g * np.conj(y.astype("complex128"))
    np.testing.assert_allclose(got_gx, dx if x_dtype.startswith("complex") else dx.real,
                               rtol=tol)
    np.testing.assert_allclose(got_gy, g * np.conj(x.astype("complex128")), rtol=tol)


def test_kron_of_a_real_and_a_complex_operand():
    # Paddle 2.0's kron promotes the pair (its test_complex_kron) and its gradients carry
    # the other operand's conjugate (test_kron_op's numpy reference); the real operand's is
    # the real part. Out[2i + k, 2j + l] = X[i, j] * Y[k, l] for a 2 x 2 Y.
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    y = np.array([[1 + 1j, 2j], [0.5, -1 - 1j]])
    g = np.ones((4, 4), "complex128")
    main = Program()
    with program_guard(main, Program()):
        xv, yv = static.data("x", [2, 2], "float64"), static.data("y", [2, 2], "complex128")
        gv = static.data("g", [4, 4], "complex128")
        xv.stop_gradient = yv.stop_gradient = False
        out = paddle.kron(xv, yv)
        gx, gy = paddle.static.gradients([out], [xv, yv], target_gradients=[gv])
    assert out.dtype.name == "complex128"
    got_out, got_gx, got_gy = static.Executor().run(
        main, feed={"x": x, "y": y, "g": g}, fetch_list=[out, gx, gy])
    np.testing.assert_allclose(got_out, np.kron(x, y))
    # each X[i, j] meets every Y[k, l] once: dX = sum(conj(Y)) real part, dY = sum(X)
    assert got_gx.dtype == np.float64
    np.testing.assert_allclose(got_gx, np.full((2, 2), np.conj(y).sum().real))
    np.testing.assert_allclose(got_gy, np.full((2, 2), x.sum()))


@pytest.mark.paddle("2.0")
def test_eager_operators_promote_a_complex_operand_under_20():
    # Paddle 2.0's dygraph math_op_patch promotes + - * / @ with a complex operand
    # (core._promote_types_if_complex_exists) where it casts other pairs to the left
    # operand's dtype (its test_complex_elementwise_layers: var_x + var_y)
    r = np.array([[1.0, 2.0], [3.0, 4.0]])
    c = np.array([[1 + 1j, 2j], [0.5, -1 - 1j]])
    with paddle.fluid.dygraph.guard():
        a32, c64 = paddle.to_tensor(r.astype("float32")), paddle.to_tensor(c.astype("complex64"))
        a64 = paddle.to_tensor(r)
        assert (a32 + c64).dtype.name == "complex64"
        np.testing.assert_allclose((a32 + c64).numpy(), r + c, rtol=1e-6)
        assert (c64 - a64).dtype.name == "complex128"
        np.testing.assert_allclose((c64 - a64).numpy(), c - r, rtol=1e-6)
        np.testing.assert_allclose((a64 @ c64).numpy(), r @ c, rtol=1e-6)
        # other pairs: the right operand takes the left's dtype, as before
        assert (a32 * a64).dtype.name == "float32"
        # fluid.layers.elementwise_add's dygraph branch checks no dtype (2.0's
        # test_complex_variable)
        np.testing.assert_allclose(
            paddle.fluid.layers.elementwise_add(c64, c64).numpy(), 2 * c, rtol=1e-6)


def test_dot_of_complex_rows_conjugates_the_other_operand_in_its_gradient():
    # Paddle 2.0's test_dot_op (TestComplexDotOp2D): Out = sum(X * Y) per row,
    # dX = dOut * conj(Y), dY = dOut * conj(X)
    x = np.array([[1 + 2j, 3 - 1j], [0.5j, 2.0]])
    y = np.array([[2 - 1j, 1j], [4.0, 1 + 1j]])
    g = np.array([[1 + 1j], [2 - 1j]])
    # Out [2, 1] keeps the reduced dim (1.8, 2.0), or is [2] (3; switch dot_keeps_last_dim)
    out_shape = [2, 1] if versions.switch("dot_keeps_last_dim") else [2]
    main = Program()
    with program_guard(main, Program()):
        xv, yv = static.data("x", [2, 2], "complex128"), static.data("y", [2, 2], "complex128")
        gv = static.data("g", out_shape, "complex128")
        xv.stop_gradient = yv.stop_gradient = False
        out = main.global_block().create_var(name="out", dtype="complex128")
        main.global_block().append_op(type="dot", inputs={"X": [xv], "Y": [yv]},
                                      outputs={"Out": [out]})
        gx, gy = paddle.static.gradients([out], [xv, yv], target_gradients=[gv])
    got_out, got_gx, got_gy = static.Executor().run(
        main, feed={"x": x, "y": y, "g": g.reshape(out_shape)}, fetch_list=[out, gx, gy])
    np.testing.assert_allclose(got_out, np.reshape([(1 + 2j) * (2 - 1j) + (3 - 1j) * 1j,
                                                    0.5j * 4 + 2 * (1 + 1j)], out_shape))
    np.testing.assert_allclose(got_gx, g * np.conj(y))
    np.testing.assert_allclose(got_gy, g * np.conj(x))
