"""Paddle 3's special functions (refimpl/layers/special_functions.py, ops/special.py):
values against scipy.special and Paddle 3.3.1's recorded ones (2026-11-28, eager, CPU),
gradients against 3.3.1's kernels and central differences, static == dynamic."""
import numpy as np
import pytest
import scipy.special as sp

import refimpl as paddle
from helpers import central_differences, eager_tensor, eager_value_and_grads


_t = eager_tensor
_grads = eager_value_and_grads


X = np.array([0.3, 1.0, 2.5, 7.25])


@pytest.mark.parametrize("name, reference", [
    ("digamma", sp.psi), ("lgamma", sp.gammaln), ("gammaln", sp.gammaln), ("i0", sp.i0),
    ("i0e", sp.i0e), ("i1", sp.i1), ("i1e", sp.i1e), ("erfinv", lambda x: sp.erfinv(x / 8)),
    ("expm1", np.expm1), ("asinh", np.arcsinh), ("acosh", lambda x: np.arccosh(x + 1)),
    ("atanh", lambda x: np.arctanh(x / 8)),
])
def test_unary_special_functions_match_scipy_in_both_dtypes(name, reference):
    paddle.disable_static()
    shift = {"acosh": 1.0}.get(name, 0.0)
    scale = {"erfinv": 8.0, "atanh": 8.0}.get(name, 1.0)
    for dtype, rtol in (("float64", 1e-12), ("float32", 1e-5)):
        x = (X / scale + shift).astype(dtype)
        out = getattr(paddle, name)(paddle.to_tensor(x))
        assert out.dtype == getattr(paddle, dtype)
        np.testing.assert_allclose(out.numpy(), reference(X).astype(dtype), rtol=rtol)


@pytest.mark.parametrize("name, reference", [("acosh", np.arccosh), ("asinh", np.arcsinh),
                                             ("atanh", np.arctanh), ("expm1", np.expm1)])
def test_complex_inputs_as_3_3_1s_kernels(name, reference):
    z = np.array([0.5 + 2j, -1.5 - 0.25j, 3j], "complex128")
    out = getattr(paddle, name)(_t(z, "complex128"))
    np.testing.assert_allclose(out.numpy(), reference(z), rtol=1e-14)


def test_values_at_poles_and_bounds_are_3_3_1s():
    # 3.3.1: lgamma(0) = lgamma(-1) = inf, digamma(0) = -inf, digamma(-1) = nan,
    # erfinv(1) = inf, and +-inf beyond [-1, 1]
    out, (grad,) = _grads(paddle.lgamma, [0., -1., -1.5, 2.])
    np.testing.assert_allclose(out, [np.inf, np.inf, 0.8600470153764809, 0.0])
    np.testing.assert_allclose(grad[2:], [0.7031566406452434, 0.42278433509846747])
    out, _ = _grads(paddle.digamma, [0., -1., -1.5, 2.])
    np.testing.assert_allclose(out, [-np.inf, np.nan, 0.7031566406452434,
                                     0.42278433509846747])
    out, (grad,) = _grads(paddle.erfinv, [0., 0.5, -0.9, 1.])
    np.testing.assert_allclose(out, [0., 0.4769362762044699, -1.1630871536766743, np.inf])
    beyond = paddle.erfinv(_t([2., -2., 1.5, np.nan])).numpy()       # scipy: NaN
    np.testing.assert_array_equal(beyond, [np.inf, -np.inf, np.inf, np.nan])
    np.testing.assert_allclose(grad, [0.886226925452758, 1.1125848189719498,
                                      3.428042811451842, np.inf])


def test_bessel_gradients_at_zero_are_3_3_1s():
    # 3.3.1: i1' = 1/2 at 0; i0e' takes sign(0) as 1 (-1 there); i1e' = 1/2 at 0
    _, (g,) = _grads(paddle.i1, [0., 1., -2.])
    np.testing.assert_allclose(g, [0.5, 0.700906773759523, 1.484266875017402])
    _, (g,) = _grads(paddle.i0e, [0., 1., -2.])
    np.testing.assert_allclose(g, [-1., -0.25784919224393194, 0.0932390333047333])
    _, (g,) = _grads(paddle.i1e, [0., 1., -2.])
    np.testing.assert_allclose(g, [0.5, 0.04993877689422344, -0.01439561131973555])


def test_integer_inputs_are_cast_to_float32_as_3_3_1_autocasts():
    paddle.disable_static()
    out = paddle.acosh(paddle.to_tensor(np.array([1, 2, -3], "int32")))
    assert out.dtype == paddle.float32
    np.testing.assert_allclose(out.numpy(), [0., 1.316958, np.nan], rtol=1e-6)
    out = paddle.i1(paddle.to_tensor(np.array([1, 2, -3], "int32")))
    np.testing.assert_allclose(out.numpy(), [0.5651591, 1.5906368, -3.9533706], rtol=1e-6)
    with pytest.raises(Exception, match="gammaln.*int32"):
        paddle.gammaln(paddle.to_tensor(np.array([1, 2], "int32")))   # 3.3.1: no kernel


def test_polygamma_orders_and_errors():
    out, (g,) = _grads(paddle.polygamma, [0.5, 1., 3.], n=1)
    np.testing.assert_allclose(out, sp.polygamma(1, [0.5, 1., 3.]), rtol=1e-12)
    np.testing.assert_allclose(g, sp.polygamma(2, [0.5, 1., 3.]), rtol=1e-12)
    np.testing.assert_allclose(paddle.polygamma(_t([0.5]), 0).numpy(), sp.psi([0.5]))
    with pytest.raises(ValueError, match="n must be >= 0"):
        paddle.polygamma(_t([1.]), -1)
    with pytest.raises(TypeError, match="n must be an int"):
        paddle.polygamma(_t([1.]), 1.5)
    with pytest.raises(ValueError, match="must be a Tensor"):     # 3.3.1: eager parsing
        paddle.polygamma(np.array([1.]), 1)


