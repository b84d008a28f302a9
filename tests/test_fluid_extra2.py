"""fluid.layers deformable_conv, sampled_softmax_with_cross_entropy, dynamic_lstmp,
image_resize_short and their ops (the generic checks are in test_ops.py)."""
import numpy as np
import pytest

from refimpl import fluid
from refimpl.framework.program import Program, program_guard
from refimpl.framework.scope import Scope
from refimpl.ops.deformable_conv import DeformableConv, DeformableConvV1, ATTRS as DC_ATTRS
from refimpl.ops.lstm import LSTM
from refimpl.ops.lstmp import ATTRS as LSTMP_ATTRS, LSTMP
from refimpl.ops.sample_logits import (SampleLogits, log_uniform_draws,
                                       log_uniform_probability)


def _build(fn):
    main, startup = Program(), Program()
    with program_guard(main, startup):
        outs = fn()
    return main, startup, outs


def _run(main, startup, feed, fetch):
    exe, scope = fluid.Executor(fluid.CPUPlace()), Scope()
    exe.run(startup, scope=scope)
    values = [np.array(v) for v in exe.run(main, feed=feed, fetch_list=fetch, scope=scope,
                                           return_numpy=False)]
    params = {p.name: np.array(scope.find_var(p.name).get_tensor())
              for p in main.all_parameters()}
    return values, params


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

    with pytest.raises(Exception, match=r"Offset .*expected \[1, 18, 5, 5\]"):
        _build(bad_offset)
    x = np.zeros((3, 1, 3, 3))
    with pytest.raises(ValueError, match="multiple of im2col_step 2"):
        DeformableConvV1.forward(x, np.zeros((3, 2, 3, 3)), np.zeros((1, 1, 1, 1)),
                                 **dict(DC_ATTRS, im2col_step=2))


# -- sampled_softmax_with_cross_entropy
def test_log_uniform_sampler_probabilities():
    p = log_uniform_probability(np.arange(10), 10, 1, 1)
    np.testing.assert_allclose(p.sum(), 1.0)  # a distribution over the 10 classes
    assert np.all(np.diff(p) < 0)  # Zipfian: smaller ids more likely
    drawn, tries = log_uniform_draws(10, 6, True, np.random.RandomState(3))
    assert len(set(drawn)) == 6 and tries >= 6 and drawn.min() >= 0 and drawn.max() < 10
    # with rejected draws: the chance a class came up in `tries` draws
    np.testing.assert_allclose(log_uniform_probability(np.array([0]), 10, 6, 8),
                               1 - (1 - np.log(2) / np.log(11)) ** 8)
    counts = np.bincount(log_uniform_draws(10, 20000, False, np.random.RandomState(0))[0],
                         minlength=10) / 20000
    np.testing.assert_allclose(counts, p, atol=0.01)


def test_sampled_softmax_with_customized_samples_matches_numpy():
    rng = np.random.RandomState(2)
    logits = rng.uniform(-2, 2, (3, 7))
    label = np.array([[2], [5], [0]], np.int64)
    samples = np.array([[2, 1, 6, 2], [5, 0, 5, 3], [0, 4, 1, 6]], np.int64)  # two hits
    probs = rng.uniform(0.1, 0.9, (3, 4))

    def net():
        lv = fluid.data("logits", [-1, 7], "float64")
        lb = fluid.data("label", [-1, 1], "int64")
        sv = fluid.data("samples", [-1, 4], "int64")
        pv = fluid.data("probs", [-1, 4], "float64")
        lv.stop_gradient = False
        loss = fluid.layers.sampled_softmax_with_cross_entropy(
            lv, lb, 3, use_customized_samples=True, customized_samples=sv,
            customized_probabilities=pv)
        grad, = fluid.gradients(fluid.layers.reduce_sum(loss), [lv])
        return loss, grad

    main, startup, (loss, grad) = _build(net)
    (got, dlogits), _ = _run(main, startup, {"logits": logits, "label": label,
                                             "samples": samples, "probs": probs}, [loss, grad])
    sampled = np.take_along_axis(logits, samples, 1) - np.log(probs)
    sampled[0, 3] -= 1e20
    sampled[1, 2] -= 1e20
    soft = np.exp(sampled - sampled.max(1, keepdims=True))
    soft /= soft.sum(1, keepdims=True)
    np.testing.assert_allclose(got, -np.log(soft[:, :1]), rtol=1e-10)
    # d loss / d logits: (softmax - onehot) scattered back onto the sampled classes
    expect = np.zeros_like(logits)
    d = soft - np.eye(4)[[0, 0, 0]]
    for i in range(3):
        np.add.at(expect[i], samples[i], d[i])
    np.testing.assert_allclose(dlogits, expect, rtol=1e-9, atol=1e-12)


