"""pad / pixel rearrangements / interpolate / unfold / diag_embed / temporal_shift against
numpy and explicit per-element formulas."""
import numpy as np
import pytest

import refimpl as paddle
import refimpl.nn.functional as F
from refimpl import fluid, nn, static

from test_functional_loss import run
from helpers import build_programs as _build, run_programs as _run

RNG = np.random.RandomState(5)


@pytest.mark.parametrize("mode, np_mode", [("constant", "constant"), ("reflect", "reflect"),
                                           ("replicate", "edge"), ("circular", "wrap")])


def test_pad_modes_3d_4d_5d(mode, np_mode):
    kw = {"constant_values": 0.5} if mode == "constant" else {}
    for shape, pad, widths, fmt in [
            ((2, 3, 5), [1, 2], [(0, 0), (0, 0), (1, 2)], "NCL"),
            ((2, 3, 4, 5), [1, 2, 2, 1], [(0, 0), (0, 0), (2, 1), (1, 2)], "NCHW"),
            ((1, 2, 3, 4, 5), [1, 0, 2, 1, 0, 2], [(0, 0), (0, 0), (0, 2), (2, 1), (1, 0)],
             "NCDHW")]:
        x = RNG.randn(*shape)
        got = run(lambda x: F.pad(x, pad, mode, value=0.5, data_format=fmt), x=x)
        np.testing.assert_array_equal(got, np.pad(x, widths, mode=np_mode, **kw))


def test_circular_pad_wider_than_the_dim_wraps_around():
    """Paddle 3.3.1 pads [0, 1, 2] by 4 each side circularly to [2, 0, 1, 2, 0, 1, 2, 0, 1,
    2, 0] (measured); 2.0's test_pad3d_op pads a size-3 dim by 4 too."""
    x = np.arange(3, dtype="float64").reshape(1, 1, 3)
    got = run(lambda x: F.pad(x, [4, 4], mode="circular", data_format="NCL"), x=x)
    assert got.ravel().tolist() == [2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0]


def test_pad_channels_last_and_full_constant():
    x = RNG.randn(2, 4, 5, 3)
    got = run(lambda x: F.pad(x, [1, 2, 0, 1], "reflect", data_format="NHWC"), x=x)
    np.testing.assert_array_equal(got, np.pad(x, [(0, 0), (0, 1), (1, 2), (0, 0)], "reflect"))
    got = run(lambda x: [F.pad(x, [1, 0, 0, 2, 1, 1, 0, 1], value=2.0),
                         fluid.layers.pad(x, [1, 0, 0, 2, 1, 1, 0, 1], 2.0)], x=x)
    want = np.pad(x, [(1, 0), (0, 2), (1, 1), (0, 1)], constant_values=2.0)
    np.testing.assert_array_equal(got[0], want)
    np.testing.assert_array_equal(got[1], want)


def test_pad_checks_mode_and_data_format_with_assertions():
    """Paddle 2.0 and 3.3.1 (measured) assert: a data_format of x's rank ('NCHW' for a 3-D
    x fails), a known mode and layout; Pad1D's 'NCL' on a 4-D x as well."""
    x = static.data("x", [1, 2, 6], "float32")
    with pytest.raises(AssertionError, match=r"a 3-D x takes data_format NCL or NLC, "
                                             r"got 'NCHW'"):
        F.pad(x, [1, 2], mode="reflect")
    with pytest.raises(AssertionError, match="pad: mode must be one of"):
        F.pad(x, [1, 2], mode="wrong", data_format="NCL")
    with pytest.raises(AssertionError, match="pad: data_format must be one of"):
        F.pad(x, [1, 2], data_format="XYZ")
    with pytest.raises(AssertionError, match="a 4-D x takes data_format NCHW or NHWC"):
        nn.Pad1D([1, 2], mode="replicate")(static.data("y", [1, 2, 3, 4], "float32"))


