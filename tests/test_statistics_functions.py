"""Paddle 3's reductions, order statistics, quantiles, distances and covariance
(refimpl/layers/reductions.py, order_statistics.py, distances.py, statistics.median's
mode): values and gradients recorded on Paddle 3.3.1 (2026-11-28, s19stats), numpy
references, central differences for the composed ones, static programs equal to dynamic
mode, and the errors 3.3.1 raises."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl import versions
from refimpl.layers import exports

from helpers import build_programs, central_differences, run_programs

LINALG = exports("linalg")
X = np.array([[1., 3., 3., 0.], [2., -1., 5., 5.], [4., 4., 4., 1.]])
NAN3 = np.array([[1., np.nan, 3.], [np.nan, np.nan, np.nan], [2., 4., np.nan]])
NAN4 = np.array([[1., np.nan, 3., 2.], [np.nan] * 4, [2., 4., np.nan, 7.]])
C = np.array([[1., 2., 4., 7.], [0., 3., 1., 2.], [2., 2., 5., 1.]])
A = np.array([[0., 1.], [2., 2.], [3., -1.]])
B = np.array([[1., 1.], [0., 0.]])


def t(values, stop_gradient=True):
    return paddle.to_tensor(np.asarray(values), stop_gradient=stop_gradient)


def grad_of(f, x):
    """d sum(f(x)) / dx in dynamic mode."""
    v = t(x, stop_gradient=False)
    (g,) = paddle.grad(paddle.sum(f(v)), v)
    return g.numpy()


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


@pytest.mark.usefixtures("dygraph")
@pytest.mark.parametrize("name, f, x, expected", RECORDED_GRADS,
                         ids=[c[0] for c in RECORDED_GRADS])
def test_gradients_are_paddle_331s(name, f, x, expected):
    close(grad_of(f, x), expected)


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


@pytest.mark.usefixtures("dygraph")
@pytest.mark.parametrize("name, f", SMOOTH, ids=[c[0] for c in SMOOTH])
def test_gradients_match_central_differences(name, f):
    np.testing.assert_allclose(grad_of(f, DISTINCT), numeric(f, DISTINCT), rtol=1e-6,
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
], ids=["q_range", "q_empty", "axis_float", "axis_range", "int_x", "nanmedian_empty_axes",
        "nanmedian_repeated_axis", "k_too_large", "median_mode", "cdist_dims", "cov_rank",
        "fweights_negative", "fweights_fraction", "weights_sum_zero", "reduce_as_shape"])
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
