"""Paddle 3's element-wise math beyond 2.0's (refimpl/layers/elementwise_math.py,
math_aliases.py, in_place_functions.py; ops/binary_math.py): values and gradients against
numpy and Paddle 3.3.1's recorded ones (2026-11-28, eager, CPU), its errors, the in-place
twins, static == dynamic."""
import math

import numpy as np
import pytest

import refimpl as paddle
from helpers import central_differences, eager_tensor, eager_value_and_grads


_t = eager_tensor
_grads = eager_value_and_grads


def test_fmax_fmin_ignore_nan_and_route_gradients_as_3_3_1():
    x, y = [1., np.nan, 2., np.nan, 3.], [1., 1., np.nan, np.nan, 2.]
    out, (gx, gy) = _grads(paddle.fmax, x, y)
    np.testing.assert_array_equal(out, [1., 1., 2., np.nan, 3.])
    np.testing.assert_array_equal(gx, [1., 0., 1., 1., 1.])
    np.testing.assert_array_equal(gy, [0., 1., 0., 0., 0.])
    out, (gx, gy) = _grads(paddle.fmin, x, y)
    np.testing.assert_array_equal(out, [1., 1., 2., np.nan, 2.])
    np.testing.assert_array_equal(gx, [1., 0., 1., 1., 0.])
    np.testing.assert_array_equal(gy, [0., 1., 0., 0., 1.])
    ints = paddle.fmax(_t([-1, 0, 3], "int64"), _t([5, -5, 2], "int64"))
    np.testing.assert_array_equal(ints.numpy(), [5, 0, 3])


def test_copysign_heaviside_and_their_gradients_are_3_3_1s():
    out, (gx, gy) = _grads(paddle.copysign, [1., -2., 0., 3.], [-1., -1., 1., 0.])
    np.testing.assert_array_equal(out, [-1., -2., 0., 3.])
    np.testing.assert_array_equal(gx, [-1., 1., 0., 1.])
    np.testing.assert_array_equal(gy, [0., 0., 0., 0.])
    np.testing.assert_array_equal(paddle.copysign(_t([1., -2.]), -1.0).numpy(), [-1., -2.])
    ints = paddle.copysign(_t([1, -2], "int32"), _t([-1, 1], "int32"))
    assert ints.dtype == paddle.int32 and ints.numpy().tolist() == [-1, 2]
    out, (gx, gy) = _grads(paddle.heaviside, [1., -2., 0., 3.], [-1., -1., 7., 0.])
    np.testing.assert_array_equal(out, [1., 0., 7., 1.])
    np.testing.assert_array_equal(gx, [0., 0., 0., 0.])
    np.testing.assert_array_equal(gy, [0., 0., 1., 0.])


def test_atan2_broadcasts_eagerly_and_gives_float64_for_integers():
    out, (g1, g2) = _grads(paddle.atan2, [1., -2., 3.], [2., 1., -1.])
    np.testing.assert_allclose(out, np.arctan2([1., -2., 3.], [2., 1., -1.]))
    np.testing.assert_allclose(g1, [0.4, 0.2, -0.1])
    np.testing.assert_allclose(g2, [-0.2, 0.4, -0.3])
    out = paddle.atan2(_t([[1.], [2.]], "float32"), _t([1., -1.], "float32"))
    np.testing.assert_allclose(out.numpy(), [[0.7853982, 2.3561945], [1.1071488, 2.0344439]],
                               rtol=1e-6)
    ints = paddle.atan2(_t([1, 2], "int32"), _t([1, 1], "int32"))
    assert ints.dtype == paddle.float64


def test_atan2_op_refuses_what_3_3_1s_legacy_op_refuses():
    paddle.enable_static()
    try:
        with paddle.static.program_guard(paddle.static.Program()):
            x = paddle.static.data("X", (1,), "float64")
            y = paddle.static.data("Y", (0,), "float64")
            with pytest.raises(ValueError, match="count"):
                paddle.atan2(x, y)
    finally:
        paddle.disable_static()


def test_nextafter_and_isclose_values_are_3_3_1s():
    out = paddle.nextafter(_t([1., 0., 2.], "float32"), _t([2., -1., 2.], "float32"))
    np.testing.assert_array_equal(out.numpy(), np.array([1.0000001, -1.4e-45, 2.],
                                                        "float32"))
    out = paddle.isclose(_t([1., np.nan, 1e-9, 2.]), _t([1.00001, np.nan, 0., 2.1]),
                         equal_nan=True)
    np.testing.assert_array_equal(out.numpy(), [True, True, True, False])
    rtol = _t([0.01])                                   # a 1-element float64 tensor
    assert paddle.isclose(_t([10.1]), _t([10.]), rtol, _t([0.])).numpy().tolist() == [True]
    with pytest.raises(ValueError, match="rtol must be a float"):
        paddle.isclose(_t([1.]), _t([1.]), rtol=True)
    with pytest.raises(TypeError, match="equal_nan must be a bool"):
        paddle.isclose(_t([1.]), _t([1.]), equal_nan=1)
    with pytest.raises(TypeError, match="one dtype"):
        paddle.isclose(_t([1.], "float32"), _t([1.]))


