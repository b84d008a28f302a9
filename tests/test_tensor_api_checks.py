"""The argument checks of paddle.randperm, randint, uniform and histogram that Paddle 2.0's
own tests assert (test_randperm_op, test_randint_op, test_histogram_op) and 3.3.1 shares
(measured), and the histogram bins error that differs (switch histogram_bins_error)."""
import numpy as np
import pytest

from helpers import build_and_run
import refimpl as paddle
from refimpl import static


def _run(build):
    return build_and_run(lambda: [build()])[0]


def test_randperm_refuses_int8_and_permutes_in_int32():
    with pytest.raises(TypeError, match=r"randperm: dtype must be one of .*got int8"):
        _run(lambda: paddle.randperm(10, "int8"))
    value = _run(lambda: paddle.randperm(6, "int32"))
    assert value.dtype == np.int32 and sorted(value.tolist()) == list(range(6))


@pytest.mark.parametrize("make", [lambda shape: paddle.randint(5, shape=shape),
                                  lambda shape: paddle.uniform(shape),
                                  lambda shape: paddle.rand(shape)])
def test_random_shape_must_be_list_tuple_or_variable(make):
    with pytest.raises(TypeError, match=r"shape must be a list, tuple or Variable, got ndarray"):
        _run(lambda: make(np.array([2])))
    assert _run(lambda: make((2, 3))).shape == (2, 3)


def test_randint_takes_int_dtypes_only():
    with pytest.raises(TypeError, match=r"'dtype' in randint must be \['int32', 'int64'\], "
                                        r"but received float32"):
        _run(lambda: paddle.randint(5, dtype="float32"))
    value = _run(lambda: paddle.randint(3, 7, [50], "int32"))
    assert value.dtype == np.int32 and value.min() >= 3 and value.max() < 7


def test_histogram_counts_and_refuses_bool_input():
    x = np.array([0.5, 1.5, 1.7, 3.9, 9.0], "float32")
    counts = _run(lambda: paddle.histogram(paddle.assign(x), bins=4, min=0, max=4))
    assert counts.tolist() == [1, 2, 0, 1]
    with pytest.raises(TypeError, match=r"histogram: input must have dtype in "
                                        r"\['int32', 'int64', 'float32', 'float64'\], got bool"):
        _run(lambda: paddle.histogram(static.data("b", [4, 3], "bool"), bins=5, min=1, max=5))


def test_histogram_min_and_max_must_be_finite():
    with pytest.raises(ValueError, match=r"\[operator histogram\].*min -inf and max 5 must "
                                         r"be finite"):
        _run(lambda: paddle.histogram(paddle.full([3], 1.0), bins=1, min=-np.inf, max=5))


@pytest.mark.parametrize("version, error", [("2.0", IndexError), ("3", ValueError)])
def test_histogram_bins_below_1_by_version(version, error, paddle_version):
    with paddle_version(version):
        with pytest.raises(error, match=r"bins must be >= 1, got -1"):
            _run(lambda: paddle.histogram(paddle.full([3], 1.0), bins=-1, min=1, max=5))
