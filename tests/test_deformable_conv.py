"""fluid.layers.deformable_conv and the deformable_conv(_v1) ops (the generic checks are in
test_ops.py): against a plain convolution, shifted and interpolated inputs, and values
recorded from Paddle."""
import numpy as np
import pytest

from refimpl import fluid
from refimpl.ops.deformable_conv import DeformableConv, DeformableConvV1, ATTRS as DC_ATTRS
from helpers import build_programs as _build, run_programs as _run


def _conv(x, w, pad):
    """Plain cross-correlation, stride 1, groups 1."""
    n, c, h, wd = x.shape
    m, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    ho, wo = h + 2 * pad - kh + 1, wd + 2 * pad - kw + 1
    out = np.zeros((n, m, ho, wo))
    for i in range(kh):
        for j in range(kw):
            out += np.einsum("mc,nchw->nmhw", w[:, :, i, j], xp[:, :, i:i + ho, j:j + wo])
    return out


# -- deformable_conv
def test_deformable_conv_layer_zero_offset_is_conv_and_mask_scales():
    rng = np.random.RandomState(0)
    x = rng.uniform(-1, 1, (2, 3, 5, 5)).astype("float32")
    offset = np.zeros((2, 18, 5, 5), "float32")
    mask = np.full((2, 9, 5, 5), 0.5, "float32")

    def net():
        xv = fluid.data("x", [-1, 3, 5, 5])
        ov = fluid.data("offset", [-1, 18, 5, 5])
        mv = fluid.data("mask", [-1, 9, 5, 5])
        v2 = fluid.layers.deformable_conv(xv, ov, mv, num_filters=4, filter_size=3, padding=1,
                                          bias_attr=False)
        v1 = fluid.layers.deformable_conv(xv, ov, None, num_filters=4, filter_size=3,
                                          padding=1, modulated=False, bias_attr=False)
        return v2, v1

    main, startup, (v2, v1) = _build(net)
    assert v2.shape == (-1, 4, 5, 5) and v1.shape == (-1, 4, 5, 5)
    assert [op.type for op in main.global_block().ops] == ["deformable_conv",
                                                           "deformable_conv_v1"]
    (o2, o1), params = _run(main, startup, {"x": x, "offset": offset, "mask": mask}, [v2, v1])
    w2, w1 = (params[op.input("Filter")[0]] for op in main.global_block().ops)
    np.testing.assert_allclose(o2, 0.5 * _conv(x, w2, 1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(o1, _conv(x, w1, 1), rtol=1e-5, atol=1e-5)


def test_deformable_conv_integer_offsets_shift_the_input():
    rng = np.random.RandomState(1)
    x = rng.uniform(-1, 1, (1, 2, 6, 6))
    w = rng.uniform(-1, 1, (3, 2, 2, 2))
    # every tap reads one row down and two columns left: rows/cols past the edge read 0
    offset = np.zeros((1, 8, 5, 5))
    offset[:, 0::2], offset[:, 1::2] = 1.0, -2.0
    shifted = np.zeros_like(x)
    shifted[:, :, :-1, 2:] = x[:, :, 1:, :-2]
    got = DeformableConvV1.forward(x, offset, w, **DC_ATTRS)
    np.testing.assert_allclose(got, _conv(shifted, w, 0), rtol=1e-12, atol=1e-12)


def test_deformable_conv_half_pixel_offset_averages_neighbours():
    x = np.arange(16.0).reshape(1, 1, 4, 4)
    w = np.ones((1, 1, 1, 1))
    offset = np.zeros((1, 2, 4, 4))
    offset[:, 1] = 0.5  # half a column right: the mean of columns j and j + 1 (0 past W)
    mask = np.ones((1, 1, 4, 4))
    got = DeformableConv.forward(x, offset, mask, w, **DC_ATTRS)[0, 0]
    right = np.concatenate([x[0, 0, :, 1:], np.zeros((4, 1))], axis=1)
    np.testing.assert_allclose(got, (x[0, 0] + right) / 2)


def test_deformable_conv_matches_paddle_deform_conv2d_recorded():
    """Values recorded from Paddle 3.3.1 paddle.vision.ops.deform_conv2d (see the spec)."""
    x = np.arange(18.0).reshape(1, 2, 3, 3) / 10
    w = np.array([[[[1.0, -1.0], [0.5, 2.0]], [[-0.5, 1.0], [1.5, -2.0]]]])
    offset = np.linspace(-1.3, 1.7, 2 * 4 * 2 * 2).reshape(1, 8, 2, 2)
    mask = np.linspace(0.1, 0.9, 16).reshape(1, 4, 2, 2)
    got = DeformableConv.forward(x, offset, mask, w, **DC_ATTRS)
    np.testing.assert_allclose(got, PADDLE_DEFORM_CONV2D, rtol=1e-6, atol=1e-9)


def test_deformable_conv_errors():
    def bad_offset():
        xv = fluid.data("x", [1, 2, 5, 5])
        ov = fluid.data("offset", [1, 9, 5, 5])
        fluid.layers.deformable_conv(xv, ov, None, 2, 3, padding=1, modulated=False)

    # Paddle checks Offset's and Mask's shapes only when the op runs (its InferShape's
    # IsRuntime branch; 2.0's test_deformable_conv_op builds with a 4-channel Offset for a
    # 1 x 1 kernel), so the program builds and the kernel refuses them
    _build(bad_offset)
    attrs = dict(DC_ATTRS, paddings=[1, 1])
    with pytest.raises(ValueError, match=r"Offset: expected \[1, 18, 5, 5\] .*got \[1, 9"):
        DeformableConvV1.forward(np.zeros((1, 2, 5, 5)), np.zeros((1, 9, 5, 5)),
                                 np.zeros((2, 2, 3, 3)), **attrs)
    with pytest.raises(ValueError, match=r"Mask: expected \[1, 9, 5, 5\]"):
        DeformableConv.forward(np.zeros((1, 2, 5, 5)), np.zeros((1, 18, 5, 5)),
                               np.zeros((1, 8, 5, 5)), np.zeros((2, 2, 3, 3)), **attrs)
    x = np.zeros((3, 1, 3, 3))
    with pytest.raises(ValueError, match="multiple of im2col_step 2"):
        DeformableConvV1.forward(x, np.zeros((3, 2, 3, 3)), np.zeros((1, 1, 1, 1)),
                                 **dict(DC_ATTRS, im2col_step=2))


# paddle.vision.ops.deform_conv2d(x, offset, w, mask=mask) in Paddle 3.3.1, float64
PADDLE_DEFORM_CONV2D = np.array([[[[0.5375962400277483, 1.6404774193548386],
                                   [1.3145553555324319, 1.1801243600416236]]]])


def test_vision_deform_conv2d_with_zero_offsets_is_conv2d(dygraph):
    """paddle.vision.ops (2.0): with zero offsets (and a mask of ones) deform_conv2d is the
    plain convolution plus the bias on the channel axis; float32 stays float32."""
    import refimpl as paddle
    rng = np.random.RandomState(3)
    x = paddle.to_tensor(rng.rand(2, 4, 5, 5).astype("float32"))
    w = paddle.to_tensor(rng.rand(6, 2, 3, 3).astype("float32"))
    b = paddle.to_tensor(rng.rand(6).astype("float32"))
    offset = paddle.zeros([2, 18, 5, 5], "float32")
    want = paddle.nn.functional.conv2d(x, w, b, padding=1, groups=2).numpy()
    v1 = paddle.vision.ops.deform_conv2d(x, offset, w, b, padding=1, groups=2)
    v2 = paddle.vision.ops.deform_conv2d(x, offset, w, b, padding=1, groups=2,
                                         mask=paddle.ones([2, 9, 5, 5], "float32"))
    for got in (v1, v2):
        assert got.dtype.name == "float32"
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-5)
    layer = paddle.vision.ops.DeformConv2D(4, 6, 3, padding=1, groups=2, bias_attr=False)
    assert layer.weight.shape == [6, 2, 3, 3] and layer.bias is None
    np.testing.assert_allclose(layer(x, offset).numpy(), paddle.nn.functional.conv2d(
        x, layer.weight, padding=1, groups=2).numpy(), rtol=1e-5, atol=1e-5)


def test_static_nn_deform_conv2d_is_v2_with_a_mask_and_v1_without():
    # Paddle 2.0's paddle.static.nn.deform_conv2d (its test_deformable_conv_op's API case)
    import refimpl as paddle
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [None, 3, 8, 8], "float32")
        offset = paddle.static.data("offset", [None, 18, 8, 8], "float32")
        mask = paddle.static.data("mask", [None, 9, 8, 8], "float32")
        v2 = paddle.static.nn.deform_conv2d(x, offset, mask, num_filters=4, filter_size=3,
                                            padding=1)
        v1 = paddle.static.nn.deform_conv2d(x, offset, None, num_filters=4, filter_size=3,
                                            padding=1, bias_attr=False)
    assert v1.shape == v2.shape == (-1, 4, 8, 8)
    assert [op.type for op in main.global_block().ops] == [
        "deformable_conv", "elementwise_add", "deformable_conv_v1"]
