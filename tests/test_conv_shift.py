"""conv_shift (specs/ops/conv.md): each row of X circularly convolved with Y's row,
Out[b, i] = sum_j X[b, (i + j - (N - 1) / 2) mod M] * Y[b, j]; hand-derived values, its
gradient against finite differences, and Paddle's shape checks."""
import numpy as np
import pytest

from refimpl.fluid import core
from refimpl.fluid.op import Operator
from refimpl.ops.registry import get_op_def

PLACE = core.CPUPlace()


def _run(x, y):
    scope = core.Scope()
    scope.var("x").get_tensor().set(np.asarray(x, "float32"), PLACE)
    scope.var("y").get_tensor().set(np.asarray(y, "float32"), PLACE)
    Operator("conv_shift", X="x", Y="y", Out="out").run(scope, PLACE)
    return np.array(scope.find_var("out").get_tensor())


def test_a_one_hot_y_rotates_x():
    x = [[1, 2, 3, 4], [10, 20, 30, 40]]
    # N = 3, half width 1: Y = e0 reads X[i - 1], e2 reads X[i + 1], e1 copies X
    out = _run(x, [[1, 0, 0], [0, 0, 1]])
    assert out.dtype == np.float32
    assert out.tolist() == [[4, 1, 2, 3], [20, 30, 40, 10]]
    assert _run(x, [[0, 1, 0], [0, 2, 0]]).tolist() == [[1, 2, 3, 4], [20, 40, 60, 80]]
    # a mix: 0.5 X[i - 1] + 2 X[i + 1]
    assert _run([[1, 2, 3, 4]], [[0.5, 0, 2]]).tolist() == [[6, 6.5, 9, 3.5]]


def test_gradient_matches_finite_differences():
    op = get_op_def("conv_shift")
    rng = np.random.RandomState(0)
    x, y, dout = rng.randn(2, 6), rng.randn(2, 3), rng.randn(2, 6)
    dx, dy = op.backward(x, y, dout)
    eps = 1e-6
    for value, grad, other in ((x, dx, "x"), (y, dy, "y")):
        numeric = np.zeros_like(value)
        for idx in np.ndindex(value.shape):
            for sign in (1, -1):
                moved = value.copy()
                moved[idx] += sign * eps
                args = (moved, y) if other == "x" else (x, moved)
                numeric[idx] += sign * np.sum(op.forward(*args) * dout) / (2 * eps)
        np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("x_shape, y_shape, message", [
    ((2, 5), (2, 4), "must be odd"), ((2, 3), (2, 5), "must not exceed"),
    ((2, 5), (3, 3), "same batch size"), ((2, 5, 1), (2, 3), "2-D")])
def test_paddles_shape_checks(x_shape, y_shape, message):
    with pytest.raises(Exception, match=message):
        _run(np.zeros(x_shape), np.zeros(y_shape))