def test_tensor_pad_eager_and_static():
    """A 1-D int32 Tensor pad: read now in dynamic mode, pad3d's Paddings input in a static
    program (Paddle 3.3.1 gives the same values both ways)."""
    x = np.arange(24, dtype="float64").reshape(1, 2, 3, 4)
    want = np.pad(x, [(0, 0), (0, 0), (0, 1), (1, 2)], constant_values=9)
    got = run(lambda x, p: F.pad(x, p, value=9), x=x, p=np.array([1, 2, 0, 1], "int32"))
    np.testing.assert_array_equal(got, want)
    seq = np.arange(12, dtype="float32").reshape(1, 2, 6)
    got = run(lambda s, p: F.pad(s, p, mode="reflect", data_format="NLC"), s=seq,
              p=np.array([1, 0], "int32"))
    np.testing.assert_array_equal(got, np.pad(seq, [(0, 0), (1, 0), (0, 0)], "reflect"))
    paddle.disable_static()
    try:
        pad = paddle.to_tensor([1, 2, 0, 1], dtype="int32")
        np.testing.assert_array_equal(F.pad(paddle.to_tensor(x), pad, value=9).numpy(), want)
        layer = nn.Pad2D(padding=pad, mode="reflect")
        np.testing.assert_array_equal(layer(paddle.to_tensor(x)).numpy(),
                                      np.pad(x, [(0, 0), (0, 0), (0, 1), (1, 2)], "reflect"))
    finally:
        paddle.enable_static()


def test_pad2d_and_pad_constant_like():
    x = RNG.randn(1, 2, 3, 4)
    got = run(lambda x: [fluid.layers.pad2d(x, [1, 0, 2, 1], mode="edge"),
                         fluid.layers.pad2d(x, [0, 1, 1, 1], pad_value=3.0)], x=x)
    np.testing.assert_array_equal(got[0], np.pad(x, [(0, 0), (0, 0), (1, 0), (2, 1)], "edge"))
    np.testing.assert_array_equal(got[1], np.pad(x, [(0, 0), (0, 0), (0, 1), (1, 1)],
                                                 constant_values=3.0))
    big, small = RNG.randn(3, 4), RNG.randn(2, 3)
    got = run(lambda a, b: fluid.layers.pad_constant_like(a, b, 1.5), a=big, b=small)
    np.testing.assert_array_equal(got, np.pad(small, [(0, 1), (0, 1)], constant_values=1.5))


def test_reflect_pad_rejects_too_wide_padding():
    with pytest.raises(Exception, match="reflect padding 3 must be smaller"):
        run(lambda x: F.pad(x, [3, 0], "reflect", data_format="NCL"), x=RNG.randn(1, 1, 3))


def test_pixel_shuffle_formula():
    r, x = 2, RNG.randn(2, 8, 3, 2)
    got = run(lambda x: [F.pixel_shuffle(x, r), fluid.layers.pixel_shuffle(x, r)], x=x)
    want = np.zeros((2, 2, 6, 4))
    for c in range(2):
        for i in range(r):
            for j in range(r):
                want[:, c, i::r, j::r] = x[:, c * r * r + i * r + j]
    np.testing.assert_array_equal(got[0], want)
    np.testing.assert_array_equal(got[1], want)
    nhwc = run(lambda x: F.pixel_shuffle(x, r, "NHWC"), x=x.transpose(0, 2, 3, 1))
    np.testing.assert_array_equal(nhwc, want.transpose(0, 2, 3, 1))


def test_pixel_shuffle_refuses_a_float_factor_and_an_unknown_format():
    """2.0's test_pixel_shuffle asserts these (3.3.1 raises the same types, measured)."""
    from refimpl import nn, static
    x = static.data("ps", [2, 9, 4, 4], "float64")
    for make in (lambda: F.pixel_shuffle(x, 3.0), lambda: nn.PixelShuffle(3.33)):
        with pytest.raises(TypeError, match=r"upscale_factor must be an int, got 3\.(0|33)"):
            make()
    for make in (lambda: F.pixel_shuffle(x, 3, "WOW"), lambda: nn.PixelShuffle(3, "WOW")):
        with pytest.raises(ValueError, match=r"data_format must be 'NCHW' or 'NHWC', got 'WOW'"):
            make()
    assert F.pixel_shuffle(x, 3).shape == (2, 1, 12, 12)


