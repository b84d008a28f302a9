"""Paddle 3's rearrangements and padding layers: F.channel_shuffle, F.pixel_unshuffle,
F.fold (col2im), F.zeropad2d, nn.ChannelShuffle / PixelUnshuffle / Fold / Unfold and the
one-mode padding layers (ZeroPad, ConstantPad, ReflectionPad, ReplicationPad, CircularPad):
values and reprs recorded on 3.3.1, numpy references, adjoint identities."""
import numpy as np
import pytest

import refimpl as paddle
import refimpl.nn.functional as F
from refimpl import nn

from test_functional_loss import run

pytestmark = pytest.mark.paddle("3")
RNG = np.random.RandomState(7)


def test_channel_shuffle_matches_3_3_1(dygraph):
    c = paddle.arange(12).reshape([2, 6, 1, 1]).astype("float32")
    want = [0, 2, 4, 1, 3, 5, 6, 8, 10, 7, 9, 11]       # 3.3.1, groups 3
    assert F.channel_shuffle(c, 3).numpy().ravel().tolist() == want
    assert F.channel_shuffle(c.reshape([2, 1, 1, 6]), 3, "NHWC").numpy().ravel().tolist() \
        == want
    assert nn.ChannelShuffle(3)(c).numpy().ravel().tolist() == want


def test_pixel_unshuffle_matches_3_3_1_and_inverts_pixel_shuffle(dygraph):
    p = paddle.arange(32).reshape([1, 2, 4, 4]).astype("float32")
    got = F.pixel_unshuffle(p, 2)
    assert got.shape == [1, 8, 2, 2]
    assert got.numpy()[0, :, 0, 0].tolist() == [0, 1, 4, 5, 16, 17, 20, 21]   # 3.3.1
    assert F.pixel_unshuffle(p.transpose([0, 2, 3, 1]), 2, "NHWC").numpy()[0, 0, 0].tolist() \
        == [0, 1, 4, 5, 16, 17, 20, 21]
    x = RNG.randn(2, 3, 6, 9)
    back = F.pixel_shuffle(F.pixel_unshuffle(paddle.to_tensor(x), 3), 3)
    np.testing.assert_array_equal(back.numpy(), x)


def test_rearrangement_gradients_are_the_inverse_permutations():
    x = RNG.randn(2, 4, 4, 6)
    w = RNG.randn(2, 16, 2, 3)

    def build(v):
        return [F.pixel_unshuffle(v, 2), F.channel_shuffle(v, 2)]
    static_outs = run(build, v=x)
    paddle.disable_static()
    v = paddle.to_tensor(x, stop_gradient=False)
    unshuffled, shuffled = build(v)
    np.testing.assert_array_equal(static_outs[0], unshuffled.numpy())
    np.testing.assert_array_equal(static_outs[1], shuffled.numpy())
    (unshuffled * paddle.to_tensor(w)).sum().backward()
    # d/dx sum(w * unshuffle(x)) = shuffle(w)
    np.testing.assert_array_equal(v.gradient(), F.pixel_shuffle(paddle.to_tensor(w), 2).numpy())


def test_rearrangement_argument_errors(dygraph):
    p = paddle.ones([1, 2, 4, 4])
    with pytest.raises(TypeError, match="groups must be an int"):
        F.channel_shuffle(p, 2.0)
    with pytest.raises(ValueError, match="downscale_factor must be positive"):
        F.pixel_unshuffle(p, -1)
    with pytest.raises(ValueError, match="x must be 4-D"):
        F.pixel_unshuffle(paddle.ones([2, 4, 4]), 2)
    with pytest.raises(ValueError, match=r"the height of X .* must be divisible by 3"):
        F.pixel_unshuffle(p, 3)
    # the layers check at construction (3.3.1; its test_channel_shuffle asserts it)
    with pytest.raises(TypeError):
        nn.ChannelShuffle(3.33)
    with pytest.raises(ValueError):
        nn.PixelUnshuffle(3, "MEOW")
    assert repr(nn.ChannelShuffle(2)) == "ChannelShuffle(groups=2)"
    assert repr(nn.PixelUnshuffle(3, "NHWC")) == \
        "PixelUnshuffle(downscale_factor=3, data_format=NHWC)"