@pytest.mark.paddle("3")      # (to_tensor of int8: Paddle 3's)
def test_shifts_are_3_3_1s_for_wide_negative_and_logical_shifts():
    x8, y8 = _t([1, -8, 127], "int8"), _t([2, 1, 1], "int8")
    assert paddle.bitwise_left_shift(x8, y8).numpy().tolist() == [4, -16, -2]
    assert paddle.bitwise_right_shift(x8, y8).numpy().tolist() == [0, -4, 63]
    assert paddle.bitwise_right_shift(x8, y8, is_arithmetic=False).numpy().tolist() == \
        [0, 124, 63]
    x, y = _t([1, 1, -1], "int32"), _t([31, 32, 40], "int32")
    assert paddle.bitwise_left_shift(x, y).numpy().tolist() == [-2147483648, 0, 0]
    x = _t([-1, 5, -5], "int32")
    assert paddle.bitwise_right_shift(x, y).numpy().tolist() == [-1, 0, -1]
    assert paddle.bitwise_right_shift(x, y, False).numpy().tolist() == [1, 0, 0]
    assert paddle.bitwise_left_shift(_t([4], "int32"), _t([-1], "int32")).numpy() == [0]
    assert paddle.bitwise_invert(_t([1, -2], "int32")).numpy().tolist() == [-2, 1]
    with pytest.raises(Exception, match="bitwise_left_shift.*float32"):
        paddle.bitwise_left_shift(_t([1.], "float32"), _t([1.], "float32"))


def test_lerp_broadcasts_and_gives_weight_no_gradient():
    out = paddle.lerp(_t([[1.], [2.]]), _t([1., -1., 3.]), _t([[0.5], [0.25]]))
    np.testing.assert_allclose(out.numpy(), [[1., 0., 2.], [1.75, 1.25, 2.25]])
    out, (gx, gy, gw) = _grads(paddle.lerp, [1., -2., 0.], [2., 1., 5.], [0.5, 0.25, 1.])
    np.testing.assert_allclose(gx, [0.5, 0.75, 0.])
    np.testing.assert_allclose(gy, [0.5, 0.25, 1.])
    assert gw is None
    out, (gx, gy) = _grads(paddle.lerp, [1., -2.], [2., 1.], weight=0.25)
    np.testing.assert_allclose(out, [1.25, -1.25])