def test_space_to_depth_as_paddle_1_8_5_and_shuffle_channel():
    # Paddle 1.8.5's kernel (darknet's reorg, as its test_space_to_depth_op's reference),
    # not its docs' example (which has 1 channel: 1.8.5 refuses C not divisible by b^2)
    x = np.arange(32.0).reshape(1, 4, 2, 4)
    got = run(lambda x: fluid.layers.space_to_depth(x, 2), x=x)
    assert got.shape == (1, 16, 1, 2)
    np.testing.assert_array_equal(got.ravel(), [
        0, 8, 1, 9, 2, 10, 3, 11, 16, 24, 17, 25, 18, 26, 19, 27, 4, 12, 5, 13, 6, 14, 7, 15,
        20, 28, 21, 29, 22, 30, 23, 31])
    with pytest.raises(ValueError, match="the channels .* must be divisible by 4"):
        run(lambda x: fluid.layers.space_to_depth(x, 2), x=np.zeros((1, 2, 2, 2)))
    x = np.arange(6.0).reshape(1, 6, 1, 1)
    got = run(lambda x: fluid.layers.shuffle_channel(x, 2), x=x)
    np.testing.assert_array_equal(got.ravel(), [0, 3, 1, 4, 2, 5])


def _bilinear_reference(x, oh, ow, align_corners, align_mode):
    """Per output pixel, straight from the definition (NCHW)."""
    n, c, h, w = x.shape

    def source(i, n_in, n_out):
        if align_corners:
            return i * (n_in - 1) / (n_out - 1)
        if align_mode == 0:
            return max((i + 0.5) * n_in / n_out - 0.5, 0.0)
        return i * n_in / n_out
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            sy, sx = source(i, h, oh), source(j, w, ow)
            y0, x0 = int(sy), int(sx)
            y1, x1 = min(y0 + 1, h - 1), min(x0 + 1, w - 1)
            ly, lx = sy - y0, sx - x0
            out[:, :, i, j] = ((1 - ly) * ((1 - lx) * x[:, :, y0, x0] + lx * x[:, :, y0, x1])
                               + ly * ((1 - lx) * x[:, :, y1, x0] + lx * x[:, :, y1, x1]))
    return out


@pytest.mark.parametrize("align_corners, align_mode", [(False, 0), (False, 1), (True, 0)])


def test_bilinear_interpolate_formula(align_corners, align_mode):
    x = RNG.randn(2, 3, 4, 5)
    got = run(lambda x: F.interpolate(x, size=[7, 3], mode="bilinear",
                                      align_corners=align_corners, align_mode=align_mode), x=x)
    np.testing.assert_allclose(got, _bilinear_reference(x, 7, 3, align_corners, align_mode))


def test_fluid_resize_bilinear_defaults_align_corners():
    x = RNG.randn(1, 2, 3, 3)
    got = run(lambda x: fluid.layers.resize_bilinear(x, out_shape=[5, 5]), x=x)
    np.testing.assert_allclose(got, _bilinear_reference(x, 5, 5, True, 1))
    # corners are kept exactly
    np.testing.assert_allclose(got[..., ::2, ::2], x)


def test_fluid_resize_run_time_sizes_and_uint8_as_paddle18():
    """The 1.8 interp ops' OutSize / SizeTensor / Scale inputs, the in/out source ratio of
    a scale-given size and uint8 images: values recorded on Paddle 1.8.5."""
    x = (np.arange(12, dtype="float32") ** 2).reshape(1, 1, 3, 4)
    image = np.array([[[[0, 100, 255], [7, 50, 9]]]], "uint8")
    got = run(lambda x, dim, size, sc, xu: [
        fluid.layers.resize_bilinear(x, scale=1.5, align_corners=False, align_mode=1),
        fluid.layers.resize_bilinear(x, out_shape=[dim, 3]),
        fluid.layers.resize_bilinear(x, out_shape=[2, 2], actual_shape=size),
        fluid.layers.resize_nearest(x, scale=sc, align_corners=False),
        fluid.layers.resize_bilinear(xu, out_shape=[3, 4], align_corners=False, align_mode=0)],
        x=x, dim=np.array([2], "int32"), size=np.array([2, 5], "int32"),
        sc=np.array([0.7], "float32"), xu=image)
    want = [[[0.0, 0.66667, 2.0, 4.0, 7.33333, 9.0], [12.0, 16.66667, 22.0, 28.0, 35.33334, 39.0],
             [40.0, 48.66666, 58.0, 68.0, 79.33334, 85.0],
             [64.0, 75.33333, 87.33334, 100.0, 114.0, 121.0]],
            [[0.0, 2.5, 9.0], [64.0, 90.5, 121.0]],
            [[0.0, 0.75, 2.5, 5.25, 9.0], [64.0, 76.75, 90.5, 105.25, 121.0]],
            [[0.0, 4.0], [16.0, 36.0]]]
    for out, values in zip(got, want):
        np.testing.assert_allclose(out[0, 0], values, rtol=1e-5, atol=1e-5)
    assert got[4].dtype == np.uint8   # 1.8.5 truncates in float32: 8 where refimpl has 9
    np.testing.assert_allclose(got[4][0, 0], [[0, 62, 158, 255], [3, 48, 96, 132],
                                              [7, 33, 34, 8]], atol=1)
    x_var = lambda: fluid.data("x", [1, 3, 6, 6], "float32")
    with pytest.raises(ValueError, match="data_format"):
        _build(lambda: fluid.layers.resize_nearest(x_var(), [4, 8], data_format="NDHWC"))
    with pytest.raises(TypeError, match="scale"):
        _build(lambda: fluid.layers.resize_nearest(x_var(), scale="scale"))
    with pytest.raises(ValueError, match="scale"):
        _build(lambda: fluid.layers.resize_nearest(x_var(), scale=-0.3))


