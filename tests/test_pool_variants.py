"""Paddle 3's power-average pools (F.lp_pool1d / lp_pool2d, nn.LPPool1D / 2D), max
unpooling (F.max_unpool1d / 2d / 3d, nn.MaxUnPool1D / 2D / 3D) and fractional max pools
(F.fractional_max_pool2d / 3d, nn.FractionalMaxPool2D / 3D): numpy references, values
recorded on Paddle 3.3.1, finite-difference gradients, static == dynamic."""
import numpy as np
import pytest

import refimpl as paddle
import refimpl.nn.functional as F
from refimpl import nn

from helpers import central_differences
from test_functional_loss import run

pytestmark = pytest.mark.paddle("3")

# 3.3.1's inputs: 1..16 in a 4x4 plane with its second column negated
SIGNED = (np.arange(1, 17, dtype="float64").reshape(1, 1, 4, 4) * np.array([1, -1, 1, 1]))


def lp_reference(x, p, k, s, pad=(0, 0), ceil=False):
    """(sum of x^p over each window of the zero-padded plane)^(1/p), windows clipped as
    Paddle's ceil_mode clips them."""
    n, c, h, w = x.shape
    padded = np.pad(x, [(0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])])
    sizes = []
    for size, kk, ss, pp in zip((h, w), k, s, pad):
        span = size + 2 * pp - kk + (ss - 1 if ceil else 0)
        sizes.append(span // ss + 1)
    out = np.empty((n, c) + tuple(sizes))
    for i in range(sizes[0]):
        for j in range(sizes[1]):
            win = padded[:, :, i * s[0]:i * s[0] + k[0], j * s[1]:j * s[1] + k[1]]
            out[:, :, i, j] = (win ** p).sum(axis=(2, 3)) ** (1.0 / p)
    return out


def test_lp_pool2d_matches_3_3_1_and_numpy(dygraph):
    x = paddle.to_tensor(SIGNED)
    got = F.lp_pool2d(x, 2, 2).numpy()
    # 3.3.1's float64 kernel gives float32-precise values (measured): rtol 1e-6
    np.testing.assert_allclose(got, [[[[8.124039, 11.74734], [23.366642, 27.313]]]],
                               rtol=1e-6)
    np.testing.assert_allclose(got, lp_reference(SIGNED, 2, (2, 2), (2, 2)), rtol=1e-12)
    # norm 1 is the plain window sum, negative values included; ceil_mode clips
    np.testing.assert_array_equal(F.lp_pool2d(x, 1, 3, 2, ceil_mode=True).numpy(),
                                  [[[[18, 45], [24, 54]]]])
    # an odd power of a negative sum has no real root: NaN, as 3.3.1 gives
    odd = F.lp_pool2d(x, 3, 3, 1, 1).numpy()
    assert np.isnan(odd[0, 0, :, 0]).all() and not np.isnan(odd[0, 0, :, 1:]).any()
    np.testing.assert_allclose(odd[0, 0, 0, 1:], [6.479224, 8.971102, 9.81666], rtol=1e-6)
    # p = inf is the max pool (the signed max, not of |x|)
    np.testing.assert_array_equal(F.lp_pool2d(x, float("inf"), 2).numpy(),
                                  [[[[5, 8], [13, 16]]]])


def test_lp_pool1d_padding_same_and_negative_norm(dygraph):
    x = paddle.to_tensor(np.array([[[1.0, 2, 3, 4]]]))
    # 3.3.1: [sqrt(1), sqrt(4 + 9), ...], padding adds nothing to the sums
    np.testing.assert_allclose(F.lp_pool1d(paddle.to_tensor(np.array([[[1.0, -2, 3, 4]]])),
                                           2, 2, 1, padding=1).numpy(),
                               [[[1, 2.236068, 3.605551, 5, 4]]], rtol=1e-6)
    np.testing.assert_allclose(F.lp_pool1d(x, 2, 3, 2, padding=1, ceil_mode=True).numpy(),
                               [[[2.236068, 5.385165, 4]]], rtol=1e-6)
    np.testing.assert_allclose(F.lp_pool1d(x, 2, 3, 2, padding="SAME").numpy(),
                               [[[3.741657, 5]]], rtol=1e-6)
    np.testing.assert_allclose(F.lp_pool1d(x, -1, 2).numpy(), [[[2 / 3, 12 / 7]]], rtol=1e-12)
    np.testing.assert_allclose(F.lp_pool1d(x, 1.5, 3, 1, padding=1).numpy(),
                               [[[2.447261, 4.334623, 6.356106, 5.58425]]], rtol=1e-6)


def test_lp_pool_gradient_matches_3_3_1_and_finite_differences(dygraph):
    x = paddle.to_tensor(SIGNED, stop_gradient=False)
    F.lp_pool2d(x, 2, 3, 1).sum().backward()
    np.testing.assert_allclose(x.gradient()[0, 0, 0], [0.04845, -0.182729, 0.274093,
                                                         0.171656], rtol=1e-5)
    want = central_differences(lambda a: lp_reference(a, 2, (3, 3), (1, 1)).sum(), SIGNED)
    np.testing.assert_allclose(x.gradient(), want, rtol=1e-6)
    positive = np.random.RandomState(0).uniform(0.5, 2, (1, 2, 5, 5))
    y = paddle.to_tensor(positive, stop_gradient=False)
    (F.lp_pool2d(y, 3, 3, 2, padding=1, ceil_mode=True) * 2).sum().backward()
    want = central_differences(
        lambda a: 2 * lp_reference(a, 3, (3, 3), (2, 2), (1, 1), ceil=True).sum(), positive)
    np.testing.assert_allclose(y.gradient(), want, rtol=1e-6)
    # out = 0: x^(p-1) out^(1-p) is 0 * inf, NaN as 3.3.1's
    z = paddle.zeros([1, 1, 2, 2], "float64")
    z.stop_gradient = False
    F.lp_pool2d(z, 2, 2).sum().backward()
    assert np.isnan(z.gradient()).all()


def test_lp_pool_static_equals_dynamic_and_nhwc():
    x = np.random.RandomState(1).uniform(0.1, 1, (2, 5, 6, 3)).astype("float32")
    got = run(lambda v: [F.lp_pool2d(v, 2.5, [2, 3], [1, 2], data_format="NHWC"),
                         F.lp_pool1d(v[:, :, :, 0], 2, 2)], v=x)
    want = lp_reference(x.transpose(0, 3, 1, 2).astype("float64"), 2.5, (2, 3), (1, 2))
    np.testing.assert_allclose(got[0], want.transpose(0, 2, 3, 1), rtol=1e-5)
    paddle.disable_static()
    eager = F.lp_pool1d(paddle.to_tensor(x[:, :, :, 0]), 2, 2).numpy()
    np.testing.assert_allclose(got[1], eager, rtol=1e-6)


def test_lp_pool_layers_and_errors(dygraph):
    assert repr(nn.LPPool2D(2, 3)) == "LPPool2D(norm_type=2.0, kernel_size=3, stride=3, " \
                                      "padding=0)"                     # 3.3.1's reprs
    assert repr(nn.LPPool1D(2, 3, 2)) == "LPPool1D(norm_type=2.0, kernel_size=3, stride=2, " \
                                         "padding=0)"
    x = paddle.to_tensor(SIGNED)
    np.testing.assert_array_equal(nn.LPPool2D(1, 2)(x).numpy(), F.lp_pool2d(x, 1, 2).numpy())
    assert nn.LPPool2d is nn.LPPool2D and nn.LPPool1d is nn.LPPool1D
    with pytest.raises(ValueError, match="norm_type cannot be 0"):
        F.lp_pool2d(x, 0, 2)
    with pytest.raises(ValueError, match=r"lp_pool2d: The x should have \[N, C, H, W\]"):
        F.lp_pool2d(paddle.ones([2, 3]), 2, 2)


def _pooled(x, nd):
    return getattr(F, "max_pool%dd" % nd)(paddle.to_tensor(x), 2, return_mask=True)


def test_max_unpool_puts_each_max_back(dygraph):
    x = np.random.RandomState(0).rand(1, 1, 4, 4).astype("float32")
    out, mask = _pooled(x, 2)
    got = F.max_unpool2d(out, mask, 2).numpy()
    blocks = x.reshape(2, 2, 2, 2).transpose(0, 2, 1, 3).reshape(4, 4)
    keep = (x == np.repeat(np.repeat(blocks.max(1).reshape(2, 2), 2, 0), 2, 1))
    np.testing.assert_array_equal(got, np.where(keep, x, 0))
    # 3.3.1: an output_size within a stride of the formula's, indices of int64 as well
    assert F.max_unpool2d(out, mask, 2, output_size=[5, 5]).shape == [1, 1, 5, 5]
    assert F.max_unpool2d(out, paddle.cast(mask, "int64"), 2).shape == [1, 1, 4, 4]
    out1, mask1 = F.max_pool1d(paddle.to_tensor(np.array([[[3.0, 1, 4, 1, 5, 9]]])), 2,
                               return_mask=True)
    np.testing.assert_array_equal(F.max_unpool1d(out1, mask1, 2).numpy(),
                                  [[[3, 0, 4, 0, 0, 9]]])
    cube = np.random.RandomState(1).permutation(64).reshape(1, 1, 4, 4, 4).astype("float64")
    out3, mask3 = _pooled(cube, 3)
    got3 = nn.MaxUnPool3D(2)(out3, mask3).numpy()
    assert sorted(got3[got3 > 0].tolist()) == sorted(out3.numpy().ravel().tolist())
    np.testing.assert_array_equal(got3.reshape(2, 2, 2, 2, 2, 2).max(axis=(1, 3, 5)),
                                  out3.numpy()[0, 0])


def test_max_unpool_gradient_and_static():
    x = np.random.RandomState(2).rand(2, 3, 4, 6)

    def build(v):
        out, mask = F.max_pool2d(v, 2, return_mask=True)
        return F.max_unpool2d(out, mask, 2)
    static_out = run(build, v=x)
    paddle.disable_static()
    v = paddle.to_tensor(x, stop_gradient=False)
    eager = build(v)
    np.testing.assert_array_equal(static_out, eager.numpy())
    weights = np.random.RandomState(3).rand(*x.shape)
    (eager * paddle.to_tensor(weights)).sum().backward()
    # the gradient reaches each window's max with the weight of the cell it went back to
    np.testing.assert_array_equal(v.gradient(), np.where(static_out != 0, weights, 0))


def test_max_unpool_errors_in_3_3_1_words(dygraph):
    data = paddle.rand([1, 1, 3, 3])
    idx = paddle.reshape(paddle.arange(0, 9), [1, 1, 3, 3]).astype("int32")
    with pytest.raises(ValueError, match=r"The dimensions of Input\(X\) must equal to"):
        F.max_unpool2d(data, paddle.reshape(paddle.arange(0, 12), [1, 1, 3, 4])
                       .astype("int32"), 2)
    with pytest.raises(ValueError, match=r"The x should have \[N, C, D, H, W\] format"):
        F.max_unpool3d(data, idx, 2)
    with pytest.raises(ValueError, match=r"Attr\(data_format\) should be 'NCHW'"):
        F.max_unpool2d(data, idx, 2, data_format="NHWC")
    with pytest.raises(ValueError, match=r"invalid output_size \[100, 100\]: dim 0 must be "
                                         r"between 4 and 8"):
        F.max_unpool2d(data, idx, 2, output_size=[100, 100])
    with pytest.raises(ValueError, match="index should less than output"):
        F.max_unpool2d(data, idx + 31, 2)
    assert repr(nn.MaxUnPool1D(2, output_size=[4])) == "MaxUnPool1D(output_size=[4])"
    assert nn.MaxUnpool2d is nn.MaxUnPool2D


def test_fractional_max_pool_matches_3_3_1(dygraph):
    x = paddle.to_tensor(np.random.RandomState(1).rand(1, 2, 6, 7), stop_gradient=False)
    out, mask = F.fractional_max_pool2d(x, [3, 2], random_u=0.4, return_mask=True)
    # 3.3.1's values and mask (flat indices in each 6 x 7 plane)
    np.testing.assert_allclose(out.numpy().ravel(), [
        0.720324, 0.878117, 0.968262, 0.894607, 0.878143, 0.988861, 0.789279, 0.908596,
        0.699758, 0.944595, 0.903402, 0.927509], rtol=1e-5)
    assert mask.dtype == paddle.int32
    assert mask.numpy().ravel().tolist() == [1, 13, 21, 25, 29, 40, 1, 4, 17, 26, 28, 34]
    (out * paddle.arange(12).reshape([1, 2, 3, 2]).astype("float64")).sum().backward()
    want = np.zeros((6, 7))
    for cell, flat in enumerate([1, 13, 21, 25, 29, 40]):
        want.flat[flat] += cell
    np.testing.assert_array_equal(x.gradient()[0, 0], want)
    cube = paddle.to_tensor(np.random.RandomState(2).rand(1, 1, 5, 6, 7))
    _, mask3 = F.fractional_max_pool3d(cube, [2, 3, 4], random_u=0.6, return_mask=True)
    assert mask3.numpy().ravel().tolist() == [49, 93, 88, 97, 99, 58, 68, 111, 78, 115, 40,
                                              118, 176, 136, 137, 181, 190, 142, 144, 146,
                                              196, 198, 165, 209]
    _, mask3 = nn.FractionalMaxPool3D([2, 3, 4], kernel_size=[2, 2, 2], random_u=0.6,
                                      return_mask=True)(cube)
    assert mask3.numpy().ravel().tolist() == [49, 44, 53, 53, 15, 58, 59, 68, 78, 78, 74, 40,
                                              176, 176, 137, 137, 190, 190, 185, 144, 196,
                                              198, 165, 165]


@pytest.mark.parametrize("size, out, kernel, u, want", [
    # the last cell of each window on an increasing row (3.3.1, measured)
    (10, 4, None, 0.5, [2, 4, 7, 9]), (10, 4, None, 0.3, [1, 4, 6, 9]),
    (10, 3, None, 0.7, [3, 6, 9]), (7, 3, None, 0.3, [1, 4, 6]), (9, 4, None, 0.7, [2, 4, 6, 8]),
    (10, 4, 3, 0.3, [2, 5, 7, 9]), (6, 4, 2, 0.5, [1, 3, 4, 5]), (5, 5, None, 0.5, [0, 1, 2, 3, 4])])
def test_fractional_windows_on_a_row(dygraph, size, out, kernel, u, want):
    row = paddle.to_tensor(np.arange(float(size)).reshape(1, 1, 1, size))
    got = F.fractional_max_pool2d(row, [1, out], None if kernel is None else [1, kernel],
                                  random_u=u)
    assert got.numpy().ravel().astype(int).tolist() == want


def test_fractional_max_pool_draws_u_and_checks_arguments():
    x = np.random.RandomState(0).rand(1, 1, 9, 9)
    static_out = run(lambda v: F.fractional_max_pool2d(v, 4, random_u=0.35), v=x)
    paddle.disable_static()
    eager = F.fractional_max_pool2d(paddle.to_tensor(x), 4, random_u=0.35).numpy()
    np.testing.assert_array_equal(static_out, eager)
    # no random_u: each call draws one from the global generator (paddle.seed)
    paddle.seed(5)
    first = F.fractional_max_pool2d(paddle.to_tensor(x), 4).numpy()
    paddle.seed(5)
    np.testing.assert_array_equal(F.fractional_max_pool2d(paddle.to_tensor(x), 4).numpy(),
                                  first)
    with pytest.raises(ValueError, match=r"random_u must be a float in \(0, 1\)"):
        F.fractional_max_pool2d(paddle.to_tensor(x), 3, random_u=1.0)
    with pytest.raises(ValueError, match="smaller than output_size"):
        F.fractional_max_pool2d(paddle.to_tensor(x), 3, kernel_size=8, random_u=0.5)
    assert repr(nn.FractionalMaxPool2D(3, random_u=0.3)) == \
        "FractionalMaxPool2D(output_size=3, return_mask=False)"               # 3.3.1's
