"""bilateral_slice (specs/ops/fluid_contrib_ops.md): a grid holding the same affine map in
every cell maps each pixel by it; gradients against finite differences (Paddle's Grid
gradient equals the forward's adjoint inside the image); the layer's shape and checks."""
import numpy as np
import pytest

from refimpl import fluid
from refimpl.ops.registry import get_op_def

OP = get_op_def("bilateral_slice")


@pytest.mark.parametrize("has_offset", [False, True])
def test_a_uniform_grid_applies_its_affine_map_to_every_pixel(has_offset):
    rng = np.random.RandomState(0)
    x = rng.rand(2, 3, 5, 4)
    guide = rng.uniform(0.02, 0.98, (2, 5, 4))
    a = rng.randn(2, 3 + has_offset)              # Co = 2 outputs of Ci = 3 channels
    grid = np.broadcast_to(a.reshape(1, -1, 1, 1, 1), (2, a.size, 3, 2, 3)).copy()
    want = np.einsum("ok,nkhw->nohw", a[:, :3], x) + (a[:, 3, None, None] if has_offset else 0)
    # the z weights of the two cells sum to 1 less at most 1e-4: sqrt(d^2 + 1e-8) for d
    # near 0 is 1e-4, not 0
    got = OP.forward(x, grid, guide, has_offset=has_offset)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-4 * np.abs(a).sum(1).max())
    assert np.abs(got - want).max() > 0        # the epsilon is there


def test_gradients_match_finite_differences():
    rng = np.random.RandomState(1)
    x, grid = rng.rand(1, 2, 4, 3), rng.rand(1, 6, 3, 2, 2)
    guide = rng.uniform(0.1, 0.9, (1, 4, 3))
    dout = rng.rand(1, 2, 4, 3)
    grads = OP.backward(x, grid, guide, dout, has_offset=True)
    eps = 1e-6
    for k, value in enumerate((x, grid, guide)):
        numeric = np.zeros_like(value)
        for idx in np.ndindex(value.shape):
            args = [x, grid, guide]
            for sign in (1, -1):
                moved = value.copy()
                moved[idx] += sign * eps
                args[k] = moved
                numeric[idx] += sign * np.sum(OP.forward(*args, has_offset=True) * dout) / (2 * eps)
        np.testing.assert_allclose(grads[k], numeric, rtol=1e-5, atol=1e-7)


def test_the_layer_builds_the_op_and_checks_dtypes():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = fluid.data("x", [None, 3, 25, 15], "float32")
        guide = fluid.data("guide", [None, 25, 15], "float32")
        grid = fluid.data("grid", [None, 12, 8, 5, 3], "float32")
        out = fluid.contrib.layers.bilateral_slice(x, guide, grid, False)
        assert out.shape == (-1, 4, 25, 15)
        assert fluid.contrib.layers.bilateral_slice(x, guide, grid, True).shape[1] == 3
        with pytest.raises(TypeError, match="x"):
            fluid.contrib.layers.bilateral_slice(fluid.data("i", [1, 3, 2, 2], "int32"),
                                                 guide, grid, False)
        with pytest.raises(Exception, match="not a multiple"):
            fluid.contrib.layers.bilateral_slice(
                x, guide, fluid.data("g5", [None, 5, 8, 5, 3], "float32"), False)
