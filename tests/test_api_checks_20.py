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
