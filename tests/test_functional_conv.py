"""conv1d / conv2d_transpose / conv3d(_transpose) / 1-D and 3-D pooling against direct
loops, and transposed convs as the adjoints of convs: <conv(x), y> == <x, conv_T(y)>."""
import itertools

import numpy as np
import pytest

import refimpl.nn.functional as F
from refimpl import fluid

from test_functional_loss import run

RNG = np.random.RandomState(11)


def conv_loop(x, w, stride, pad, dilation, groups=1):
    """Direct N-d correlation: out[n, m, o] = sum_{c, k} w[m, c, k] xpad[n, c, o s + k d]."""
    nd = x.ndim - 2
    xp = np.pad(x, [(0, 0), (0, 0)] + [(pad, pad)] * nd)
    ks = w.shape[2:]
    out_sizes = [(xp.shape[2 + i] - dilation * (ks[i] - 1) - 1) // stride + 1 for i in range(nd)]
    out = np.zeros((x.shape[0], w.shape[0]) + tuple(out_sizes))
    cg, mg = x.shape[1] // groups, w.shape[0] // groups
    for m in range(w.shape[0]):
        g = m // mg
        for o in itertools.product(*map(range, out_sizes)):
            for k in itertools.product(*map(range, ks)):
                idx = tuple(oi * stride + ki * dilation for oi, ki in zip(o, k))
                out[(slice(None), m) + o] += (xp[(slice(None), slice(g * cg, (g + 1) * cg))
                                                 + idx] * w[(m, slice(None)) + k]).sum(1)
    return out


def conv_transpose_loop(x, w, stride, pad, dilation, groups=1, extra=0):
    """Direct scatter: each x[n, c, s] adds x * w[c, m, k] at output s stride + k dilation."""
    nd = x.ndim - 2
    ks = w.shape[2:]
    sizes = [(x.shape[2 + i] - 1) * stride + dilation * (ks[i] - 1) + 1 for i in range(nd)]
    full = np.zeros((x.shape[0], w.shape[1] * groups) + tuple(s + extra for s in sizes))
    cg, mg = x.shape[1] // groups, w.shape[1]
    for c in range(x.shape[1]):
        g = c // cg
        for s in itertools.product(*(range(d) for d in x.shape[2:])):
            for k in itertools.product(*map(range, ks)):
                idx = tuple(si * stride + ki * dilation for si, ki in zip(s, k))
                full[(slice(None), slice(g * mg, (g + 1) * mg)) + idx] += \
                    x[(slice(None), c) + s][:, None] * w[(c, slice(None)) + k]
    crop = tuple(slice(pad, d - pad) for d in full.shape[2:])
    return full[(slice(None), slice(None)) + crop]


def test_conv2d_transpose_against_scatter_loop_grouped_strided():
    x, w = RNG.randn(2, 4, 3, 4), RNG.randn(4, 3, 3, 2)
    b = RNG.randn(6)
    got = run(lambda x, w, b: F.conv2d_transpose(x, w, b, stride=2, padding=1, dilation=1,
                                                 groups=2), x=x, w=w, b=b)
    want = conv_transpose_loop(x, w, 2, 1, 1, groups=2) + b[None, :, None, None]
    np.testing.assert_allclose(got, want, atol=1e-12)


def test_conv2d_transpose_output_padding_and_size():
    x, w = RNG.randn(1, 2, 3, 3), RNG.randn(2, 1, 3, 3)
    got = run(lambda x, w: [F.conv2d_transpose(x, w, stride=2, output_padding=1),
                            F.conv2d_transpose(x, w, stride=2, output_size=[8, 8])], x=x, w=w)
    want = conv_transpose_loop(x, w, 2, 0, 1, extra=1)  # base 7, one more zero row/col
    np.testing.assert_allclose(got[0], want, atol=1e-12)
    np.testing.assert_allclose(got[1], want, atol=1e-12)
    with pytest.raises(Exception, match="output_size"):
        run(lambda x, w: F.conv2d_transpose(x, w, stride=2, output_size=[10, 10]), x=x, w=w)


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_transposed_conv_is_the_adjoint_of_conv(nd):
    """<conv(x, w), y> == <x, conv_transpose(y, w)> for one filter and stride/pad/dilation."""
    conv = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[nd]
    conv_t = {1: F.conv1d_transpose, 2: F.conv2d_transpose, 3: F.conv3d_transpose}[nd]
    x = RNG.randn(2, 4, *[7, 6, 5][:nd])
    w = RNG.randn(6, 2, *[3, 2, 3][:nd])
    kw = dict(stride=2, padding=1, dilation=2, groups=2)
    y_shape = conv_loop(x, w, 2, 1, 2, groups=2).shape
    y = RNG.randn(*y_shape)
    sizes = list(x.shape[2:])
    cx, ty = run(lambda x, w, y: [conv(x, w, **kw), conv_t(y, w, output_size=sizes, **kw)],
                 x=x, w=w, y=y)
    np.testing.assert_allclose(cx, conv_loop(x, w, 2, 1, 2, groups=2), atol=1e-10)
    np.testing.assert_allclose((cx * y).sum(), (x * ty).sum(), rtol=1e-10)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_scatter_adds_windows_in_kernel_offset_order(dtype):
    """conv_nd.scatter (one np.add.at) equals adding window offset by offset, bit for bit."""
    from refimpl.ops.conv_nd import scatter
    cols = RNG.randn(2, 3, 3, 4, 2, 3).astype(dtype)     # [N, C, O1, O2, K1, K2]
    strides, dilations, pads = (2, 1), (1, 2), [(1, 0), (0, 2)]
    padded = np.zeros((2, 3, 7, 8), dtype)
    for k1, k2 in itertools.product(range(2), range(3)):
        padded[:, :, k1:k1 + 5:2, 2 * k2:2 * k2 + 4] += cols[..., k1, k2]
    got = scatter(cols, [6, 6], strides, pads, dilations)
    np.testing.assert_array_equal(got, padded[:, :, 1:, :6])


def test_conv_transpose_with_an_unknown_length_keeps_the_known_dims():
    """conv1d_transpose of an [N, C, -1] x is [N, M, -1] when built (its unit height stays
    known, so the squeeze applies), as 2.0's test_conv1d_transpose_layer builds it; the
    run-time values are the scatter sum out[n, m, i + j] += x[n, c, i] w[c, m, j]."""
    from refimpl import static
    x, w = RNG.randn(2, 4, 5), RNG.randn(4, 6, 3)
    main = static.Program()
    with static.program_guard(main, static.Program()):
        xv = static.data("x", [-1, 4, -1], "float64")
        out = F.conv1d_transpose(xv, static.data("w", [4, 6, 3], "float64"))
        out_sized = F.conv2d_transpose(static.data("x4", [-1, 4, -1, 5], "float64"),
                                       static.data("w4", [4, 6, 3, 3], "float64"),
                                       output_size=[8, 7])
    assert tuple(out.shape) == (-1, 6, -1)
    assert tuple(out_sized.shape) == (-1, 6, 8, 7)
    got, = static.Executor().run(main, feed={"x": x, "w": w, "x4": RNG.randn(1, 4, 6, 5),
                                             "w4": RNG.randn(4, 6, 3, 3)}, fetch_list=[out])
    want = np.zeros((2, 6, 7))
    for i in range(5):
        for j in range(3):
            want[:, :, i + j] += x[:, :, i] @ w[:, :, j]
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_conv1d_nlc_same_padding_and_bias():
    x, w, b = RNG.randn(2, 9, 3), RNG.randn(4, 3, 3), RNG.randn(4)
    got = run(lambda x, w, b: F.conv1d(x, w, b, padding="same", data_format="NLC"), x=x, w=w,
              b=b)
    want = conv_loop(x.transpose(0, 2, 1), w, 1, 1, 1) + b[None, :, None]
    np.testing.assert_allclose(got, want.transpose(0, 2, 1), atol=1e-12)


def test_conv3d_channels_last():
    x, w = RNG.randn(1, 4, 5, 3, 2), RNG.randn(3, 2, 2, 2, 2)
    got = run(lambda x, w: F.conv3d(x, w, stride=1, padding=1, data_format="NDHWC"), x=x, w=w)
    want = conv_loop(np.moveaxis(x, -1, 1), w, 1, 1, 1)
    np.testing.assert_allclose(got, np.moveaxis(want, 1, -1), atol=1e-12)


def test_conv3d_rejects_channel_mismatch():
    with pytest.raises(Exception, match="input channels"):
        run(lambda x, w: F.conv3d(x, w), x=RNG.randn(1, 3, 4, 4, 4), w=RNG.randn(2, 2, 1, 1, 1))


def test_pool1d():
    x = RNG.randn(2, 3, 9)
    got = run(lambda x: [F.max_pool1d(x, 3, 2), F.avg_pool1d(x, 3, 2, padding=1),
                         F.adaptive_avg_pool1d(x, 4), F.adaptive_max_pool1d(x, 4)], x=x)
    windows = [x[..., i:i + 3] for i in range(0, 7, 2)]
    np.testing.assert_array_equal(got[0], np.stack([w.max(-1) for w in windows], -1))
    xp = np.pad(x, [(0, 0), (0, 0), (1, 1)])
    counts = [2, 3, 3, 3, 2]   # exclusive: the real cells of each padded window
    np.testing.assert_allclose(got[1], np.stack(
        [xp[..., i:i + 3].sum(-1) / c for i, c in zip(range(0, 9, 2), counts)], -1))
    bins = [(0, 3), (2, 5), (4, 7), (6, 9)]   # floor(i 9 / 4), ceil((i + 1) 9 / 4)
    np.testing.assert_allclose(got[2], np.stack([x[..., a:b].mean(-1) for a, b in bins], -1))
    np.testing.assert_array_equal(got[3], np.stack([x[..., a:b].max(-1) for a, b in bins], -1))


def test_pool3d_max_avg_adaptive_and_fluid():
    x = RNG.randn(2, 2, 4, 4, 6)
    got = run(lambda x: [F.max_pool3d(x, 2), F.avg_pool3d(x, [2, 2, 3], stride=[2, 2, 3]),
                         F.adaptive_avg_pool3d(x, [1, 2, 3]), F.adaptive_max_pool3d(x, 2),
                         fluid.layers.pool3d(x, 2, "avg", 2),
                         fluid.layers.pool3d(x, pool_type="max", global_pooling=True),
                         fluid.layers.adaptive_pool3d(x, [2, 2, 2], "avg")], x=x)
    blocks = x.reshape(2, 2, 2, 2, 2, 2, 3, 2)
    np.testing.assert_array_equal(got[0], blocks.max((3, 5, 7)))
    np.testing.assert_allclose(got[1], x.reshape(2, 2, 2, 2, 2, 2, 2, 3).mean((3, 5, 7)))
    np.testing.assert_allclose(got[2], x.reshape(2, 2, 1, 4, 2, 2, 3, 2).mean((3, 5, 7)))
    np.testing.assert_array_equal(got[3], x.reshape(2, 2, 2, 2, 2, 2, 2, 3).max((3, 5, 7)))
    np.testing.assert_allclose(got[4], blocks.mean((3, 5, 7)))
    np.testing.assert_array_equal(got[5], x.max((2, 3, 4), keepdims=True))
    np.testing.assert_allclose(got[6], x.reshape(2, 2, 2, 2, 2, 2, 2, 3).mean((3, 5, 7)))


def test_adaptive_pools_keep_the_dims_output_size_leaves_none():
    """None in output_size keeps that input dim (2.0's test_adaptive_avg_pool2d / 3d; 3.3.1
    gives [[0.5, 2.5, 4.5], ...] for this x, measured)."""
    x = np.arange(2 * 3 * 4 * 6, dtype="float64").reshape(2, 3, 4, 6)
    avg, mx = run(lambda x: [F.adaptive_avg_pool2d(x, [None, 3]),
                             F.adaptive_max_pool2d(x, [None, 2])], x=x)
    np.testing.assert_allclose(avg, x.reshape(2, 3, 4, 3, 2).mean(-1))
    assert avg[0, 0, :2].tolist() == [[0.5, 2.5, 4.5], [6.5, 8.5, 10.5]]
    np.testing.assert_allclose(mx, x.reshape(2, 3, 4, 2, 3).max(-1))
    x5 = x.reshape(2, 3, 2, 2, 6)
    got = run(lambda x: F.adaptive_avg_pool3d(x, [1, None, 3], "NCDHW"), x=x5)
    np.testing.assert_allclose(got, x5.reshape(2, 3, 2, 2, 3, 2).mean(5).mean(2, keepdims=True))


def test_avg_pool3d_non_exclusive_divides_by_the_padded_window():
    x = np.ones((1, 1, 2, 2, 2))
    got = run(lambda x: [F.avg_pool3d(x, 2, 1, padding=1, exclusive=False),
                         F.avg_pool3d(x, 2, 1, padding=1)], x=x)
    corner = got[0][0, 0, 0, 0, 0]
    assert corner == pytest.approx(1 / 8)
    np.testing.assert_allclose(got[1], 1.0)


def test_pool3d_empty_ceil_mode_window_matches_pool2d_rule():
    """A ceil_mode window starting in the trailing padding: -FLT_MAX for max, NaN for avg."""
    x = RNG.randn(1, 1, 2, 2, 2)
    got = run(lambda x: [F.max_pool3d(x, 1, 2, padding=[0, 0, 0, 0, 0, 2], ceil_mode=True),
                         F.avg_pool3d(x, 1, 2, padding=[0, 0, 0, 0, 0, 2], ceil_mode=True)],
              x=x)
    # D, H: ceil((2 - 1) / 2) + 1 = 2 windows (the second starts past the input); W: 3
    assert got[0].shape == (1, 1, 2, 2, 3)
    assert got[0][0, 0, 0, 0, 0] == x[0, 0, 0, 0, 0]
    assert got[0][0, 0, 0, 0, 2] == np.finfo(np.float32).min
    assert np.isnan(got[1][0, 0, 0, 0, 2]) and np.isnan(got[1][0, 0, 1, 0, 0])


@pytest.mark.parametrize("pooling_type", ["max", "avg"])
@pytest.mark.parametrize("exclusive", [True, False])
def test_pool3d_fixed_windows_at_once_equal_the_window_loop(pooling_type, exclusive):
    """pool3d's strided path against a loop over pool3d.windows() (the per-window rule),
    forward and gradient, with asymmetric padding and ceil_mode's partial windows."""
    from refimpl.ops.pool3d import Pool3D, windows
    x = RNG.randn(2, 3, 5, 6, 4)
    k, s, pads = [2, 3, 2], [2, 2, 3], [(1, 0), (0, 2), (1, 1)]
    attrs = dict(pooling_type=pooling_type, ksize=k, strides=s,
                 paddings=[p for pair in pads for p in pair], global_pooling=False,
                 ceil_mode=True, exclusive=exclusive, adaptive=False,
                 padding_algorithm="EXPLICIT", data_format="NCDHW")
    out = Pool3D().forward(x, **attrs)
    dout = RNG.randn(*out.shape)
    want, want_dx = np.empty_like(out), np.zeros_like(x)
    for index, window, full in windows(x.shape[2:], k, s, pads, out.shape[2:], False):
        block = x[(slice(None), slice(None)) + window].reshape(2, 3, -1)
        g = dout[(Ellipsis,) + index]
        if not block.size:      # a ceil_mode window past the input: -FLT_MAX / NaN
            want[(Ellipsis,) + index] = np.finfo(np.float32).min if pooling_type == "max" \
                else np.nan
        elif pooling_type == "max":
            want[(Ellipsis,) + index] = block.max(-1)
            first = (np.arange(block.shape[-1]) == block.argmax(-1)[..., None]) * g[..., None]
            want_dx[(slice(None), slice(None)) + window] += first.reshape(
                want_dx[(slice(None), slice(None)) + window].shape)
        else:
            divisor = block.shape[-1] if exclusive else full
            want[(Ellipsis,) + index] = block.sum(-1) / divisor
            want_dx[(slice(None), slice(None)) + window] += (g / divisor)[..., None, None, None]
    np.testing.assert_allclose(out, want, rtol=1e-12)
    np.testing.assert_allclose(Pool3D().backward(x, out, dout, **attrs), want_dx, rtol=1e-12)


def test_fluid_conv3d_channels_last_and_argument_checks():
    """fluid.layers.conv3d with NDHWC input (Paddle 1.8.5 takes it) equals the NCDHW conv of
    the transposed input; bad use_cudnn / data_format / batch-dim padding: ValueError."""
    x = RNG.randn(2, 3, 4, 5, 2).astype("float32")        # NDHWC
    w_init = fluid.initializer.NumpyArrayInitializer(RNG.randn(3, 2, 3, 3, 3).astype("float32"))

    def conv(data_format):
        return lambda v: fluid.layers.conv3d(
            v, 3, 3, padding=[[0, 0], [1, 1], [1, 0], [0, 1], [0, 0]] if data_format == "NDHWC"
            else [[0, 0], [0, 0], [1, 1], [1, 0], [0, 1]], data_format=data_format,
            param_attr=fluid.ParamAttr(initializer=w_init), bias_attr=False)
    last = run(conv("NDHWC"), x=x)
    first = run(conv("NCDHW"), x=np.ascontiguousarray(np.moveaxis(x, -1, 1)))
    np.testing.assert_allclose(last, np.moveaxis(first, 1, -1), rtol=1e-5, atol=1e-5)
    for kw in [dict(use_cudnn=[0]), dict(data_format="NCHWC"),
               dict(padding=[[0, 1], [0, 0], [0, 1], [0, 1], [0, 1]]),
               dict(filter_size=0, padding=[[0, 1], [0, 1], [0, 1], [0, 1], [0, 1]],
                    data_format="NDHWC")]:
        args = dict(dict(num_filters=3, filter_size=3), **kw)
        with pytest.raises(ValueError):
            run(lambda v: fluid.layers.conv3d(v, **args), x=x)


@pytest.mark.parametrize("nd", [2, 3])
def test_fluid_conv_transpose_channels_last(nd):
    """fluid.layers.conv{2,3}d_transpose with NHWC / NDHWC input (1.8.5 takes it) equals the
    channels-first layer on the transposed input, filter_size from output_size included."""
    layer = {2: fluid.layers.conv2d_transpose, 3: fluid.layers.conv3d_transpose}[nd]
    x = RNG.randn(2, *[3, 4, 2][:nd], 3).astype("float32")
    w = fluid.initializer.NumpyArrayInitializer(RNG.randn(3, 2, *[3] * nd).astype("float32"))
    sizes = [s + 2 for s in x.shape[1:-1]]       # stride 1, pad 0: filter_size 3

    def build(data_format):
        return lambda v: layer(v, 2, output_size=sizes, data_format=data_format,
                               param_attr=fluid.ParamAttr(initializer=w), bias_attr=False)
    last = run(build("NHWC" if nd == 2 else "NDHWC"), x=x)
    first = run(build("NCHW" if nd == 2 else "NCDHW"),
                x=np.ascontiguousarray(np.moveaxis(x, -1, 1)))
    np.testing.assert_allclose(last, np.moveaxis(first, 1, -1), rtol=1e-5, atol=1e-5)


def test_fluid_conv2d_transpose_picks_the_depthwise_op_as_paddle_18():
    """num_filters == channels == groups and use_cudnn=False: depthwise_conv2d_transpose
    (values recorded from Paddle 1.8.5), else conv2d_transpose with the same result."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [None, 3, 4, 4], "float32")
        outs = [fluid.layers.conv2d_transpose(x, filters, filter_size=3, groups=3,
                                              use_cudnn=cudnn, bias_attr=False,
                                              param_attr=fluid.initializer.Constant(0.5))
                for filters, cudnn in ((3, False), (3, True), (6, False))]
    assert [op.type for op in main.global_block().ops] == \
        ["depthwise_conv2d_transpose", "conv2d_transpose", "conv2d_transpose"]
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    x_np = np.arange(96, dtype="float32").reshape(2, 3, 4, 4) / 10
    depthwise, plain, wide = exe.run(main, feed={"x": x_np}, fetch_list=outs)
    np.testing.assert_allclose(depthwise[0, 1, :2, :3], [[0.8, 1.65, 2.55], [1.8, 3.7, 5.7]],
                               rtol=1e-6)
    np.testing.assert_array_equal(depthwise, plain)
    assert wide.shape == (2, 6, 6, 6)