def test_fluid_resize_scale_wins_over_out_size_attrs():
    """1.8.5's interp ops: scale > 0 decides the size even when out_h / out_w are set, and
    one output row reads source row 0 (ratio 0)."""
    main, _, out = _build(lambda: fluid.layers.resize_bilinear(
        fluid.data("x", [2, 3, 5, 7], "float64"), out_shape=[60, 25]))
    op = main.global_block().ops[-1]
    op._set_attr("scale", 0.2)
    op._set_attr("align_corners", False)
    op._set_attr("align_mode", 0)
    x = RNG.randn(2, 3, 5, 7)
    got, = fluid.Executor(fluid.CPUPlace()).run(main, feed={"x": x},
                                                fetch_list=[out.name])
    np.testing.assert_array_equal(got, x[:, :, :1, :1])


def test_nearest_interpolate_and_scale_factor():
    x = RNG.randn(1, 2, 3, 4)
    got = run(lambda x: F.interpolate(x, scale_factor=2, mode="nearest"), x=x)
    np.testing.assert_array_equal(got, x.repeat(2, axis=2).repeat(2, axis=3))
    got = run(lambda x: fluid.layers.resize_nearest(x, out_shape=[5, 7]), x=x)
    rows = [int(i * 2 / 4 + 0.5) for i in range(5)]
    cols = [int(j * 3 / 6 + 0.5) for j in range(7)]
    np.testing.assert_array_equal(got, x[:, :, rows][:, :, :, cols])


def test_nearest_interpolate_resizes_integer_labels_exactly():
    """PaddleSeg 2.0's inference resizes argmax(dtype='int32') labels back with nearest
    (2.0's CUDA kernel takes int32, 3.3.1's kernels int32 and int64: 3.3.1 gives these
    values); each output copies one element, so int64 past 2**53 and inf stay exact."""
    paddle.disable_static()
    try:
        logit = paddle.to_tensor(RNG.randn(1, 3, 2, 3).astype("float32"))
        pred = paddle.argmax(logit, axis=1, keepdim=True, dtype="int32")
        got = F.interpolate(pred, (4, 6), mode="nearest")
        assert got.dtype == paddle.int32
        np.testing.assert_array_equal(got.numpy(),
                                      pred.numpy().repeat(2, axis=2).repeat(2, axis=3))
        big = np.array([[[[2 ** 62 + 1, -3], [7, 2 ** 53 + 1]]]], "int64")
        got = F.interpolate(paddle.to_tensor(big), (3, 3), mode="nearest").numpy()
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got[0, 0], big[0, 0][[0, 0, 1]][:, [0, 0, 1]])
        inf = paddle.to_tensor(np.array([[[[np.inf, 1.0]]]], "float32"))
        np.testing.assert_array_equal(
            F.interpolate(inf, (1, 4), mode="nearest").numpy()[0, 0, 0],
            [np.inf, np.inf, 1.0, 1.0])
    finally:
        paddle.enable_static()