def test_logit_clips_with_eps_and_its_gradient_is_3_3_1s():
    x = [0.05, 0.3, 0.95, 1.5, -0.2]
    out, (g,) = _grads(paddle.logit, x, eps=0.1)
    np.testing.assert_allclose(out, [-2.197224577336219, -0.8472978603872034,
                                     2.1972245773362196, 2.1972245773362196,
                                     -2.197224577336219], rtol=1e-7)
    np.testing.assert_allclose(g, [0., 4.761904761904762, 0., 0., 0.])
    out, (g,) = _grads(paddle.logit, x)
    np.testing.assert_allclose(g, [21.05263157894737, 4.761904761904762, 21.05263157894735,
                                   np.nan, np.nan])


def test_incomplete_gamma_functions_and_their_gradients():
    x, y = [1., 2., 0.5], [0.5, 1., 3.]
    out, (gx, gy) = _grads(paddle.gammaincc, x, y)
    np.testing.assert_allclose(out, sp.gammaincc(x, y), rtol=1e-12)
    assert gx is None                           # 3.3.1: no gradient for x
    np.testing.assert_allclose(gy, [-0.6065306597126334, -0.36787944117144233,
                                    -0.01621739110988048], rtol=1e-12)
    out, (_, gy) = _grads(paddle.gammainc, x, y)
    np.testing.assert_allclose(out, sp.gammainc(x, y), rtol=1e-12)
    np.testing.assert_allclose(gy, [0.6065306597126334, 0.36787944117144233,
                                    0.01621739110988048], rtol=1e-12)
    # 3.3.1's kernel: 1 where either argument is 0; a negative one is refused
    np.testing.assert_allclose(paddle.gammaincc(_t([0., 1.]), _t([1., 0.])).numpy(), [1, 1])
    with pytest.raises(ValueError, match="greater than or equal to 0"):
        paddle.gammaincc(_t([-1.]), _t([1.]))


def test_multigammaln_sinc_and_their_gradients_by_central_differences():
    x = np.array([2.5, 3.0, 4.2])
    out, (g,) = _grads(paddle.multigammaln, x, p=3)
    np.testing.assert_allclose(out, sp.multigammaln(x[:2], 3).tolist() +
                               [sp.multigammaln(4.2, 3)], rtol=1e-12)
    np.testing.assert_allclose(out[:2], [1.8809954616117743, 2.694924879806965])  # 3.3.1
    np.testing.assert_allclose(g, central_differences(
        lambda v: sum(sp.multigammaln(e, 3) for e in v), x), rtol=1e-6)
    with pytest.raises(AssertionError, match="p must be >= 1"):
        paddle.multigammaln(_t([2.5]), 0)
    x = np.array([0., 0.5, -2., 1.3])
    out, (g,) = _grads(paddle.sinc, x)
    np.testing.assert_allclose(out, np.sinc(x), atol=1e-15)
    np.testing.assert_allclose(g[1:], central_differences(lambda v: np.sinc(v).sum(), x)[1:],
                               rtol=1e-6)
    assert g[0] == 0                            # 3.3.1: 0 at 0


def test_in_place_twins_change_the_tensor():
    paddle.disable_static()
    x = _t([1.5, 2.0])
    assert paddle.acosh_(x) is x
    np.testing.assert_allclose(x.numpy(), np.arccosh([1.5, 2.0]))
    y = _t([1., 2.])
    assert y.polygamma_(1) is y                 # 3.3.1: [1.6449..., 0.6449...]
    np.testing.assert_allclose(y.numpy(), [1.6449340668482266, 0.6449340668482266])
    z = _t([0.5])
    z.erfinv_()
    np.testing.assert_allclose(z.numpy(), [0.4769362762044699])
    assert hasattr(paddle, "expm1_") and not hasattr(paddle, "erfinv_")   # as 3.3.1
    leaf = _t([1.5], grad=True)
    with pytest.raises(ValueError, match="in-place"):
        paddle.digamma_(leaf)


def test_static_programs_compute_what_dynamic_mode_does():
    rng = np.random.RandomState(0)
    xv, yv = rng.uniform(0.2, 0.9, (2, 3)), rng.uniform(0.2, 0.9, (2, 3))

    def build(x, y):
        return [paddle.acosh(x + 1), paddle.gammaln(x), paddle.polygamma(x, 2),
                paddle.logit(x, 0.3), paddle.gammainc(x, y), paddle.multigammaln(x + 1, 2),
                paddle.sinc(x), paddle.i1e(x)]
    paddle.disable_static()
    eager = [v.numpy() for v in build(paddle.to_tensor(xv), paddle.to_tensor(yv))]
    paddle.enable_static()
    try:
        main, start = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, start):
            x = paddle.static.data("x", [2, 3], "float64")
            y = paddle.static.data("y", [2, 3], "float64")
            outs = build(x, y)
        got = paddle.static.Executor(paddle.CPUPlace()).run(main, feed={"x": xv, "y": yv},
                                                            fetch_list=outs)
    finally:
        paddle.disable_static()
    for e, s in zip(eager, got):
        np.testing.assert_allclose(s, e, rtol=1e-12)
