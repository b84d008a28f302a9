"""Paddle 3's scans, differences and searches (refimpl/layers/cumulative.py, binning.py;
ops in refimpl/ops/cumulative.py, counting.py): values and gradients recorded on Paddle
3.3.1 (2026-11-28, s19stats), numpy references, central differences for the composed
ones, static programs equal to dynamic mode, and 3.3.1's error types."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl import versions

from helpers import build_programs, central_differences, run_programs

X = np.array([[1., 3., 3., 0.], [2., -1., 5., 5.], [4., 4., 4., 1.]])
Y = np.array([[1., 2., 4.], [0., 3., 9.]])
S = np.array([[1., 3., 5., 7., 9.], [2., 4., 6., 8., 10.]])
V = np.array([[3., 6., 9.], [3., 6., 9.]])
POINTS = np.array([[0., 1.], [1., 0.], [2., 0.], [2., 2.], [0.5, 0.5]])
COUNTED = np.array([1, 3, 3, 0, 5, 1, 1])
RUNS = np.array([1, 1, 2, 2, 2, 3, 1, 1])


def t(values, stop_gradient=True):
    return paddle.to_tensor(np.asarray(values), stop_gradient=stop_gradient)


def close(actual, expected):
    np.testing.assert_allclose(np.asarray(actual.numpy() if hasattr(actual, "numpy")
                                          else actual), expected, rtol=1e-12, atol=1e-12)


def grad_of(f, x):
    v = t(x, stop_gradient=False)
    (g,) = paddle.grad(paddle.sum(f(v)), v)
    return g.numpy()


RECORDED = [
    ("logcumsumexp", lambda: paddle.logcumsumexp(t(X), 1)[1],
     [2.0, 2.048587351573742, 5.050945763522998, 5.718944461094357]),
    ("logcumsumexp_flat", lambda: paddle.logcumsumexp(t(X))[-1], 6.244138436856669),
    ("logcumsumexp_neg_inf", lambda: paddle.logcumsumexp(t([-np.inf, -np.inf, 1.])),
     [-1.7976931348623157e+308, -1.7976931348623157e+308, 1.0]),
    ("cummax", lambda: paddle.cummax(t(X), 1)[0],
     [[1., 3., 3., 3.], [2., 2., 5., 5.], [4., 4., 4., 4.]]),
    ("cummax_index", lambda: paddle.cummax(t(X), 1)[1], [[0, 1, 2, 2], [0, 0, 2, 3],
                                                          [0, 1, 2, 2]]),
    ("cummax_flat_index", lambda: paddle.cummax(t(X))[1], [0, 1, 2, 2, 2, 2, 6, 7, 7, 7,
                                                            7, 7]),
    ("cummin_nan", lambda: paddle.cummin(t([3., np.nan, 1., np.nan]))[1], [0, 1, 1, 3]),
    ("cummin_int_ties", lambda: paddle.cummin(t(np.array([3, 1, 1, 2, 1], "int32")))[1],
     [0, 1, 2, 2, 4]),
    ("cumprod", lambda: paddle.cumprod(t(X), 1),
     [[1., 3., 9., 0.], [2., -2., -10., -50.], [4., 16., 64., 64.]]),
    ("diff", lambda: paddle.diff(t(Y)), [[1., 2.], [3., 6.]]),
    ("diff_n2", lambda: paddle.diff(t(Y), n=2, axis=1), [[1.], [3.]]),
    ("diff_prepend_append", lambda: paddle.diff(t(Y), prepend=t([[10.], [20.]]),
                                                append=t([[0.], [1.]])),
     [[-9., 1., 2., -4.], [-20., 3., 6., -8.]]),
    ("diff_bool", lambda: paddle.diff(t([True, False, False, True])), [True, False, True]),
    ("trapezoid", lambda: paddle.trapezoid(t(Y)), [4.5, 7.5]),
    ("trapezoid_dx", lambda: paddle.trapezoid(t(Y), dx=0.5, axis=0), [0.25, 1.25, 3.25]),
    ("trapezoid_x", lambda: paddle.trapezoid(t(Y), t([0., 1., 3.])), [7.5, 13.5]),
    ("trapezoid_x2", lambda: paddle.trapezoid(t(Y), t([[0., 1., 3.], [1., 2., 2.5]])),
     [7.5, 4.5]),
    ("cumulative_trapezoid_x", lambda: paddle.cumulative_trapezoid(t(Y), t([0., 1., 3.])),
     [[1.5, 7.5], [1.5, 13.5]]),
    ("cumulative_trapezoid_dx", lambda: paddle.cumulative_trapezoid(t(Y), dx=2., axis=0),
     [[1., 5., 13.]]),
    ("bincount", lambda: paddle.bincount(t(COUNTED)), [1, 3, 0, 2, 0, 1]),
    ("bincount_weights", lambda: paddle.bincount(t(COUNTED), t(np.arange(7.) / 2),
                                                 minlength=8),
     [1.5, 5.5, 0., 1.5, 0., 2., 0., 0.]),
    ("histogram_bin_edges", lambda: paddle.histogram_bin_edges(t(X), 4),
     [-1., 0.5, 2., 3.5, 5.]),
    ("histogram_bin_edges_equal", lambda: paddle.histogram_bin_edges(t(np.ones(3)), 4),
     [0.5, 0.75, 1., 1.25, 1.5]),
    ("histogramdd", lambda: paddle.histogramdd(t(POINTS), 2)[0], [[1., 1.], [2., 1.]]),
    ("histogramdd_density", lambda: paddle.histogramdd(t(POINTS), [2, 3],
                                                       ranges=[0., 2., 0., 3.],
                                                       density=True)[0],
     [[0.2, 0.2, 0.], [0.4, 0., 0.2]]),
    ("histogramdd_weights", lambda: paddle.histogramdd(t(POINTS), 2,
                                                       weights=t(np.arange(5.)))[0],
     [[4., 0.], [3., 3.]]),
    ("histogramdd_edges", lambda: paddle.histogramdd(t(POINTS), [2, 3])[1][1],
     [0., 2 / 3, 4 / 3, 2.]),
    ("searchsorted", lambda: paddle.searchsorted(t(S), t(V)), [[1, 3, 4], [1, 2, 4]]),
    ("searchsorted_right", lambda: paddle.searchsorted(t(S), t(V), right=True),
     [[2, 3, 5], [1, 3, 4]]),
    ("searchsorted_side", lambda: paddle.searchsorted(t(S[0]), t(V), side="right"),
     [[2, 3, 5], [2, 3, 5]]),
    ("searchsorted_nan", lambda: paddle.searchsorted(t([1., 2., np.nan]),
                                                     t([np.nan, 1.5])), [3, 1]),
    ("bucketize", lambda: paddle.bucketize(t(V), t(S[0])), [[1, 3, 4], [1, 3, 4]]),
    ("unique_consecutive", lambda: paddle.unique_consecutive(t(RUNS)), [1, 2, 3, 1]),
    ("unique_consecutive_inverse", lambda: paddle.unique_consecutive(t(RUNS), True, True)[1],
     [0, 0, 1, 1, 1, 2, 3, 3]),
    ("unique_consecutive_counts", lambda: paddle.unique_consecutive(t(RUNS), True, True)[2],
     [2, 3, 1, 2]),
    ("unique_consecutive_axis1", lambda: paddle.unique_consecutive(
        t(np.array([[1, 1], [1, 1], [2, 3], [1, 1]]).T), axis=1), [[1, 2, 1], [1, 3, 1]]),
    ("argwhere", lambda: paddle.argwhere(t([[0, 1], [2, 0]])), [[0, 1], [1, 0]]),
]


@pytest.mark.usefixtures("dygraph")
@pytest.mark.parametrize("name, f, expected", RECORDED, ids=[c[0] for c in RECORDED])
def test_values_are_paddle_331s(name, f, expected):
    with versions.use("3"):
        close(f(), expected)


@pytest.mark.usefixtures("dygraph")
def test_dtypes_are_paddle_331s():
    with versions.use("3"):
        assert paddle.cummin(t(X), 0, dtype="int32")[1].dtype.name == "int32"
        assert paddle.logcumsumexp(t([1, 2])).dtype.name == "float32"
        assert paddle.cumprod(t(X.astype("int32")), 1).dtype.name == "int32"
        assert paddle.cumprod(t(X.astype("int32")), 1, dtype="float64").dtype.name == \
            "float64"
        assert paddle.bincount(t(COUNTED), t(np.arange(7, dtype="float32"))).dtype.name == \
            "float32"
        assert paddle.bincount(t(COUNTED), t(np.arange(7, dtype="int32"))).dtype.name == \
            "float64"
        assert paddle.histogram_bin_edges(t(X), 3).dtype.name == "float32"
        assert paddle.searchsorted(t(S), t(V), out_int32=True).dtype.name == "int32"
        assert paddle.unique_consecutive(t(RUNS), True, True, dtype="int32")[2].dtype.name \
            == "int32"
        assert paddle.diff(t(Y), n=5).shape == [2, 0]


@pytest.mark.usefixtures("dygraph")
def test_in_place_cumprod_changes_the_tensor():
    x = t(X)
    assert x.cumprod_(1) is x
    close(x, np.cumprod(X, 1))


RECORDED_GRADS = [
    ("logcumsumexp", lambda v: paddle.logcumsumexp(v, 0), X[:1],
     [[1.0, 1.0, 1.0, 1.0]]),
    ("cummax", lambda v: paddle.cummax(v, 1)[0], X,
     [[1., 1., 2., 0.], [2., 0., 1., 1.], [1., 1., 2., 0.]]),
    ("cumprod_zeros", lambda v: paddle.cumprod(v, 1), X,
     [[13., 4., 3., 9.], [-30., 62., -12., -10.], [37., 36., 32., 64.]]),
    ("trapezoid_dx", lambda v: paddle.trapezoid(v, dx=0.5), Y,
     [[0.25, 0.5, 0.25], [0.25, 0.5, 0.25]]),
]


@pytest.mark.usefixtures("dygraph")
@pytest.mark.parametrize("name, f, x, expected", RECORDED_GRADS,
                         ids=[c[0] for c in RECORDED_GRADS])
def test_gradients_are_paddle_331s(name, f, x, expected):
    close(grad_of(f, x), expected)


@pytest.mark.usefixtures("dygraph")
def test_logcumsumexp_gradient_is_paddle_331s_along_axis_0():
    np.testing.assert_allclose(grad_of(lambda v: paddle.logcumsumexp(v, 0), X)[0],
                               [1.310951487504061, 2.2496369441877704, 1.209233495192498,
                                1.013266114109594], rtol=1e-12)


DISTINCT = np.random.RandomState(1).permutation(12).reshape(3, 4) / 5.0 - 1.0
SMOOTH = [
    ("diff", lambda v: paddle.diff(v, n=2, prepend=v[:, :1] * 3.) * t([[1., 2., 3.]])),
    ("trapezoid_x", lambda v: paddle.trapezoid(v, t([0., 1., 3., 3.5]))),
    ("trapezoid_x_same_shape", lambda v: paddle.trapezoid(v * v, v * 2., axis=0)),
    ("cumulative_trapezoid", lambda v: paddle.cumulative_trapezoid(v, dx=0.3) *
     t([[1., 2., 3.]])),
    ("logcumsumexp_reverse", lambda v: paddle.flip(paddle.logcumsumexp(
        paddle.flip(v, [1]), 1), [1]) * t([[1., -2., 3., 1.]])),
]


@pytest.mark.usefixtures("dygraph")
@pytest.mark.parametrize("name, f", SMOOTH, ids=[c[0] for c in SMOOTH])
def test_gradients_match_central_differences(name, f):
    numeric = central_differences(lambda a: float(np.sum(f(t(a)).numpy())), DISTINCT)
    np.testing.assert_allclose(grad_of(f, DISTINCT), numeric, rtol=1e-6, atol=1e-7)


STATIC = [
    ("logcumsumexp", lambda v: paddle.logcumsumexp(v)),
    ("cummin", lambda v: paddle.cummin(v, 0)[1]),
    ("cumprod", lambda v: paddle.cumprod(v, 1)),
    ("diff", lambda v: paddle.diff(v, axis=0)),
    ("trapezoid", lambda v: paddle.trapezoid(v, dx=0.25)),
    ("cumulative_trapezoid", lambda v: paddle.cumulative_trapezoid(v, axis=0)),
    ("searchsorted", lambda v: paddle.searchsorted(paddle.sort(v), v)),
    ("histogram_bin_edges", lambda v: paddle.histogram_bin_edges(v, 5)),
    ("unique_consecutive", lambda v: paddle.unique_consecutive(v, True, True, axis=0)[2]),
    ("argwhere", lambda v: paddle.argwhere(v)),
]


@pytest.mark.parametrize("name, f", STATIC, ids=[c[0] for c in STATIC])
def test_static_programs_give_the_dynamic_values(name, f):
    main, startup, out = build_programs(
        lambda: f(paddle.static.data("x", [3, 4], "float64")))
    (static_value,), _ = run_programs(main, startup, {"x": X}, [out])
    paddle.disable_static()
    try:
        dynamic_value = f(t(X)).numpy()
    finally:
        paddle.enable_static()
    np.testing.assert_array_equal(static_value, dynamic_value)


@pytest.mark.usefixtures("dygraph")
@pytest.mark.parametrize("call, error", [
    (lambda: paddle.logcumsumexp(t(X), axis=2), IndexError),
    (lambda: paddle.cummax(t(X), axis=-3), IndexError),
    (lambda: paddle.cumprod(t(X), 2), ValueError),
    (lambda: paddle.cummax(t(X), 0, dtype="float32"), ValueError),
    (lambda: paddle.bincount(t([1, -1])), ValueError),
    (lambda: paddle.bincount(t([1., 2.])), TypeError),
    (lambda: paddle.bincount(t(np.zeros([2, 2], "int64"))), ValueError),
    (lambda: paddle.histogram_bin_edges(t(X), 3, 2., 1.), ValueError),
    (lambda: paddle.histogramdd(t(POINTS), [t([0., 1.]), t([0., 1.])]), ValueError),
    (lambda: paddle.searchsorted(t(np.ones([2, 2, 3])), t(np.ones([2, 5]))), RuntimeError),
    (lambda: paddle.bucketize(t(V), t(S)), ValueError),
    (lambda: paddle.bucketize(V, t(S[0])), ValueError),
    (lambda: paddle.trapezoid(t(Y), t([0., 1., 3.]), dx=1.), ValueError),
    (lambda: paddle.trapezoid(t([1, 2, 4])), TypeError),
    (lambda: paddle.trapezoid(t(Y), dx=t(np.ones([2, 2]))), ValueError),
    (lambda: paddle.diff(t(np.array(1.))), ValueError),
    (lambda: paddle.argwhere(t(np.array(3.))), ValueError),
    (lambda: paddle.unique_consecutive(t(X), axis=3), ValueError),
], ids=["logcumsumexp_axis", "cummax_axis", "cumprod_dim", "cummax_dtype",
        "bincount_negative", "bincount_float", "bincount_2d", "bin_edges_range",
        "histogramdd_tensor_bins", "searchsorted_dims", "bucketize_2d", "bucketize_array",
        "trapezoid_x_and_dx", "trapezoid_int", "trapezoid_dx_shape", "diff_0d",
        "argwhere_0d", "unique_consecutive_axis"])
def test_bad_input_raises_paddle_331s_error_type(call, error):
    with versions.use("3"), pytest.raises(error):
        call()


@pytest.mark.usefixtures("dygraph")
def test_c_ops_take_3_3_1s_arguments():
    from refimpl import _C_ops
    with versions.use("3"):
        values, indices = _C_ops.cummax(t(X), 1, "int32")      # lower-case slot x
        close(indices, [[0, 1, 2, 2], [0, 0, 2, 3], [0, 1, 2, 2]])
        assert indices.dtype.name == "int32"
        close(_C_ops.reduce_as(t(X), t(np.ones(4))), X.sum(0))
        close(_C_ops.searchsorted(t(S), t(V), False, True), [[2, 3, 5], [1, 3, 4]])
        close(_C_ops.logcumsumexp(t(X), 1, False, False, False), np.logaddexp.accumulate(X, 1))
        close(_C_ops.nanmedian(t(X), [1], True, "avg")[0], [[2.], [3.5], [4.]])