def test_linear_and_trilinear_interpolate():
    x = RNG.randn(2, 3, 4)
    got = run(lambda x: F.interpolate(x, size=[7], mode="linear", align_corners=True,
                                      data_format="NCW"), x=x)
    grid = np.linspace(0, 3, 7)
    want = np.stack([[np.interp(grid, np.arange(4), x[n, c]) for c in range(3)]
                     for n in range(2)])
    np.testing.assert_allclose(got, want)
    x5 = RNG.randn(1, 1, 2, 3, 2)
    got = run(lambda x: [F.interpolate(x, size=[3, 5, 3], mode="trilinear",
                                       align_corners=True, data_format="NCDHW"),
                         fluid.layers.resize_trilinear(x, out_shape=[3, 5, 3]),
                         # 1.8's fluid.layers.interpolate is image_resize
                         fluid.layers.interpolate(x, out_shape=[3, 5, 3], resample="TRILINEAR",
                                                  data_format="NCDHW")], x=x5)
    # separable: linear along D, then H, then W, each through np.interp
    want = x5
    for axis, n_out in ((2, 3), (3, 5), (4, 3)):
        n_in = want.shape[axis]
        want = np.apply_along_axis(
            lambda v: np.interp(np.linspace(0, n_in - 1, n_out), np.arange(n_in), v), axis, want)
    for out in got:
        np.testing.assert_allclose(out, want)


def test_bicubic_keeps_corners_and_reproduces_linear_ramps():
    """Cubic convolution reproduces a linear ramp wherever its four taps are inside the
    input (rows 2-3, cols 2-5 here); nearer the border the taps are clamped to the edge."""
    ramp = np.add.outer(np.arange(4.0), 2 * np.arange(5.0))[None, None]
    got = run(lambda x: F.interpolate(x, size=[7, 9], mode="bicubic", align_corners=True),
              x=ramp)[0, 0]
    want = np.add.outer(np.linspace(0, 3, 7), 2 * np.linspace(0, 4, 9))
    np.testing.assert_allclose(got[2:4, 2:6], want[2:4, 2:6], atol=1e-12)
    np.testing.assert_allclose(got[::6, ::8], ramp[0, 0, ::3, ::4], atol=1e-12)
    # at src 0.5 the taps read columns 0, 0, 1, 2 with weights -3/32, 19/32, 19/32, -3/32
    np.testing.assert_allclose(got[0, 1], (19 * 2 - 3 * 4) / 32)


def test_interpolate_run_time_sizes_scales_and_uint8():
    """2.0's *_interp_v2 inputs: SizeTensor (a list holding a Tensor), OutSize (a Tensor
    size), Scale (a Tensor scale_factor, whose ratio is 1/scale); a scale wins over out_*,
    one output row reads the first input row; uint8 bilinear: values recorded on Paddle
    3.3.1, whose kernels read them as release/2.0's do."""
    x = (np.arange(12, dtype="float32") ** 2).reshape(1, 1, 3, 4)
    image = np.array([[[[0, 100, 255], [7, 50, 9]]]], "uint8")
    got = run(lambda x, dim, size, sc, xu: [
        F.interpolate(x, size=[dim, 3], mode="bilinear", align_corners=False),
        F.interpolate(x, size=size, mode="bilinear", align_corners=True),
        F.interpolate(x, scale_factor=sc, mode="bilinear", align_corners=False, align_mode=1),
        F.interpolate(x, scale_factor=0.4, mode="bilinear", align_corners=False),
        F.interpolate(xu, size=[3, 4], mode="bilinear", align_corners=False, align_mode=0)],
        x=x, dim=np.array([2], "int32"), size=np.array([2, 5], "int32"),
        sc=np.array([1.5], "float32"), xu=image)
    want = [[[4.5, 9.5, 17.83333], [54.5, 75.5, 99.83334]],
            [[0.0, 0.75, 2.5, 5.25, 9.0], [64.0, 76.75, 90.5, 105.25, 121.0]],
            [[0.0, 0.66667, 2.0, 4.0, 7.33333, 9.0],
             [10.66667, 14.88889, 19.77778, 25.33334, 32.22222, 35.66667],
             [32.0, 39.77778, 48.22222, 57.33334, 67.77778, 73.0],
             [64.0, 75.33333, 87.33333, 100.0, 114.0, 121.0]],
            [[0.0]]]
    for out, values in zip(got, want):
        np.testing.assert_allclose(out[0, 0], values, rtol=1e-5, atol=1e-5)
    assert got[4].dtype == np.uint8   # 3.3.1 truncates in float32: 8 where refimpl has 9
    np.testing.assert_allclose(got[4][0, 0], [[0, 62, 158, 255], [3, 48, 96, 132],
                                              [7, 33, 34, 8]], atol=1)