def test_sampled_softmax_two_true_labels_and_sampler():
    logits = np.random.RandomState(4).uniform(-1, 1, (2, 20))
    label = np.array([[3, 7], [0, 19]], np.int64)

    def net():
        lv = fluid.data("logits", [-1, 20], "float64")
        lb = fluid.data("label", [-1, 2], "int64")
        return fluid.layers.sampled_softmax_with_cross_entropy(lv, lb, 5, num_true=2, seed=11)

    main, startup, loss = _build(net)
    (got,), _ = _run(main, startup, {"logits": logits, "label": label}, [loss])
    samples, probs, sampled, labels = SampleLogits.forward(
        logits, label, None, None, num_samples=5, seed=11)
    assert samples.shape == (2, 7) and np.all(samples[:, :2] == label)
    assert np.all(samples[0, 2:] == samples[1, 2:])  # one draw for the whole batch
    np.testing.assert_array_equal(labels, [[0, 1], [0, 1]])
    log_soft = sampled - np.log(np.exp(sampled - sampled.max(1, keepdims=True)).sum(1,
                                keepdims=True)) - sampled.max(1, keepdims=True)
    np.testing.assert_allclose(got[:, 0], -log_soft[:, :2].mean(1), rtol=1e-10)


# -- dynamic_lstmp
def test_lstmp_with_identity_projection_is_lstm():
    rng = np.random.RandomState(5)
    lens = np.array([3, 1, 2], np.int64)
    width = 3
    x = rng.uniform(-1, 1, (6, 4 * width))
    weight = rng.uniform(-1, 1, (width, 4 * width))
    bias = rng.uniform(-1, 1, (1, 7 * width))
    c0 = rng.uniform(-1, 1, (3, width))
    attrs = dict(LSTMP_ATTRS, proj_activation="identity")
    proj, cell = LSTMP.forward(x, None, c0, weight, np.eye(width), bias, lens, **attrs)
    hidden, lstm_cell = LSTM.forward(x, None, c0, weight, bias, lens, use_peepholes=True,
                                     is_reverse=False, gate_activation="sigmoid",
                                     cell_activation="tanh", candidate_activation="tanh")
    np.testing.assert_allclose(proj, hidden, rtol=1e-12)
    np.testing.assert_allclose(cell, lstm_cell, rtol=1e-12)


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def test_lstmp_one_step_by_hand_with_h0_and_clips():
    rng = np.random.RandomState(6)
    width, proj_width = 2, 3
    x = rng.uniform(-3, 3, (1, 4 * width))
    weight = rng.uniform(-1, 1, (proj_width, 4 * width))
    proj_w = rng.uniform(-2, 2, (width, proj_width))
    bias = rng.uniform(-1, 1, (1, 4 * width))
    h0, c0 = rng.uniform(-1, 1, (1, width)), rng.uniform(-2, 2, (1, width))
    attrs = dict(LSTMP_ATTRS, use_peepholes=False, cell_clip=0.4, proj_clip=0.2)
    proj, cell = LSTMP.forward(x, h0, c0, weight, proj_w, bias, np.array([1]), **attrs)
    r0 = np.tanh(h0 @ proj_w)
    pre = x + r0 @ weight + bias
    cand, i, f, o = (pre[:, k * width:(k + 1) * width] for k in range(4))
    c = np.clip(_sigmoid(f) * c0 + _sigmoid(i) * np.tanh(cand), -0.4, 0.4)
    r = np.clip(np.tanh((_sigmoid(o) * np.tanh(c)) @ proj_w), -0.2, 0.2)
    np.testing.assert_allclose(cell, c, rtol=1e-12)
    np.testing.assert_allclose(proj, r, rtol=1e-12)


def test_dynamic_lstmp_layer_runs_the_op_with_its_parameters():
    rng = np.random.RandomState(7)
    x = rng.uniform(-1, 1, (5, 8)).astype("float32")
    lens = np.array([2, 3], np.int64)

    def net():
        return fluid.layers.dynamic_lstmp(fluid.data("x", [-1, 8], lod_level=1), size=8,
                                          proj_size=3)

    main, startup, (proj, cell) = _build(net)
    assert proj.shape == (-1, 3) and cell.shape == (-1, 2)
    (p, c), params = _run(main, startup, {"x": (x, [lens.tolist()])}, [proj, cell])
    op = main.global_block().ops[-1]
    assert op.type == "lstmp"
    want = LSTMP.forward(x, None, None, *(params[op.input(s)[0]] for s in
                                          ("Weight", "ProjWeight", "Bias")), lens,
                         **LSTMP_ATTRS)
    np.testing.assert_allclose(p, want[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(c, want[1], rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="proj_activation must be one of"):
        _build(lambda: fluid.layers.dynamic_lstmp(fluid.data("y", [-1, 8]), 8, 3,
                                                  proj_activation="softsign"))


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


# paddle.vision.ops.deform_conv2d(x, offset, w, mask=mask) in Paddle 3.3.1, float64
PADDLE_DEFORM_CONV2D = np.array([[[[0.5375962400277483, 1.6404774193548386],
                                   [1.3145553555324319, 1.1801243600416236]]]])