def test_composed_math_values_are_3_3_1s():
    paddle.disable_static()
    np.testing.assert_array_equal(paddle.gcd(_t([[12], [-7], [0]], "int64"),
                                             _t([18, 0, -4], "int64")).numpy(),
                                  [[6, 12, 4], [1, 7, 1], [18, 0, 4]])
    np.testing.assert_array_equal(paddle.lcm(_t([[12], [-7], [0]], "int64"),
                                             _t([18, 0, -4], "int64")).numpy(),
                                  [[36, 0, 12], [126, 0, 28], [0, 0, 0]])
    isin = paddle.isin(_t([[1, 2], [3, 4]], "int64"), _t([2, 4, 5], "int64"))
    assert isin.numpy().tolist() == [[False, True], [False, True]]
    assert paddle.isin(_t([1., 2.5]), _t([2.5]), invert=True).numpy().tolist() == [True, False]
    mantissa, exponent = paddle.frexp(_t([0., 1., -3., 0.3, np.inf, 1e-40], "float32"))
    np.testing.assert_allclose(mantissa.numpy(), [0., 0.5, -0.75, 0.6, np.inf, 0.54444885],
                               rtol=1e-6)
    np.testing.assert_array_equal(exponent.numpy(), [0., 1., 2., -1., 1., -132.])
    np.testing.assert_array_equal(paddle.ldexp(_t([1., -3.]), _t([2, -1], "int64")).numpy(),
                                  [4., -1.5])
    with pytest.raises(TypeError, match="y must be tensor type, but got <class 'int'>"):
        paddle.ldexp(_t([1.]), 1)
    out = paddle.nan_to_num(_t([np.nan, np.inf, -np.inf, 1.], "float32"))
    np.testing.assert_array_equal(out.numpy(), np.array([0., 3.4028235e+38, -3.4028235e+38,
                                                         1.], "float32"))
    out = paddle.nan_to_num(_t([np.nan, np.inf, -np.inf, 1.]))
    assert out.numpy()[1] == np.finfo("float64").max
    np.testing.assert_array_equal(
        paddle.nan_to_num(_t([np.nan, np.inf, -np.inf]), nan=1., posinf=2., neginf=-2.)
        .numpy(), [1., 2., -2.])
    x = _t([-0., 0., -1., np.inf, -np.inf, np.nan], "float32")
    assert paddle.signbit(x).numpy().tolist() == [True, False, True, False, True, False]
    assert paddle.isneginf(x).numpy().tolist() == [False] * 4 + [True, False]
    assert paddle.isposinf(x).numpy().tolist() == [False] * 3 + [True, False, False]
    z = paddle.to_tensor(np.array([3 + 4j, 0j, 1 + 0j], "complex64"))
    np.testing.assert_allclose(paddle.sgn(z).numpy(), [0.6 + 0.8j, 0, 1])
    assert paddle.isreal(z).numpy().tolist() == [False, True, True]
    np.testing.assert_array_equal(paddle.frac(_t([1.5, -2.25])).numpy(), [0.5, -0.25])
    np.testing.assert_array_equal(paddle.trunc(_t([1, -2], "int32")).numpy(), [1, -2])
    np.testing.assert_allclose(paddle.deg2rad(_t([180.])).numpy(), [math.pi])
    assert paddle.deg2rad(_t([1], "int32")).dtype == paddle.float32
    assert paddle.neg(_t([1, -2], "int32")).numpy().tolist() == [-1, 2]
    with pytest.raises(TypeError, match="bool"):
        paddle.positive(paddle.to_tensor([True]))
    np.testing.assert_allclose(paddle.logaddexp(_t([1000., -np.inf, 1.]),
                                                _t([1000., -np.inf, 2.])).numpy(),
                               [1000.6931471805599, np.nan, 2.313261687518223])


def test_composed_gradients_match_central_differences():
    x, y = np.array([3., -5., 0.7]), np.array([4., 12., -0.2])
    _, (gx, gy) = _grads(paddle.hypot, x, y)
    np.testing.assert_allclose(gx, central_differences(lambda v: np.hypot(v, y).sum(), x),
                               rtol=1e-6)
    _, (gx, gy) = _grads(paddle.logaddexp, x, y)
    np.testing.assert_allclose(gy, central_differences(lambda v: np.logaddexp(x, v).sum(), y),
                               rtol=1e-6)
    _, (gx,) = _grads(paddle.nan_to_num, [np.nan, 1.5, np.inf])
    np.testing.assert_array_equal(gx, [0., 1., 0.])


def test_aliases_take_3_3_1s_keywords():
    paddle.disable_static()
    a, b = _t([7., -7.], "float32"), _t([2., 2.], "float32")
    assert paddle.div(a, b, rounding_mode="floor").numpy().tolist() == [3., -4.]
    assert paddle.div(a, b, rounding_mode="trunc").numpy().tolist() == [3., -3.]
    i, j = _t([7, -7], "int32"), _t([2, 2], "int32")
    assert paddle.div(i, j, rounding_mode="trunc").numpy().tolist() == [3, -3]
    assert paddle.div(i, j, rounding_mode="floor").numpy().tolist() == [3, -4]
    assert paddle.div(i, j).numpy().tolist() == [3.5, -3.5]
    assert paddle.true_divide(i, j).numpy().tolist() == [3.5, -3.5]
    with pytest.raises(ValueError, match="rounding_mode"):
        paddle.div(i, j, rounding_mode="x")
    assert paddle.sub(a, b, alpha=3).numpy().tolist() == [1., -13.]
    out = paddle.zeros([2])
    assert paddle.sub(a, b, out=out) is out and out.numpy().tolist() == [5., -9.]
    assert paddle.mul(a, b).numpy().tolist() == [14., -14.]
    assert paddle.eq(i, 7).numpy().tolist() == [True, False]
    assert paddle.gt(a, b).numpy().tolist() == [True, False]
    assert paddle.less(a, b).numpy().tolist() == [False, True]
    assert paddle.clamp(i, -1, 2).numpy().tolist() == [2, -1]
    assert a.clamp_(0, 1.5) is a and a.numpy().tolist() == [1.5, 0.]