def test_fold_matches_3_3_1_and_is_unfolds_adjoint(dygraph):
    f = paddle.arange(16).reshape([1, 4, 4]).astype("float32")
    np.testing.assert_array_equal(F.fold(f, [3, 3], 2).numpy(),
                                  [[[[0, 5, 5], [10, 30, 20], [10, 25, 15]]]])   # 3.3.1
    np.testing.assert_array_equal(F.fold(paddle.ones([2, 8, 9]), [5, 5], 2, strides=2,
                                         paddings=1).numpy(), np.ones((2, 2, 5, 5)))
    # <unfold(x), y> == <x, fold(y)> for any sizes
    x = RNG.randn(2, 3, 7, 6)
    args = dict(kernel_sizes=[3, 2], strides=[2, 1], paddings=[1, 0, 1, 2], dilations=[1, 2])
    cols = F.unfold(paddle.to_tensor(x), **args)
    y = RNG.randn(*cols.shape)
    folded = F.fold(paddle.to_tensor(y), [7, 6], **args)
    np.testing.assert_allclose((cols.numpy() * y).sum(), (x * folded.numpy()).sum(),
                               rtol=1e-12)
    layer = nn.Fold([7, 6], [3, 2], dilations=[1, 2], paddings=[1, 0, 1, 2], strides=[2, 1])
    np.testing.assert_array_equal(layer(paddle.to_tensor(y)).numpy(), folded.numpy())
    assert repr(nn.Fold([4, 4], 2)) == "Fold(kernel_size=2, dilation=1, padding=0, stride=1)"
    assert repr(nn.Unfold(2)) == "Unfold(kernel_size=2, dilation=1, padding=0, stride=1)"
    np.testing.assert_array_equal(nn.Unfold([3, 2], dilations=[1, 2], paddings=[1, 0, 1, 2],
                                            strides=[2, 1])(paddle.to_tensor(x)).numpy(),
                                  cols.numpy())


def test_fold_errors_as_3_3_1(dygraph):
    x = paddle.randn([2, 6, 6])
    with pytest.raises(AssertionError):
        F.fold(paddle.randn([2, 3, 6, 7]), [2, 3], [2, 2])
    with pytest.raises(AssertionError):
        F.fold(x, [2, 3], [2, 2, 3])
    with pytest.raises(ValueError, match="paddings must be an int or 2 or 4 ints"):
        F.fold(x, [2, 3], [2, 2], paddings=[2, 2, 3])
    with pytest.raises(TypeError, match="output_sizes must be ints"):
        F.fold(x, [0.1, 0.2], [2, 2])
    with pytest.raises(ValueError, match=r"must be divisible by kh kw = 4"):
        F.fold(x, [6, 6], [2, 2])
    with pytest.raises(ValueError, match=r"must be the 5 x 5 = 25 blocks"):
        F.fold(paddle.randn([2, 8, 6]), [6, 6], [2, 2])


@pytest.mark.parametrize("kind, mode, np_mode", [
    ("Zero", "constant", "constant"), ("Constant", "constant", "constant"),
    ("Reflection", "reflect", "reflect"), ("Replication", "replicate", "edge"),
    ("Circular", "circular", "wrap")])
def test_padding_layers_pad_in_their_mode(dygraph, kind, mode, np_mode):
    value = 2.5 if kind == "Constant" else 0.0
    for nd, shape, padding in [(1, (2, 3, 5), [1, 2]), (2, (1, 2, 4, 5), [1, 2, 2, 1]),
                               (3, (1, 1, 3, 4, 5), [1, 0, 2, 1, 0, 2])]:
        cls = getattr(nn, "%sPad%dD" % (kind, nd))
        layer = cls(padding, value) if kind == "Constant" else cls(padding)
        assert getattr(nn, "%sPad%dd" % (kind, nd)) is cls
        x = RNG.randn(*shape)
        widths = [(0, 0), (0, 0)] + [(padding[2 * i], padding[2 * i + 1])
                                     for i in reversed(range(nd))]
        kw = {"constant_values": value} if mode == "constant" else {}
        np.testing.assert_array_equal(layer(paddle.to_tensor(x)).numpy(),
                                      np.pad(x, widths, mode=np_mode, **kw))
        assert isinstance(layer, getattr(nn, "Pad%dD" % nd))


def test_padding_layer_reprs_and_zeropad2d(dygraph):
    # 3.3.1's reprs
    assert repr(nn.ZeroPad2D(1)) == \
        "ZeroPad2D(padding=[1, 1, 1, 1], mode=constant, value=0.0, data_format=NCHW)"
    assert repr(nn.ConstantPad1D([1, 2], 3.5)) == \
        "ConstantPad1D(padding=[1, 2], mode=constant, value=3.5, data_format=NCL)"
    assert repr(nn.ReflectionPad3D(1)) == "ReflectionPad3D(padding=[1, 1, 1, 1, 1, 1], " \
                                          "mode=reflect, value=0.0, data_format=NCDHW)"
    got = F.zeropad2d(paddle.ones([1, 1, 2, 3]), [1, 2, 1, 1]).numpy()[0, 0]
    np.testing.assert_array_equal(got, np.pad(np.ones((2, 3)), [(1, 1), (1, 2)]))
    # 3.3.1's pad3d takes ints and complex
    ints = F.zeropad2d(paddle.ones([1, 1, 2, 2], "int64"), 1)
    assert ints.dtype == paddle.int64 and ints.numpy().sum() == 4
    z = paddle.to_tensor(np.array([[[1 + 2j, 3 - 1j]]], "complex64"))
    np.testing.assert_array_equal(nn.CircularPad1D([1, 1])(z).numpy(),
                                  [[[3 - 1j, 1 + 2j, 3 - 1j, 1 + 2j]]])