def test_interpolate_errors():
    x = RNG.randn(1, 1, 2, 2)
    with pytest.raises(ValueError, match="align_corners"):
        run(lambda x: F.interpolate(x, size=[3, 3], align_corners=True), x=x)
    with pytest.raises(ValueError, match="exactly one"):
        run(lambda x: F.interpolate(x, mode="bilinear"), x=x)
    with pytest.raises(ValueError, match="exactly one of size and scale_factor, got both"):
        run(lambda x: F.interpolate(x, size=[3, 3], scale_factor=2.0, mode="bilinear"), x=x)
    # Paddle 2.0 and 3.3.1 (measured): an int size, a non-bool align_corners
    with pytest.raises(TypeError, match="size must be a list, a tuple or a Tensor, got int"):
        run(lambda x: F.interpolate(x, size=3, mode="bilinear"), x=x)
    with pytest.raises(TypeError, match="align_corners must be a bool, got int 3"):
        run(lambda x: F.interpolate(x, size=[3, 3], mode="bicubic", align_corners=3), x=x)
    with pytest.raises(ValueError, match=r"scale_factor must be > 0, got \[1.0, -2.0\]"):
        run(lambda x: F.interpolate(x, scale_factor=[1.0, -2.0], mode="bilinear"), x=x)
    with pytest.raises(ValueError, match="trilinear"):
        run(lambda x: F.upsample(x, size=[3, 3], mode="trilinear"), x=x)


@pytest.mark.parametrize("version", ["1.8", "2.0", "3"])


def test_interpolate_size_set_by_version(version, paddle_version):
    x = np.array([[[0., 2.]]], "float32")
    call = lambda x: F.interpolate(x, size={3}, mode="linear", align_corners=True,
                                   data_format="NCW")
    with paddle_version(version):
        # a static program refuses it in every version (3.3.1 too, measured)
        with pytest.raises(TypeError, match="size must be a list, a tuple or a Tensor, "
                                            "got set"):
            run(call, x=x)
        with fluid.dygraph.guard():
            if version == "3":      # 3.3.1's dygraph takes list(size)
                np.testing.assert_allclose(call(paddle.to_tensor(x)).numpy(), [[[0., 1., 2.]]])
            else:
                with pytest.raises(TypeError, match="got set"):
                    call(paddle.to_tensor(x))


def test_interpolate_size_tensor_rank_and_length_as_paddle_3():
    def build(rows):
        def layer(x):
            return F.interpolate(x, size=paddle.assign(np.array(rows, "int32")),
                                 mode="bicubic", align_corners=False)
        return layer
    x = np.ones((2, 3, 6, 6), "float32")
    with pytest.raises(ValueError, match="If size is a tensor, it's rank must be 1, but "
                                         "received 2"):
        run(build([[2, 2]]), x=x)
    with pytest.raises(ValueError, match=r"rank\(x\) - 2 == size.shape\[0\]"):
        run(build([2, 2, 2]), x=x)
    assert run(build([2, 3]), x=x).shape == (2, 3, 2, 3)


@pytest.mark.parametrize("version, error", [("1.8", TypeError), ("2.0", ValueError),
                                            ("3", TypeError)])


def test_affine_grid_theta_error_by_version(version, error, paddle_version):
    with paddle_version(version), pytest.raises(error, match="theta"):
        F.affine_grid("invalid", [2, 1, 3, 3])


def test_area_interpolate_is_the_adaptive_average_pool():
    # Paddle 2.0 (and 3.3.1, measured: [[0.5, 2.5, 4.5], [6.5, 8.5, 10.5]]) pools to size
    x1 = np.arange(12, dtype="float32").reshape(1, 2, 6)
    got = run(lambda x: F.common.interpolate(x, size=[3], mode="area"), x=x1)
    np.testing.assert_array_equal(got, [[[0.5, 2.5, 4.5], [6.5, 8.5, 10.5]]])
    x2 = RNG.randn(2, 3, 7, 7)
    got = run(lambda x: F.interpolate(x, size=[2, 5], mode="AREA"), x=x2)
    rows, cols = [(0, 4), (3, 7)], [(0, 2), (1, 3), (2, 5), (4, 6), (5, 7)]   # floor / ceil
    want = np.stack([np.stack([x2[:, :, r0:r1, c0:c1].mean(axis=(2, 3)) for c0, c1 in cols],
                              -1) for r0, r1 in rows], -2)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    with pytest.raises(ValueError, match="can not be None in AREA mode"):
        run(lambda x: F.interpolate(x, scale_factor=0.5, mode="area"), x=x2)


