"""The max pools' return_mask (nn.functional max_pool1d/2d/3d, adaptive_max_pool1d/2d/3d,
MaxPool*D, fluid's adaptive_pool2d/3d require_index: the op max_pool2d/3d_with_index),
the average pools' divisor_override, and nn.functional.pad with a Tensor pad. Masks are
derived by hand and match the values Paddle 3.3.1 (and 1.8.5 for require_index) gives,
recorded in the comments; gradients against finite differences."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl import fluid, nn, static
import refimpl.nn.functional as F

from test_functional_loss import run

# rows 20..24, 15..19, 10..14, 5..9, 0..4: each window's maximum is its top-right cell
GRID = np.arange(25, dtype="float32").reshape(1, 1, 5, 5)[:, :, ::-1].copy()
SEQ = np.array([[[3, 1, 4, 1, 5, 9, 2]]], "float32")
CUBE = np.random.RandomState(1).permutation(64).reshape(1, 1, 4, 4, 4).astype("float32")


def _both_modes(build, **feeds):
    """build's outputs as arrays, built in a static program and run eagerly."""
    static_out = run(build, **feeds)
    paddle.disable_static()
    try:
        eager = build(*[paddle.to_tensor(v) for v in feeds.values()])
        eager_out = [v.numpy() for v in eager]
    finally:
        paddle.enable_static()
    if len(eager_out) == 1:         # run gives a lone output unlisted
        static_out = [static_out]
    assert len(static_out) == len(eager_out)
    for s, e in zip(static_out, eager_out):
        np.testing.assert_array_equal(s, e)
        assert s.dtype == e.dtype
    return static_out


def test_max_pool2d_mask_is_the_flat_index_of_each_window_maximum():
    out, mask = _both_modes(lambda x: F.max_pool2d(x, 2, 2, return_mask=True), x=GRID)
    # windows at rows 0-1 / 2-3, cols 0-1 / 2-3: maxima at (0, 1), (0, 3), (2, 1), (2, 3)
    assert mask.dtype == np.int32
    assert mask[0, 0].tolist() == [[1, 3], [11, 13]]
    assert out[0, 0].tolist() == [[21, 23], [11, 13]]


def test_padding_clips_windows_to_the_input():
    out, mask = _both_modes(lambda x: F.max_pool2d(x, 3, 2, padding=1, return_mask=True),
                            x=GRID)
    # Paddle 3.3.1: [[1, 3, 4], [6, 8, 9], [16, 18, 19]]
    assert mask[0, 0].tolist() == [[1, 3, 4], [6, 8, 9], [16, 18, 19]]
    np.testing.assert_array_equal(out.ravel(), GRID.ravel()[mask.ravel()])


def test_ties_and_padding_pick_the_first_real_maximum():
    x = -np.ones((1, 1, 3, 3), "float32")
    x[0, 0, 1, 1] = -5
    mask, = _both_modes(lambda x: [F.max_pool2d(x, 2, 1, return_mask=True)[1]], x=x)
    assert mask[0, 0].tolist() == [[0, 1], [3, 5]]      # Paddle 3.3.1
    mask, = _both_modes(lambda x: [F.max_pool2d(x, 3, 2, padding=1, return_mask=True)[1]],
                        x=x)
    assert mask[0, 0].tolist() == [[0, 1], [3, 5]]      # the -inf padding never wins


def test_same_padding_with_the_mask_pools_unpadded():
    """The op has no padding_algorithm: Paddle 3.3.1 gives a 2x2 Out for 'SAME' with the
    mask, 3x3 without it."""
    out, mask, plain = _both_modes(
        lambda x: list(F.max_pool2d(x, 2, 2, padding="SAME", return_mask=True))
        + [F.max_pool2d(x, 2, 2, padding="SAME")], x=GRID)
    assert mask[0, 0].tolist() == [[1, 3], [11, 13]]
    assert plain.shape == (1, 1, 3, 3)


def test_max_pool1d_and_adaptive_masks():
    out, mask, aout, amask = _both_modes(
        lambda x: list(F.max_pool1d(x, 3, 2, padding=1, return_mask=True))
        + list(F.adaptive_max_pool1d(x, 3, return_mask=True)), x=SEQ)
    # windows [-1, 2), [1, 4), [3, 6), [5, 8): Paddle 3.3.1 [0, 2, 5, 5] and [3, 4, 9, 9]
    assert mask.tolist() == [[[0, 2, 5, 5]]]
    assert out.tolist() == [[[3, 4, 9, 9]]]
    # adaptive windows [0, 3), [2, 5), [4, 7)
    assert amask.tolist() == [[[2, 4, 5]]] and aout.tolist() == [[[4, 5, 9]]]