def test_in_place_functions_change_x_and_check_broadcasting():
    paddle.disable_static()
    x = _t([1., 2., 3.], "float32")
    assert paddle.equal_(x, _t([1., 0., 3.], "float32")) is x
    assert x.dtype == paddle.bool and x.numpy().tolist() == [True, False, True]
    x = _t([1., 2., 3.], "float32")
    assert paddle.cast_(x, "float64") is x and x.dtype == paddle.float64
    x = _t([0.5, 1.])
    paddle.cos_(x)
    np.testing.assert_allclose(x.numpy(), np.cos([0.5, 1.]))
    with pytest.raises(ValueError, match="broadcast output"):
        paddle.multiply_(_t([1., 2., 3.]), _t([[1.], [2.]]))
    with pytest.raises(TypeError, match="y must be scalar type, but received: <class 'list'>"):
        paddle.pow_(_t([1., 2.]), [2])                  # 3.3.1's words
    x = _t([1., 2.])
    assert x.lerp_(_t([3., 3.]), 0.5) is x and x.numpy().tolist() == [2., 2.5]
    x = _t([12, 9], "int64")
    paddle.gcd_(x, _t([18, 6], "int64"))
    assert x.numpy().tolist() == [6, 3]
    with pytest.raises(ValueError, match="broadcast output"):      # before the dtype
        paddle.gcd_(_t([[1.] * 10], "float32"), _t([[1.]] * 20, "float32"))
    x = _t([1., 2.])
    paddle.sub_(x, _t([3., 3.]))
    assert x.numpy().tolist() == [-2., -1.]
    leaf = _t([1., 2.], grad=True)
    with pytest.raises(ValueError, match="in-place"):
        paddle.cos_(leaf)
    assert not hasattr(paddle, "lerp_") and not hasattr(paddle.Tensor, "positive")


def test_eager_non_tensors_are_value_errors_static_dtypes_type_errors():
    paddle.disable_static()
    with pytest.raises(ValueError, match="must be a Tensor"):
        paddle.fmax(np.array([1.]), _t([1.]))
    paddle.enable_static()
    try:
        with paddle.static.program_guard(paddle.static.Program()):
            x = paddle.static.data("x", [2], "int32")
            with pytest.raises(TypeError, match="frexp"):
                paddle.frexp(x)
            with pytest.raises(TypeError, match="nan_to_num"):
                paddle.nan_to_num(x)
            with pytest.raises(TypeError, match="must be a"):
                paddle.atan2([1.], x)
    finally:
        paddle.disable_static()


def test_static_programs_compute_what_dynamic_mode_does():
    rng = np.random.RandomState(0)
    feed = {"x": rng.uniform(0.2, 0.9, (2, 3)), "y": rng.uniform(0.2, 0.9, (2, 3)),
            "i": rng.randint(-20, 20, (2, 3)).astype("int64"),
            "j": rng.randint(-20, 20, (3,)).astype("int64")}

    def build(x, y, i, j):
        return [paddle.atan2(x, y), paddle.lerp(x, y, 0.3), paddle.fmax(x, y),
                paddle.isclose(x, y), paddle.gcd(i, j), paddle.lcm(i, j), paddle.isin(i, j),
                paddle.bitwise_right_shift(i, j % 5, False), paddle.frexp(x)[1],
                paddle.nan_to_num(paddle.log(x - 0.5)), paddle.signbit(x - 0.5),
                paddle.hypot(x, y), paddle.logaddexp(x, y), paddle.ldexp(x, i),
                paddle.div(i, j, rounding_mode="floor"), paddle.copysign(x, -1.0),
                paddle.heaviside(x - 0.5, y), paddle.trunc(x * 5), paddle.frac(x * 5)]
    paddle.disable_static()
    eager = [v.numpy() for v in build(*(paddle.to_tensor(v) for v in feed.values()))]
    paddle.enable_static()
    try:
        main, start = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, start):
            args = [paddle.static.data(n, list(v.shape), v.dtype.name)
                    for n, v in feed.items()]
            outs = build(*args)
        got = paddle.static.Executor(paddle.CPUPlace()).run(main, feed=feed,
                                                            fetch_list=outs)
    finally:
        paddle.disable_static()
    for e, s in zip(eager, got):
        assert e.dtype == s.dtype
        np.testing.assert_allclose(s, e, rtol=1e-12)


@pytest.mark.paddle("3")      # (0-D tensors: Paddle 3's)
def test_numbers_meeting_a_0_d_tensor_keep_it_0_d_and_exact():
    paddle.disable_static()
    x = paddle.to_tensor(0.1, dtype="float64")
    for out, value in ((paddle.lerp(x, x * 3, 0.1), 0.1 + 0.1 * 0.2),
                       (paddle.copysign(x, -1.0), -0.1), (paddle.sinc(x), np.sinc(0.1)),
                       (paddle.nan_to_num(paddle.log(x - 1)), 0.0)):
        assert list(out.shape) == []
        np.testing.assert_allclose(out.numpy(), value, rtol=1e-15)