def test_functional_submodules_hold_the_same_functions():
    assert F.common.interpolate is F.interpolate and F.loss.l1_loss is F.l1_loss
    assert F.pooling.adaptive_avg_pool1d is F.adaptive_avg_pool1d
    assert sorted(n for names in F.SUBMODULES.values() for n in names) == \
        sorted(F.__all__)


def test_unfold_against_loop():
    x = RNG.randn(2, 3, 5, 6)
    got = run(lambda x: F.unfold(x, [2, 3], strides=[2, 1], paddings=[1, 0], dilations=[1, 2]),
              x=x)
    xp = np.pad(x, [(0, 0), (0, 0), (1, 1), (0, 0)])
    blocks = []
    for i in range((7 - 2) // 2 + 1):
        for j in range(6 - 4):
            patch = xp[:, :, 2 * i:2 * i + 2, j:j + 5:2]
            blocks.append(patch.reshape(2, -1))
    np.testing.assert_array_equal(got, np.stack(blocks, axis=2))


def test_diag_embed():
    x = RNG.randn(2, 3)
    got = run(lambda x: [F.diag_embed(x), F.diag_embed(x, offset=-1, dim1=0, dim2=2)], x=x)
    np.testing.assert_array_equal(got[0], np.stack([np.diag(r) for r in x]))
    want = np.stack([np.diag(r, -1) for r in x])  # [2, 4, 4] as (batch, dim1, dim2)
    np.testing.assert_array_equal(got[1], want.transpose(1, 0, 2))


def test_temporal_shift():
    x = RNG.randn(6, 8, 2, 2)  # 2 clips of 3 frames, 8 channels: 2 shift back, 2 ahead
    got = run(lambda x: [F.temporal_shift(x, 3, 0.25), fluid.layers.temporal_shift(x, 3)], x=x)
    v = x.reshape(2, 3, 8, 2, 2)
    want = v.copy()
    want[:, :, :4] = 0
    want[:, 1:, :2] = v[:, :-1, :2]
    want[:, :-1, 2:4] = v[:, 1:, 2:4]
    np.testing.assert_array_equal(got[0], want.reshape(x.shape))
    np.testing.assert_array_equal(got[1], want.reshape(x.shape))


@pytest.mark.parametrize("align_corners", [True, False])


def test_affine_grid(align_corners):
    theta = RNG.randn(2, 2, 3)
    got = run(lambda t: F.affine_grid(t, [2, 1, 3, 4], align_corners), t=theta)
    xs = np.linspace(-1, 1, 4) if align_corners else (2 * np.arange(4) + 1) / 4 - 1
    ys = np.linspace(-1, 1, 3) if align_corners else (2 * np.arange(3) + 1) / 3 - 1
    for n in range(2):
        for i, y in enumerate(ys):
            for j, x in enumerate(xs):
                np.testing.assert_allclose(got[n, i, j], theta[n] @ [x, y, 1])


def test_identity_grid_samples_the_image_back():
    x = RNG.randn(2, 3, 4, 5)
    theta = np.tile(np.array([[1.0, 0, 0], [0, 1, 0]]), (2, 1, 1))
    got = run(lambda x, t: [F.grid_sample(x, F.affine_grid(t, [2, 3, 4, 5])),
                            fluid.layers.grid_sampler(x, fluid.layers.affine_grid(t, [2, 3, 4, 5])),
                            F.grid_sample(x, F.affine_grid(t, [2, 3, 4, 5], False),
                                          mode="nearest", align_corners=False)], x=x, t=theta)
    for g in got:
        np.testing.assert_allclose(g, x, atol=1e-12)


def test_grid_sample_bilinear_point_and_padding_modes():
    x = np.arange(12.0).reshape(1, 1, 3, 4)
    # (x, y) = (0.5 px, 1.5 px) inside; (-1.5, 0) half outside on the left
    grid = np.array([[[[2 * 0.5 / 3 - 1, 2 * 1.5 / 2 - 1], [2 * -1.5 / 3 - 1, -1.0]]]])
    got = run(lambda x, g: [F.grid_sample(x, g), F.grid_sample(x, g, padding_mode="border")],
              x=x, g=grid)
    inside = (x[0, 0, 1, 0] + x[0, 0, 1, 1] + x[0, 0, 2, 0] + x[0, 0, 2, 1]) / 4
    np.testing.assert_allclose(got[0][0, 0, 0], [inside, 0.0])      # -1.5 px: both taps out
    np.testing.assert_allclose(got[1][0, 0, 0], [inside, x[0, 0, 0, 0]])  # clamped to column 0


@pytest.mark.parametrize("align_corners, want", [(True, [6.25, 1.7, 3.25, 8.8]),
                                                  (False, [6.7, 0.7, 3.0, 9.1])])


def test_grid_sample_reflection_as_paddle(align_corners, want):
    """Positions outside the image fold back into it: values recorded on Paddle 3.3.1,
    whose kernel folds as release/2.0's grid_sampler_op.h does."""
    x = np.arange(12.0).reshape(1, 1, 3, 4)
    grid = np.array([[[[-1.7, 0.3], [2.4, -1.2]], [[0.9, 3.1], [-0.2, -2.9]]]])
    got = run(lambda x, g: F.grid_sample(x, g, padding_mode="reflection",
                                         align_corners=align_corners), x=x, g=grid)
    np.testing.assert_allclose(got.ravel(), want, atol=1e-6)


def test_grid_sample_checks_its_modes():
    x, g = static.data("x", [1, 1, 3, 4], "float32"), static.data("g", [1, 2, 2, 2], "float32")
    for kwargs, what in (({"mode": "VALID"}, "mode"), ({"padding_mode": "VALID"}, "padding_mode"),
                         ({"align_corners": "VALID"}, "align_corners")):
        with pytest.raises(ValueError, match="grid_sample: %s must be" % what):
            F.grid_sample(x, g, **kwargs)


# -- image_resize_short


def test_image_resize_short_keeps_the_ratio():
    x = np.arange(2 * 4 * 7, dtype="float32").reshape(1, 2, 4, 7)

    def net():
        xv = fluid.data("x", [-1, 2, 4, 7])
        return (fluid.layers.image_resize_short(xv, 2),
                fluid.layers.image_resize(xv, out_shape=[2, 4]))

    main, startup, (short, direct) = _build(net)
    assert short.shape == (-1, 2, 2, 4)  # 7 * 2 / 4 = 3.5 rounds half up to 4
    (got, want), _ = _run(main, startup, {"x": x}, [short, direct])
    np.testing.assert_array_equal(got, want)
    # align_corners bilinear keeps the corners
    np.testing.assert_array_equal(got[0, :, [0, 0, -1, -1], [0, -1, 0, -1]],
                                  x[0, :, [0, 0, -1, -1], [0, -1, 0, -1]])
    with pytest.raises(ValueError, match="must be 4-D"):
        _build(lambda: fluid.layers.image_resize_short(fluid.data("y", [-1, 4, 7]), 2))


def test_diag_embed_of_an_ndarray():
    """Paddle 2.0's docstring example passes a numpy array: it becomes a constant."""
    x = RNG.randn(2, 3).astype("float32")
    with paddle.fluid.dygraph.guard():
        got = F.diag_embed(x, offset=1, dim1=0, dim2=2).numpy()
    want = np.stack([np.diag(r, 1) for r in x])  # [2, 4, 4] as (batch, dim1, dim2)
    np.testing.assert_array_equal(got, want.transpose(1, 0, 2))


def test_diag_embed_takes_a_numpy_array():
    # Paddle 1.8.5's docstring: fluid.layers.diag_embed(ndarray) in dygraph assigns it
    diag = np.array([[0.75, -0.25, 0.5], [-0.6, -0.01, 0.6]], "float32")
    with fluid.dygraph.guard():
        out = fluid.layers.diag_embed(diag, offset=-1, dim1=0, dim2=2).numpy()
    expected = np.zeros((4, 2, 4), np.float32)
    for i in range(3):
        expected[i + 1, :, i] = diag[:, i]
    np.testing.assert_array_equal(out, expected)