def test_adaptive_max_pool2d_mask():
    out, mask = _both_modes(lambda x: F.adaptive_max_pool2d(x, [2, 3], return_mask=True),
                            x=GRID)
    # rows [0, 3), [2, 5); cols [0, 2), [1, 4), [3, 5): Paddle 3.3.1
    assert mask.ravel().tolist() == [1, 3, 4, 11, 13, 14]


def test_3d_masks_index_the_volume():
    out, mask, aout, amask = _both_modes(
        lambda x: list(F.max_pool3d(x, 3, 2, padding=1, return_mask=True))
        + list(F.adaptive_max_pool3d(x, 2, return_mask=True)), x=CUBE)
    # Paddle 3.3.1 (the adaptive one also 1.8.5's adaptive_pool3d require_index)
    assert mask.ravel().tolist() == [20, 7, 20, 7, 52, 23, 52, 46]
    assert amask.ravel().tolist() == [20, 7, 25, 31, 52, 50, 44, 46]
    np.testing.assert_array_equal(out.ravel(), CUBE.ravel()[mask.ravel()])
    np.testing.assert_array_equal(aout.ravel(), [56, 62, 55, 59, 61, 45, 47, 63])


def test_mask_layers_return_the_pair(dygraph):
    x = paddle.to_tensor(GRID)
    out, mask = nn.MaxPool2D(2, return_mask=True)(x)
    assert mask.numpy()[0, 0].tolist() == [[1, 3], [11, 13]]
    out, mask = nn.MaxPool1D(3, 2, padding=1, return_mask=True)(paddle.to_tensor(SEQ))
    assert mask.numpy().tolist() == [[[0, 2, 5, 5]]]
    out, mask = nn.AdaptiveMaxPool3D(2, return_mask=True)(paddle.to_tensor(CUBE))
    assert mask.numpy().ravel().tolist() == [20, 7, 25, 31, 52, 50, 44, 46]


def test_gradient_reaches_each_window_maximum_and_not_the_mask(dygraph):
    x = paddle.to_tensor(np.arange(16, dtype="float32").reshape(1, 1, 4, 4),
                         stop_gradient=False)
    out, mask = F.max_pool2d(x, 3, 1, return_mask=True)
    assert mask.stop_gradient
    weights = np.array([1, 2, 3, 4], "float32").reshape(1, 1, 2, 2)
    paddle.sum(out * paddle.to_tensor(weights)).backward()
    # Paddle 3.3.1: each window's maximum is its bottom-right cell
    assert x.grad[0, 0].tolist() == [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 1, 2], [0, 0, 3, 4]]


def test_gradient_matches_finite_differences():
    rng = np.random.RandomState(3)
    xv = rng.permutation(2 * 2 * 5 * 5).reshape(2, 2, 5, 5) / 7.0     # distinct values
    weights = rng.randn(2, 2, 3, 3)

    def build(x, w):
        x.stop_gradient = False
        out, _ = F.max_pool2d(x, 3, 2, padding=1, return_mask=True)
        return static.gradients([paddle.sum(out * w)], [x])
    got = run(build, x=xv, w=weights)

    def pooled(v):      # kernel 3, stride 2, padding 1: rows / cols [2i - 1, 2i + 2)
        return sum(weights[n, c, i, j] * v[n, c, max(2 * i - 1, 0):2 * i + 2,
                                            max(2 * j - 1, 0):2 * j + 2].max()
                   for n, c, i, j in np.ndindex(weights.shape))
    eps, numeric = 1e-6, np.zeros_like(xv)
    for index in np.ndindex(xv.shape):
        step = np.zeros_like(xv)
        step[index] = eps
        numeric[index] = (pooled(xv + step) - pooled(xv - step)) / (2 * eps)
    np.testing.assert_allclose(got, numeric, atol=1e-6)


