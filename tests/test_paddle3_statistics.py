"""Paddle 3's reductions, order statistics, quantiles, distances, covariance, scans,
differences and searches (refimpl/layers/reductions.py, order_statistics.py,
distances.py, cumulative.py, binning.py, statistics.median's mode; ops in
refimpl/ops/cumulative.py, order_statistics.py, counting.py, reduce.py): values, dtypes
and gradients recorded on Paddle 3.3.1 (2026-11-28, s19stats), numpy references, central
differences for the composed ones, static programs equal to dynamic mode, the errors
3.3.1 raises, and its _C_ops arguments."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl import versions
from refimpl.layers import exports

from helpers import central_differences, eager_gradient, static_and_dynamic

LINALG = exports("linalg")
X = np.array([[1., 3., 3., 0.], [2., -1., 5., 5.], [4., 4., 4., 1.]])
NAN3 = np.array([[1., np.nan, 3.], [np.nan, np.nan, np.nan], [2., 4., np.nan]])
NAN4 = np.array([[1., np.nan, 3., 2.], [np.nan] * 4, [2., 4., np.nan, 7.]])
C = np.array([[1., 2., 4., 7.], [0., 3., 1., 2.], [2., 2., 5., 1.]])
A = np.array([[0., 1.], [2., 2.], [3., -1.]])
B = np.array([[1., 1.], [0., 0.]])
Y = np.array([[1., 2., 4.], [0., 3., 9.]])
S = np.array([[1., 3., 5., 7., 9.], [2., 4., 6., 8., 10.]])
V = np.array([[3., 6., 9.], [3., 6., 9.]])
POINTS = np.array([[0., 1.], [1., 0.], [2., 0.], [2., 2.], [0.5, 0.5]])
COUNTED = np.array([1, 3, 3, 0, 5, 1, 1])
RUNS = np.array([1, 1, 2, 2, 2, 3, 1, 1])


def t(values, stop_gradient=True):
    return paddle.to_tensor(np.asarray(values), stop_gradient=stop_gradient)


def numeric(f, x):
    return central_differences(lambda a: float(np.sum(f(t(a)).numpy())), x)


def close(actual, expected):
    np.testing.assert_allclose(np.asarray(actual.numpy() if hasattr(actual, "numpy")
                                          else actual), expected, rtol=1e-12, atol=1e-12,
                               equal_nan=True)


# (name, function, 3.3.1's value)
RECORDED = [
    ("amax", lambda: paddle.amax(t(X), 1), [3., 5., 4.]),
    ("amin_keepdim", lambda: paddle.amin(t(X), 0, keepdim=True), [[1., -1., 3., 0.]]),
    ("nanmean", lambda: paddle.nanmean(t(NAN3), 1), [2., np.nan, 3.]),
    ("nansum", lambda: paddle.nansum(t(NAN3), 1), [4., 0., 6.]),
    ("count_nonzero", lambda: paddle.count_nonzero(t(X), 1), [3, 4, 4]),
    ("nanmedian", lambda: paddle.nanmedian(t(NAN4), 1), [2., np.nan, 4.]),
    ("nanmedian_min_index", lambda: paddle.nanmedian(t(NAN4), 1, mode="min")[1], [3, -1, 1]),
    ("quantile", lambda: paddle.quantile(t(X), 0.3, 1),
     [0.8999999999999999, 1.6999999999999997, 3.6999999999999997]),
    ("quantile_list", lambda: paddle.quantile(t(X), [0.25, 0.5], 1, keepdim=True),
     [[[0.75], [1.25], [3.25]], [[2.], [3.5], [4.]]]),
    ("quantile_lower", lambda: paddle.quantile(t(X), 0.4, 1, interpolation="lower"),
     [1., 2., 4.]),
    ("quantile_higher", lambda: paddle.quantile(t(X), 0.4, 1, interpolation="higher"),
     [3., 5., 4.]),
    ("quantile_midpoint", lambda: paddle.quantile(t(X), 0.4, 1, interpolation="midpoint"),
     [2., 3.5, 4.]),
    ("quantile_nan", lambda: paddle.quantile(t(NAN4), 0.5, 1), [np.nan] * 3),
    ("nanquantile", lambda: paddle.nanquantile(t(NAN4), 0.5, 1), [2., np.nan, 4.]),
    ("kthvalue", lambda: paddle.kthvalue(t(X), 2, 1)[0], [1., 2., 4.]),
    ("mode", lambda: paddle.mode(t(X), 1)[0], [3., 5., 4.]),
    ("mode_index", lambda: paddle.mode(t(X), 1)[1], [2, 3, 2]),
    ("mode_ties", lambda: paddle.mode(t([3., 1., 2., 1., 3.]))[1], 3),
    ("msort", lambda: paddle.msort(t(X)), [[1., -1., 3., 0.], [2., 3., 4., 1.],
                                           [4., 4., 5., 5.]]),
    ("cdist", lambda: paddle.cdist(t(A), t(B)),
     [[1., 1.], [1.4142135623730951, 2.8284271247461903],
      [2.8284271247461903, 3.1622776601683795]]),
    ("cdist_p0", lambda: paddle.cdist(t(A), t(B), p=0.), [[1., 1.], [2., 2.], [2., 2.]]),
    ("cdist_inf", lambda: paddle.cdist(t(A), t(B), p=float("inf")),
     [[1., 1.], [1., 2.], [2., 3.]]),
    ("pdist", lambda: paddle.pdist(t(A)), [2.23606797749979, 3.605551275463989,
                                           3.162277660168379]),
    ("pdist_p1", lambda: paddle.nn.functional.pdist(t(A), 1.), [3., 5., 4.]),
    ("cov", lambda: LINALG["cov"](t(C)),
     [[7., 1., -0.6666666666666666], [1., 1.6666666666666667, -0.6666666666666666],
      [-0.6666666666666666, -0.6666666666666666, 3.]]),
    ("corrcoef_row", lambda: LINALG["corrcoef"](t(C))[0],
     [1., 0.2927700218845599, -0.14547859349066158]),
    ("vecdot", lambda: LINALG["vecdot"](t(A), t(A[::-1].copy())), [-1., 8., -1.]),
    ("vecdot_complex", lambda: LINALG["vecdot"](t([1 + 2j, 3j]), t([2 + 0j, 1 + 1j])),
     5 - 7j),
    ("reduce_as", lambda: paddle.reduce_as(t(np.arange(24.).reshape(2, 3, 4)),
                                           t(np.ones([3, 1]))), [[60.], [92.], [124.]]),
    ("median_min", lambda: paddle.median(t(X), 1, mode="min")[0], [1., 2., 4.]),
    ("median_all_min", lambda: paddle.median(t(X), mode="min"), 3.),
]
RECORDED += [
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
def test_dtypes_and_shapes_are_paddle_331s():
    with versions.use("3"):
        assert paddle.amax(t(X.astype("int32")), [0, 1], keepdim=True).dtype.name == "int32"
        assert paddle.nansum(t(np.array([1, 2, 3], "int32"))).dtype.name == "int64"
        assert paddle.nanmean(t(NAN3)).shape == []
        assert paddle.count_nonzero(t(X > 2), 0, keepdim=True).dtype.name == "int64"
        assert paddle.quantile(t(X.astype("float32")), 0.5, 1).dtype.name == "float32"
        assert paddle.median(t(X.astype("int64")), 1, mode="min")[0].dtype.name == "int64"
        assert paddle.reduce_as(t(X > 2), t(np.ones(4, bool))).dtype.name == "int64"
        assert LINALG["cov"](t(C[0])).shape == []
        assert paddle.pdist(t(A[:1])).shape == [0]
        assert paddle.cdist(t(np.stack([A, A + 1])), t(B)).shape == [2, 3, 2]


@pytest.mark.usefixtures("dygraph")
def test_weighted_cov_is_numpys():
    fw, aw = np.array([1, 2, 1, 3]), np.array([0.5, 1., 2., 1.])
    close(LINALG["cov"](t(C), fweights=t(fw), aweights=t(aw)),
          np.cov(C, fweights=fw, aweights=aw))
    close(LINALG["cov"](t(C), rowvar=False, ddof=False), np.cov(C, rowvar=False, ddof=0))
    np.testing.assert_allclose(LINALG["corrcoef"](t(C), rowvar=False).numpy(),
                               np.corrcoef(C, rowvar=False), rtol=1e-12)


# gradients 3.3.1 gives where finite differences cannot (ties, picked elements)
RECORDED_GRADS = [
    ("amax_ties", lambda v: paddle.amax(v, 1), X,
     [[0., .5, .5, 0.], [0., 0., .5, .5], [1 / 3, 1 / 3, 1 / 3, 0.]]),
    ("amin_all", lambda v: paddle.amin(v), X,
     [[0., 0., 0., 0.], [0., 1., 0., 0.], [0., 0., 0., 0.]]),
    ("nanmean", lambda v: paddle.nanmean(v, 1), NAN3,
     [[.5, 0., .5], [0., 0., 0.], [.5, .5, 0.]]),
    ("nansum", lambda v: paddle.nansum(v, 1), NAN3, [[1., 0., 1.], [0., 0., 0.], [1., 1., 0.]]),
    ("nanmedian_all_nan_row", lambda v: paddle.nanmedian(v, 1), NAN4,
     [[0., 0., 0., 1.], [.25] * 4, [0., 1., 0., 0.]]),
    ("mode", lambda v: paddle.mode(v, 1)[0], X,
     [[0., 0., 1., 0.], [0., 0., 0., 1.], [0., 0., 1., 0.]]),
    ("quantile", lambda v: paddle.quantile(v, 0.3, 1), X,
     [[0.8999999999999999, 0., 0., 0.10000000000000009],
      [0.8999999999999999, 0.10000000000000009, 0., 0.],
      [0.8999999999999999, 0., 0., 0.10000000000000009]]),
]
RECORDED_GRADS += [
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
    close(eager_gradient(f, x), expected)


DISTINCT = np.random.RandomState(0).permutation(12).reshape(3, 4) / 5.0 - 1.0

SMOOTH = [
    ("quantile_linear", lambda v: paddle.quantile(v, [0.3, 0.8], 1)),
    ("nanquantile", lambda v: paddle.nanquantile(v, 0.6, 0)),
    ("kthvalue", lambda v: paddle.kthvalue(v, 2, 0)[0]),
    ("cdist", lambda v: paddle.cdist(v, t(B.repeat(2, 1)))),
    ("pdist_p3", lambda v: paddle.pdist(v, 3.)),
    ("cov", lambda v: LINALG["cov"](v) * t([[1., 2., 3.]])),
    ("corrcoef", lambda v: LINALG["corrcoef"](v) * t([[1., 2., 3.]])),
    ("vecdot", lambda v: LINALG["vecdot"](v, v * 2., axis=0)),
    ("reduce_as", lambda v: paddle.reduce_as(v, t(np.ones([1, 4]))) * t([[1., 2., 3., 4.]])),
]
SMOOTH += [
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
    np.testing.assert_allclose(eager_gradient(f, DISTINCT), numeric(f, DISTINCT), rtol=1e-6,
                               atol=1e-7)


STATIC = [
    ("amax", lambda v: paddle.amax(v, 1)),
    ("nanmean", lambda v: paddle.nanmean(v, 0)),
    ("nanmedian", lambda v: paddle.nanmedian(v, [0, 1])),
    ("quantile", lambda v: paddle.quantile(v, [0.2, 0.9], 0, interpolation="nearest")),
    ("mode", lambda v: paddle.mode(v, 0)[1]),
    ("cdist", lambda v: paddle.cdist(v, v)),
    ("cov", lambda v: LINALG["cov"](v, rowvar=False)),
    ("count_nonzero", lambda v: paddle.count_nonzero(v)),
]
STATIC += [
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
    static_value, dynamic_value = static_and_dynamic(f, X)
    np.testing.assert_array_equal(static_value, dynamic_value)


@pytest.mark.usefixtures("dygraph")
@pytest.mark.parametrize("call, error", [
    (lambda: paddle.quantile(t(X), 1.5, 1), ValueError),
    (lambda: paddle.quantile(t(X), [], 1), ValueError),
    (lambda: paddle.quantile(t(X), 0.4, 0.4), ValueError),
    (lambda: paddle.quantile(t(X), 0.4, [1, -10]), ValueError),
    (lambda: paddle.quantile(t(X.astype("int64")), 0.5), TypeError),
    (lambda: paddle.nanmedian(t(X), []), ValueError),
    (lambda: paddle.nanmedian(t(X), [1, -1]), ValueError),
    (lambda: paddle.kthvalue(t(X), 5, 1), ValueError),
    (lambda: paddle.median(t(X), 1, mode="max"), ValueError),
    (lambda: paddle.cdist(t(A), t(np.ones([2, 3]))), ValueError),
    (lambda: LINALG["cov"](t(np.ones([2, 2, 2]))), ValueError),
    (lambda: LINALG["cov"](t(C), fweights=t([1, -2, 1, 3])), ValueError),
    (lambda: LINALG["cov"](t(C), fweights=t([0.5, 2., 1., 3.])), ValueError),
    (lambda: LINALG["cov"](t(C), fweights=t([0, 0, 0, 0])), ValueError),
    (lambda: paddle.reduce_as(t(X), t(np.ones([5]))), ValueError),
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
], ids=["q_range", "q_empty", "axis_float", "axis_range", "int_x", "nanmedian_empty_axes",
        "nanmedian_repeated_axis", "k_too_large", "median_mode", "cdist_dims", "cov_rank",
        "fweights_negative", "fweights_fraction", "weights_sum_zero", "reduce_as_shape",
        "logcumsumexp_axis", "cummax_axis", "cumprod_dim", "cummax_dtype",
        "bincount_negative", "bincount_float", "bincount_2d", "bin_edges_range",
        "histogramdd_tensor_bins", "searchsorted_dims", "bucketize_2d", "bucketize_array",
        "trapezoid_x_and_dx", "trapezoid_int", "trapezoid_dx_shape", "diff_0d",
        "argwhere_0d", "unique_consecutive_axis"])
def test_bad_input_raises_paddle_331s_error_type(call, error):
    with versions.use("3"), pytest.raises(error):
        call()


@pytest.mark.usefixtures("dygraph")
def test_median_fourth_argument_is_name_under_2_0_and_mode_under_3():
    with versions.use("2.0"):
        close(paddle.median(t(X), 1, False, "my_median"), [2., 3.5, 4.])
    with versions.use("3"):
        values, index = paddle.median(t(X), 1, False, "min")
        close(values, [1., 2., 4.])
        assert index.dtype.name == "int64"


@pytest.mark.usefixtures("dygraph")
def test_tensor_methods_and_namespaces():
    x = t(X)
    close(x.amax(1), [3., 5., 4.])
    close(x.cov(), LINALG["cov"](x).numpy())
    close(x.nanquantile(0.5, 1), [2., 3.5, 4.])
    assert paddle.tensor.stat.quantile is paddle.quantile
    assert paddle.tensor.linalg.cov is LINALG["cov"]


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


@pytest.mark.usefixtures("dygraph")
def test_logcumsumexp_gradient_is_paddle_331s_along_axis_0():
    np.testing.assert_allclose(eager_gradient(lambda v: paddle.logcumsumexp(v, 0), X)[0],
                               [1.310951487504061, 2.2496369441877704, 1.209233495192498,
                                1.013266114109594], rtol=1e-12)


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