def test_ceil_mode_follows_the_profile(paddle_version):
    """Paddle 2.0's max_pool2d_with_index has no ceil_mode (floor-sized Out); 3.3.1's
    honours it (switch max_pool_mask_ceil_mode)."""
    def build(x, s):
        return list(F.max_pool2d(x, 2, 2, ceil_mode=True, return_mask=True)) + \
            list(F.max_pool1d(s, 2, 2, ceil_mode=True, return_mask=True))
    with paddle_version("2.0"):
        out, mask, seq_out, seq_mask = run(build, x=GRID, s=SEQ)
    assert mask[0, 0].tolist() == [[1, 3], [11, 13]]
    assert seq_mask.tolist() == [[[0, 2, 5]]]
    with paddle_version("3"):
        out, mask, seq_out, seq_mask = run(build, x=GRID, s=SEQ)
    # Paddle 3.3.1: the last windows hold the input's last row / column only
    assert mask[0, 0].tolist() == [[1, 3, 4], [11, 13, 14], [21, 23, 24]]
    assert out[0, 0].tolist() == [[21, 23, 24], [11, 13, 14], [1, 3, 4]]
    assert seq_mask.tolist() == [[[0, 2, 5, 6]]] and seq_out.tolist() == [[[3, 4, 9, 2]]]


def test_mask_argument_errors():
    x = static.data("x", [1, 1, 5, 5], "float32")
    with pytest.raises(ValueError, match="max_pool2d: return_mask needs a channel-first"):
        F.max_pool2d(x, 2, data_format="NHWC", return_mask=True)
    with pytest.raises(ValueError, match="max_pool3d: return_mask needs a channel-first"):
        F.max_pool3d(static.data("v", [1, 4, 4, 4, 1], "float32"), 2, data_format="NDHWC",
                     return_mask=True)
    with pytest.raises(ValueError, match=r"same padding before and after each dim .*"
                                         r"got \[0, 1, 1, 0\]"):
        F.max_pool2d(x, 3, 2, padding=[[0, 0], [0, 0], [0, 1], [1, 0]], return_mask=True)
    for pool in (F.max_pool2d, F.avg_pool2d):
        with pytest.raises(ValueError, match='padding "VALID", ceil_mode must be False'):
            pool(x, 2, padding="VALID", ceil_mode=True)
    with pytest.raises(ValueError, match='max_pool1d: with padding "VALID"'):
        F.max_pool1d(static.data("s", [1, 1, 7], "float32"), 2, padding="valid",
                     ceil_mode=True)


@pytest.mark.paddle("1.8")
def test_fluid_adaptive_pools_require_index():
    """Paddle 1.8.5 (measured): the masks below; an average pool refuses require_index."""
    square = np.random.RandomState(1).permutation(16).reshape(1, 1, 4, 4).astype("float32")
    out, mask, cube_out, cube_mask = run(
        lambda x, v: list(fluid.layers.adaptive_pool2d(x, 2, "max", require_index=True))
        + list(fluid.layers.adaptive_pool3d(v, 2, "max", require_index=True)),
        x=square, v=CUBE)
    assert out[0, 0].tolist() == [[13, 7], [14, 15]]
    assert mask[0, 0].tolist() == [[1, 2], [8, 10]]
    assert cube_mask.ravel().tolist() == [20, 7, 25, 31, 52, 50, 44, 46]
    with pytest.raises(ValueError, match="require_index needs pool_type 'max'"):
        fluid.layers.adaptive_pool2d(static.data("y", [1, 1, 4, 4], "float32"), 2, "avg",
                                     require_index=True)


def test_divisor_override_rescales_the_average():
    """out * kernel area / divisor, as Paddle 2.0 and 3.3.1 apply it; with padding 1 the
    exclusive average of a corner window [20] is 20, times 4 / 3 (3.3.1: 26.666666)."""
    got2, got3 = run(lambda x, v: [F.avg_pool2d(x, 2, 2, padding=1, divisor_override=3),
                                   F.avg_pool3d(v, 2, 2, divisor_override=5)],
                     x=GRID, v=CUBE)
    np.testing.assert_allclose(got2.ravel(), [80 / 3, 86 / 3, 94 / 3, 50 / 3, 56 / 3, 64 / 3,
                                              10 / 3, 16 / 3, 8], rtol=1e-6)
    sums = CUBE[0, 0].reshape(2, 2, 2, 2, 2, 2).sum(axis=(1, 3, 5))     # each 2x2x2 block
    np.testing.assert_allclose(got3.ravel(), sums.ravel() / 5, rtol=1e-6)
    assert got3.ravel()[:2].tolist() == pytest.approx([45.4, 60.4])   # Paddle 3.3.1
    with pytest.raises(ValueError, match="divisor_override must be an int or a float"):
        F.avg_pool2d(static.data("y", [1, 1, 4, 4], "float32"), 2, divisor_override="3")
