"""refimpl.nn layer classes over the newer functionals: losses, 1-D/3-D and transposed
convolutions, 1-D/3-D pools, instance / group / local response norm, PReLU, Maxout,
Bilinear, channel and alpha dropout, pads, upsampling, distances. Each is checked against
its functional on the same inputs, against numpy, and (parameters) against the names,
shapes and initializers Paddle 2.0 gives them (checked in Paddle's static mode)."""
import numpy as np
import pytest

import refimpl as paddle
import refimpl.nn as nn
import refimpl.nn.functional as F
from refimpl import static
from refimpl.layers.common import append_op_out
from helpers import scope_value

RNG = np.random.RandomState(11)


def _run(feed, fetch):
    exe = static.Executor()
    exe.run(static.default_startup_program())
    return exe.run(feed=feed, fetch_list=fetch)


def _data(name, array):
    return static.data(name, list(array.shape), str(array.dtype))


def _params(layer):
    return [(n, p.name, list(p.shape)) for n, p in layer.named_parameters()]


def _startup_ops():
    return [(op.type, op.output_arg_names[0])
            for op in static.default_startup_program().global_block().ops]


def _rand(*shape):
    return RNG.randn(*shape).astype("float32")


# -- losses: the layer equals its functional and the numpy formula


def _probs(*shape):
    return RNG.uniform(0.1, 0.9, shape).astype("float32")


LOSSES = [
    ("BCELoss", lambda: nn.BCELoss(reduction="sum"),
     lambda x, y: F.binary_cross_entropy(x, y, reduction="sum"), _probs, _probs,
     lambda a, b: -(b * np.log(a) + (1 - b) * np.log(1 - a)).sum()),
    ("BCEWithLogitsLoss", lambda: nn.BCEWithLogitsLoss(),
     lambda x, y: F.binary_cross_entropy_with_logits(x, y), _rand, _probs,
     lambda a, b: (np.maximum(a, 0) - a * b + np.log1p(np.exp(-np.abs(a)))).mean()),
    ("KLDivLoss", lambda: nn.KLDivLoss("batchmean"),
     lambda x, y: F.kl_div(x, y, "batchmean"), _rand, _probs,
     lambda a, b: (b * (np.log(b) - a)).sum() / a.shape[0]),
    ("L1Loss", lambda: nn.L1Loss(), lambda x, y: F.l1_loss(x, y), _rand, _rand,
     lambda a, b: np.abs(a - b).mean()),
    ("SmoothL1Loss", lambda: nn.SmoothL1Loss("none", delta=0.5),
     lambda x, y: F.smooth_l1_loss(x, y, "none", 0.5), _rand, _rand,
     lambda a, b: np.where(np.abs(a - b) <= 0.5, 0.5 * (a - b) ** 2,
                           0.5 * (np.abs(a - b) - 0.25))),
]


@pytest.mark.parametrize("name,make,functional,gen_x,gen_y,formula", LOSSES,
                         ids=[case[0] for case in LOSSES])
def test_loss_layer_equals_its_functional_and_numpy(name, make, functional, gen_x, gen_y,
                                                    formula):
    a, b = gen_x(4, 3), gen_y(4, 3)
    x, y = _data("x", a), _data("y", b)
    layer = make()
    assert type(layer).__name__ == name and layer.parameters() == []
    out, ref = _run({"x": a, "y": b}, [layer(x, y), functional(x, y)])
    np.testing.assert_allclose(out, ref, rtol=1e-6)
    np.testing.assert_allclose(out, formula(a, b), rtol=1e-5, atol=1e-6)


def test_nll_loss_layer_picks_the_weighted_log_probabilities():
    logp = np.log(_probs(5, 4))
    labels = np.array([0, 3, 1, 3, 2], "int64")
    weight = np.array([1.0, 2.0, 0.5, 1.5], "float32")
    x, y, w = _data("x", logp), _data("y", labels), _data("w", weight)
    out, ref = _run({"x": logp, "y": labels, "w": weight},
                    [nn.NLLLoss(weight=w)(x, y), F.nll_loss(x, y, w)])
    picked = -weight[labels] * logp[np.arange(5), labels]
    np.testing.assert_allclose(out, ref, rtol=1e-6)
    np.testing.assert_allclose(out, picked.sum() / weight[labels].sum(), rtol=1e-5)


def test_margin_ranking_loss_layer():
    a, b = _rand(6), _rand(6)
    label = np.sign(_rand(6)).astype("float32")
    x, o, y = _data("x", a), _data("o", b), _data("y", label)
    out, ref = _run({"x": a, "o": b, "y": label},
                    [nn.MarginRankingLoss(0.3, "sum")(x, o, y),
                     F.margin_ranking_loss(x, o, y, 0.3, "sum")])
    np.testing.assert_allclose(out, ref, rtol=1e-6)
    np.testing.assert_allclose(out, np.maximum(0, -label * (a - b) + 0.3).sum(), rtol=1e-5)


def test_ctc_loss_layer_equals_the_functional():
    logits = _rand(5, 2, 4)
    labels = np.array([[1, 2], [3, 0]], "int32")
    in_len, lab_len = np.array([5, 4], "int64"), np.array([2, 1], "int64")
    feeds = {"lp": logits, "lab": labels, "il": in_len, "ll": lab_len}
    lp, lab, il, ll = (_data(k, v) for k, v in feeds.items())
    out, ref, per_seq = _run(feeds, [nn.CTCLoss(blank=0)(lp, lab, il, ll),
                                     F.ctc_loss(lp, lab, il, ll, 0),
                                     nn.CTCLoss(reduction="none")(lp, lab, il, ll)])
    np.testing.assert_allclose(out, ref, rtol=1e-6)
    assert per_seq.shape == (2,) and np.all(per_seq > 0)
    np.testing.assert_allclose(out, np.mean(per_seq / lab_len), rtol=1e-5)


@pytest.mark.paddle("3")   # startup ops in creation order, as Paddle 3 lists them
def test_hsigmoid_loss_owns_paddles_parameters_and_equals_the_functional():
    layer = nn.HSigmoidLoss(4, 6)
    assert _params(layer) == [("weight", "h_sigmoid_loss_0.w_0", [5, 4]),
                              ("bias", "h_sigmoid_loss_0.b_0", [5, 1])]
    assert _startup_ops() == [("uniform_random", "h_sigmoid_loss_0.w_0"),
                              ("fill_constant", "h_sigmoid_loss_0.b_0")]
    a, labels = _rand(3, 4), np.array([[0], [5], [2]], "int64")
    x, y = _data("x", a), _data("y", labels)
    out, ref = _run({"x": a, "y": labels},
                    [layer(x, y), F.hsigmoid_loss(x, y, 6, layer.weight, layer.bias)])
    assert out.shape == (3, 1) and np.all(out > 0)
    np.testing.assert_allclose(out, ref, rtol=1e-6)
    limit = np.sqrt(6.0 / (5 + 4))
    assert np.all(np.abs(scope_value(layer.weight)) <= limit)
    custom = nn.HSigmoidLoss(4, 6, is_custom=True, bias_attr=False)
    assert _params(custom) == [("weight", "h_sigmoid_loss_1.w_0", [6, 4])]
    with pytest.raises(ValueError, match="is_custom needs path_table"):
        custom(x, y)
    with pytest.raises(ValueError, match="expected feature_size=4"):
        layer(static.data("z", [None, 5], "float32"), y)


def test_loss_layers_reject_an_unknown_reduction():
    with pytest.raises(ValueError, match="L1Loss: reduction must be one of"):
        nn.L1Loss("batchmean")
    nn.KLDivLoss("batchmean")                       # only kl_div knows batchmean
    with pytest.raises(TypeError, match="input 'label' must be a static Variable"):
        nn.BCELoss()(static.data("x", [2], "float32"), np.ones(2))


# -- distances


def test_cosine_similarity_and_pairwise_distance_match_numpy():
    a, b = _rand(4, 5), _rand(4, 5)
    x, y = _data("x", a), _data("y", b)
    cos, dist, dist1 = _run({"x": a, "y": b}, [
        nn.CosineSimilarity(axis=1)(x, y), nn.PairwiseDistance()(x, y),
        nn.PairwiseDistance(p=1.0, epsilon=0.0, keepdim=True)(x, y)])
    np.testing.assert_allclose(
        cos, (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1),
        rtol=1e-5)
    np.testing.assert_allclose(dist, np.linalg.norm(a - b + 1e-6, axis=1), rtol=1e-5)
    np.testing.assert_allclose(dist1, np.abs(a - b).sum(1, keepdims=True), rtol=1e-5)


# -- activations with parameters or settings


def test_prelu_has_one_slope_per_channel_initialized_to_init():
    layer = nn.PReLU(3, init=0.1)
    assert _params(layer) == [("_weight", "p_re_lu_0.w_0", [3])]
    a = _rand(2, 3, 4)
    x = _data("x", a)
    y = layer(x)
    exe = static.Executor()
    exe.run(static.default_startup_program())
    np.testing.assert_allclose(scope_value(layer._weight), [0.1] * 3, rtol=1e-6)
    slopes = np.array([0.5, -1.0, 2.0], "float32")
    layer.set_state_dict({"_weight": slopes})
    out, = exe.run(feed={"x": a}, fetch_list=[y])
    np.testing.assert_allclose(out, np.where(a > 0, a, slopes[None, :, None] * a), rtol=1e-6)
    with pytest.raises(ValueError, match="expected num_parameters=3"):
        layer(static.data("z", [2, 4, 4], "float32"))


def test_prelu_with_one_parameter_shares_it():
    a = _rand(2, 5)
    out, = _run({"x": a}, [nn.PReLU()(_data("x", a))])
    np.testing.assert_allclose(out, np.where(a > 0, a, 0.25 * a), rtol=1e-6)


def test_maxout_takes_the_max_of_each_channel_group():
    a = _rand(2, 6, 3)
    x = _data("x", a)
    out, ref = _run({"x": a}, [nn.Maxout(3)(x), F.maxout(x, 3)])
    np.testing.assert_array_equal(out, ref)
    np.testing.assert_array_equal(out, a.reshape(2, 2, 3, 3).max(axis=2))


def test_bilinear_is_x1_w_x2_plus_bias_with_paddles_parameters():
    layer = nn.Bilinear(3, 4, 5)
    assert _params(layer) == [("weight", "bilinear_0.w_0", [5, 3, 4]),
                              ("bias", "bilinear_0.b_0", [1, 5])]
    a, b = _rand(2, 3), _rand(2, 4)
    x1, x2 = _data("x1", a), _data("x2", b)
    y = layer(x1, x2)
    exe = static.Executor()
    exe.run(static.default_startup_program())
    w, bias = _rand(5, 3, 4), _rand(1, 5)
    layer.set_state_dict({"weight": w, "bias": bias})
    out, = exe.run(feed={"x1": a, "x2": b}, fetch_list=[y])
    np.testing.assert_allclose(out, np.einsum("ni,kij,nj->nk", a, w, b) + bias, rtol=1e-5)
    with pytest.raises(ValueError, match="expected in2_features=4"):
        layer(x1, static.data("z", [2, 3], "float32"))


# -- dropouts: training drops, eval is the identity


def _fetch_in_modes(layer, a):
    x = _data("x", a)
    train_out = layer(x)
    layer.eval()
    eval_out = layer(x)
    assert eval_out is x                        # eval builds nothing
    return _run({"x": a}, [train_out])[0]


def test_dropout2d_drops_whole_channels_in_training_only():
    a = RNG.uniform(1, 2, (4, 8, 3, 3)).astype("float32")
    out = _fetch_in_modes(nn.Dropout2D(p=0.5), a)
    kept = np.all(out != 0, axis=(2, 3))
    dropped = np.all(out == 0, axis=(2, 3))
    assert np.all(kept | dropped) and kept.any() and dropped.any()
    np.testing.assert_allclose(out[kept], (a * 2)[kept], rtol=1e-6)


def test_dropout3d_drops_whole_channels_in_training_only():
    a = RNG.uniform(1, 2, (2, 8, 2, 2, 2)).astype("float32")
    out = _fetch_in_modes(nn.Dropout3D(p=0.5), a)
    kept = np.all(out != 0, axis=(2, 3, 4))
    assert np.all(kept | np.all(out == 0, axis=(2, 3, 4)))
    np.testing.assert_allclose(out[kept], (a * 2)[kept], rtol=1e-6)


def test_alpha_dropout_maps_dropped_elements_to_one_value():
    p = 0.5
    a = _rand(50, 20)
    out = _fetch_in_modes(nn.AlphaDropout(p), a)
    alpha_p = -1.6732632423543772 * 1.0507009873554805
    scale = ((1 - p) * (1 + p * alpha_p ** 2)) ** -0.5
    shift = -scale * alpha_p * p
    kept = np.isclose(out, scale * a + shift, rtol=1e-5, atol=1e-6)
    dropped = np.isclose(out, scale * alpha_p + shift, rtol=1e-5)
    assert np.all(kept | dropped) and 0.3 < dropped.mean() < 0.7


def test_dropout_layers_check_p():
    for cls in (nn.Dropout2D, nn.Dropout3D, nn.AlphaDropout):
        with pytest.raises(ValueError, match="%s: p must be in" % cls.__name__):
            cls(1.5)


# -- convolutions


def _conv_transpose_2d(x, w, stride):
    """Each input pixel scatters x * w[c] into the output (groups=1, no padding)."""
    n, c, h, wd = x.shape
    k = w.shape[2]
    out = np.zeros((n, w.shape[1], (h - 1) * stride + k, (wd - 1) * stride + k))
    for i in range(h):
        for j in range(wd):
            out[:, :, i * stride:i * stride + k, j * stride:j * stride + k] += np.einsum(
                "nc,cokl->nokl", x[:, :, i, j], w)
    return out


@pytest.mark.paddle("3")   # startup ops in creation order, as Paddle 3 lists them
def test_conv2d_transpose_weight_is_in_by_out_and_matches_numpy():
    layer = nn.Conv2DTranspose(3, 4, 3, stride=2)
    assert _params(layer) == [("weight", "conv2d_transpose_0.w_0", [3, 4, 3, 3]),
                              ("bias", "conv2d_transpose_0.b_0", [4])]
    assert [t for t, _ in _startup_ops()] == ["uniform_random", "fill_constant"]
    a = _rand(2, 3, 4, 5)
    x = _data("x", a)
    y, sized = layer(x), layer(x, output_size=[10, 12])
    assert y.shape == (2, 4, 9, 11) and sized.shape == (2, 4, 10, 12)
    out, = _run({"x": a}, [y])
    w = scope_value(layer.weight)
    limit = np.sqrt(6.0 / (4 * 9 + 3 * 9))          # XavierUniform on [in, out, k, k]
    assert np.all(np.abs(w) <= limit) and np.abs(w).max() > limit / 2
    np.testing.assert_allclose(out, _conv_transpose_2d(a, w, 2), rtol=1e-4, atol=1e-5)


TRANSPOSES = [
    (nn.Conv1DTranspose, F.conv1d_transpose, (2, 4, 5), [4, 3, 3], "conv1d_transpose_0"),
    (nn.Conv2DTranspose, F.conv2d_transpose, (2, 4, 3, 3), [4, 3, 3, 3],
     "conv2d_transpose_0"),
    (nn.Conv3DTranspose, F.conv3d_transpose, (1, 4, 2, 3, 3), [4, 3, 3, 3, 3],
     "conv3d_transpose_0"),
]


@pytest.mark.parametrize("cls,functional,shape,weight_shape,full_name", TRANSPOSES,
                         ids=[case[0].__name__ for case in TRANSPOSES])
def test_transposed_convs_equal_their_functional_with_the_same_weight(
        cls, functional, shape, weight_shape, full_name):
    layer = cls(4, 6, 3, stride=2, padding=1, groups=2)
    assert _params(layer) == [("weight", full_name + ".w_0", weight_shape),
                              ("bias", full_name + ".b_0", [6])]
    a = _rand(*shape)
    x = _data("x", a)
    out, ref = _run({"x": a}, [layer(x), functional(x, layer.weight, layer.bias, stride=2,
                                                    padding=1, groups=2)])
    assert out.shape[1] == 6 and np.abs(out).max() > 0
    np.testing.assert_allclose(out, ref, rtol=1e-6)


CONVS = [
    (nn.Conv1D, F.conv1d, (2, 4, 7), [6, 2, 3], "conv1d_0"),
    (nn.Conv3D, F.conv3d, (1, 4, 4, 5, 5), [6, 2, 3, 3, 3], "conv3d_0"),
]


@pytest.mark.parametrize("cls,functional,shape,weight_shape,full_name", CONVS,
                         ids=[case[0].__name__ for case in CONVS])
@pytest.mark.paddle("3")   # startup ops in creation order, as Paddle 3 lists them
def test_convs_use_paddles_weight_init_and_equal_their_functional(
        cls, functional, shape, weight_shape, full_name):
    layer = cls(4, 6, 3, padding=1, groups=2)
    assert _params(layer) == [("weight", full_name + ".w_0", weight_shape),
                              ("bias", full_name + ".b_0", [6])]
    startup = static.default_startup_program().global_block().ops
    k = np.prod(weight_shape[2:])
    assert startup[0].type == "gaussian_random"
    np.testing.assert_allclose(startup[0].attr("std"), np.sqrt(2.0 / (k * 4)), rtol=1e-6)
    a = _rand(*shape)
    x = _data("x", a)
    out, ref = _run({"x": a}, [layer(x), functional(x, layer.weight, layer.bias, padding=1,
                                                    groups=2)])
    assert out.shape == (shape[0], 6) + shape[2:]
    np.testing.assert_allclose(out, ref, rtol=1e-6)


def test_conv1d_channels_last_and_channel_check():
    a = _rand(2, 7, 4)
    x = _data("x", a)
    layer = nn.Conv1D(4, 3, 2, data_format="NLC")
    out, = _run({"x": a}, [layer(x)])
    w, b = scope_value(layer.weight), scope_value(layer.bias)
    ref = np.stack([np.einsum("nkc,ock->no", a[:, i:i + 2], w) for i in range(6)], 1) + b
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="expected in_channels=4"):
        nn.Conv1D(4, 3, 2)(x)
    with pytest.raises(ValueError, match="has rank 3, expected rank 5"):
        nn.Conv3D(4, 3, 2)(x)
    with pytest.raises(ValueError, match="Conv3DTranspose: in_channels .* divisible"):
        nn.Conv3DTranspose(4, 3, 2, groups=2)


@pytest.mark.parametrize("mode,np_mode", [("reflect", "reflect"), ("replicate", "edge"),
                                          ("circular", "wrap")])
def test_conv2d_padding_mode_pads_the_input_first(mode, np_mode):
    a = _rand(1, 2, 4, 5)
    x = _data("x", a)
    layer = nn.Conv2D(2, 3, 3, padding=1, padding_mode=mode)
    plain = nn.Conv2D(2, 3, 3, weight_attr=paddle.ParamAttr(name=layer.weight.name),
                      bias_attr=paddle.ParamAttr(name=layer.bias.name))
    padded = np.pad(a, [(0, 0), (0, 0), (1, 1), (1, 1)], np_mode)
    out, ref = _run({"x": a, "xp": padded}, [layer(x), plain(_data("xp", padded))])
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)
    assert out.shape == (1, 3, 4, 5)


def test_conv_padding_mode_needs_an_int_padding():
    """A TypeError in 2.0 and 3.3.1 (2.0's test_conv1d_layer asserts it)."""
    with pytest.raises(TypeError, match=r"Conv1D: padding_mode='reflect' needs an int "
                                        r"padding, got 'valid'"):
        nn.Conv1D(2, 3, 3, padding="valid", padding_mode="reflect")


# -- pools


POOLS = [
    (lambda: nn.MaxPool1D(2, 2), lambda x: F.max_pool1d(x, 2, 2), (2, 3, 8)),
    (lambda: nn.AvgPool1D(3, 2, 1), lambda x: F.avg_pool1d(x, 3, 2, 1), (2, 3, 8)),
    (lambda: nn.AdaptiveAvgPool1D(3), lambda x: F.adaptive_avg_pool1d(x, 3), (2, 3, 8)),
    (lambda: nn.AdaptiveMaxPool1D(3), lambda x: F.adaptive_max_pool1d(x, 3), (2, 3, 8)),
    (lambda: nn.MaxPool3D(2), lambda x: F.max_pool3d(x, 2), (1, 2, 4, 4, 4)),
    (lambda: nn.AvgPool3D(2, 1), lambda x: F.avg_pool3d(x, 2, 1), (1, 2, 4, 4, 4)),
    (lambda: nn.AdaptiveAvgPool3D(2), lambda x: F.adaptive_avg_pool3d(x, 2),
     (1, 2, 4, 4, 4)),
    (lambda: nn.AdaptiveMaxPool3D([1, 2, 2]), lambda x: F.adaptive_max_pool3d(x, [1, 2, 2]),
     (1, 2, 4, 4, 4)),
]


@pytest.mark.parametrize("make,functional,shape", POOLS,
                         ids=["MaxPool1D", "AvgPool1D", "AdaptiveAvgPool1D",
                              "AdaptiveMaxPool1D", "MaxPool3D", "AvgPool3D",
                              "AdaptiveAvgPool3D", "AdaptiveMaxPool3D"])
def test_pool_layers_equal_their_functional(make, functional, shape):
    a = _rand(*shape)
    x = _data("x", a)
    out, ref = _run({"x": a}, [make()(x), functional(x)])
    np.testing.assert_array_equal(out, ref)


def test_pools_match_numpy_and_check_rank():
    a = _rand(2, 3, 8)
    b = _rand(1, 2, 4, 4, 4)
    x, z = _data("x", a), _data("z", b)
    p1, p3 = _run({"x": a, "z": b}, [nn.MaxPool1D(2)(x), nn.AvgPool3D(2)(z)])
    np.testing.assert_array_equal(p1, a.reshape(2, 3, 4, 2).max(-1))
    np.testing.assert_allclose(p3, b.reshape(1, 2, 2, 2, 2, 2, 2, 2).mean((3, 5, 7)),
                               rtol=1e-5)
    with pytest.raises(ValueError, match="MaxPool1D .* has rank 5, expected rank 3"):
        nn.MaxPool1D(2)(z)


# -- norms


def _instance_norm(a, scale, bias, eps=1e-5):
    axes = tuple(range(2, a.ndim))
    view = (1, -1) + (1,) * (a.ndim - 2)
    normed = (a - a.mean(axes, keepdims=True)) / np.sqrt(a.var(axes, keepdims=True) + eps)
    return normed * scale.reshape(view) + bias.reshape(view)


@pytest.mark.parametrize("cls,shape,full_name", [
    (nn.InstanceNorm1D, (2, 3, 6), "instance_norm1d_0"),
    (nn.InstanceNorm2D, (2, 3, 4, 5), "instance_norm2d_0"),
    (nn.InstanceNorm3D, (2, 3, 2, 3, 4), "instance_norm3d_0")])
def test_instance_norms_scale_and_bias_each_normalized_map(cls, shape, full_name):
    layer = cls(3)
    assert _params(layer) == [("scale", full_name + ".w_0", [3]),
                              ("bias", full_name + ".b_0", [3])]
    a = _rand(*shape)
    x = _data("x", a)
    y, ref = layer(x), F.instance_norm(x, weight=layer.scale, bias=layer.bias)
    exe = static.Executor()
    exe.run(static.default_startup_program())
    np.testing.assert_array_equal(scope_value(layer.scale), np.ones(3))
    scale, bias = _rand(3), _rand(3)
    layer.set_state_dict({"scale": scale, "bias": bias})
    out, ref_out = exe.run(feed={"x": a}, fetch_list=[y, ref])
    np.testing.assert_allclose(out, ref_out, rtol=1e-6)
    np.testing.assert_allclose(out, _instance_norm(a, scale, bias), rtol=1e-4, atol=1e-5)


def test_instance_norm_without_affine_and_its_errors():
    layer = nn.InstanceNorm2D(2, weight_attr=False, bias_attr=False)
    assert layer.parameters() == []
    a = _rand(2, 2, 3, 3)
    out, = _run({"x": a}, [layer(_data("x", a))])
    np.testing.assert_allclose(out, _instance_norm(a, np.ones(2), np.zeros(2)), rtol=1e-4,
                               atol=1e-5)
    with pytest.raises(ValueError, match="must be False together"):
        nn.InstanceNorm2D(2, weight_attr=False)
    with pytest.raises(ValueError, match="expected num_features=3"):
        nn.InstanceNorm2D(3)(static.data("z", [2, 2, 3, 3], "float32"))


def test_local_response_norm_equals_the_functional_and_numpy():
    a = _rand(2, 5, 3, 3)
    x = _data("x", a)
    out, ref = _run({"x": a}, [nn.LocalResponseNorm(3, alpha=0.1)(x),
                               F.local_response_norm(x, 3, alpha=0.1)])
    np.testing.assert_allclose(out, ref, rtol=1e-6)
    sq = np.pad(a * a, [(0, 0), (1, 1), (0, 0), (0, 0)])
    window_mean = (sq[:, :-2] + sq[:, 1:-1] + sq[:, 2:]) / 3
    np.testing.assert_allclose(out, a / (1 + 0.1 * window_mean) ** 0.75, rtol=1e-5)


# -- padding, pixel shuffle, upsampling


@pytest.mark.parametrize("cls,shape,padding,np_widths", [
    (nn.Pad1D, (2, 3, 5), [1, 2], [(0, 0), (0, 0), (1, 2)]),
    (nn.Pad2D, (2, 3, 4, 5), [1, 0, 2, 1], [(0, 0), (0, 0), (2, 1), (1, 0)]),
    (nn.Pad3D, (1, 2, 3, 4, 5), 1, [(0, 0), (0, 0), (1, 1), (1, 1), (1, 1)])])
def test_pad_layers_match_numpy(cls, shape, padding, np_widths):
    a = _rand(*shape)
    x = _data("x", a)
    const, refl = _run({"x": a}, [cls(padding, value=2.5)(x), cls(padding, "reflect")(x)])
    np.testing.assert_array_equal(const, np.pad(a, np_widths, constant_values=2.5))
    np.testing.assert_array_equal(refl, np.pad(a, np_widths, "reflect"))


def test_pad_layers_check_their_settings():
    with pytest.raises(ValueError, match="Pad2D: padding must be an int or 4 ints"):
        nn.Pad2D([1, 2])
    with pytest.raises(ValueError, match="Pad1D: mode must be one of"):
        nn.Pad1D(1, mode="edge")


def test_pixel_shuffle_layer_matches_numpy():
    a = _rand(2, 8, 3, 3)
    out, = _run({"x": a}, [nn.PixelShuffle(2)(_data("x", a))])
    ref = a.reshape(2, 2, 2, 2, 3, 3).transpose(0, 1, 4, 2, 5, 3).reshape(2, 2, 6, 6)
    np.testing.assert_array_equal(out, ref)


def test_upsample_layers():
    a = _rand(1, 2, 3, 4)
    x = _data("x", a)
    near, near2d, bil, bil_ref = _run({"x": a}, [
        nn.Upsample(scale_factor=2)(x), nn.UpsamplingNearest2D(size=[6, 8])(x),
        nn.UpsamplingBilinear2D(size=[5, 7])(x),
        F.interpolate(x, size=[5, 7], mode="bilinear", align_corners=True)])
    np.testing.assert_array_equal(near, a.repeat(2, axis=2).repeat(2, axis=3))
    np.testing.assert_array_equal(near2d, near)
    np.testing.assert_allclose(bil, bil_ref, rtol=1e-6)
    # align_corners: the corners are kept
    np.testing.assert_allclose(bil[..., [0, -1], :][..., [0, -1]],
                               a[..., [0, -1], :][..., [0, -1]], rtol=1e-6)
    y = nn.Upsample(size=[6], mode="linear", data_format="NCW")(
        static.data("z", [1, 2, 3], "float32"))
    assert y.shape == (1, 2, 6)


# -- group norm (the group_norm op)


def _group_norm(a, groups, scale, bias, eps=1e-5):
    g = a.reshape(a.shape[0], groups, -1)
    normed = ((g - g.mean(2, keepdims=True)) / np.sqrt(g.var(2, keepdims=True) + eps))
    view = (1, -1) + (1,) * (a.ndim - 2)
    return normed.reshape(a.shape) * scale.reshape(view) + bias.reshape(view)


@pytest.mark.paddle("3")   # startup ops in creation order, as Paddle 3 lists them
def test_group_norm_normalizes_each_channel_group():
    layer = nn.GroupNorm(2, 4)
    assert _params(layer) == [("weight", "group_norm_0.w_0", [4]),
                              ("bias", "group_norm_0.b_0", [4])]
    assert _startup_ops() == [("fill_constant", "group_norm_0.w_0"),
                              ("fill_constant", "group_norm_0.b_0")]
    a = _rand(3, 4, 2, 3)
    x = _data("x", a)
    y = layer(x)
    op = static.default_main_program().global_block().ops[-1]
    assert op.type == "group_norm" and op.attr("groups") == 2
    assert list(op.output("Mean")) and y.shape == (3, 4, 2, 3)
    exe = static.Executor()
    exe.run(static.default_startup_program())
    scale, bias = _rand(4), _rand(4)
    layer.set_state_dict({"weight": scale, "bias": bias})
    mean_var = static.default_main_program().global_block().var(op.output("Mean")[0])
    out, mean = exe.run(feed={"x": a}, fetch_list=[y, mean_var])
    np.testing.assert_allclose(out, _group_norm(a, 2, scale, bias), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(mean, a.reshape(3, 2, -1).mean(2), rtol=1e-5, atol=1e-6)


def test_group_norm_channels_last_and_fixed_affine():
    layer = nn.GroupNorm(3, 6, epsilon=1e-3, weight_attr=False, data_format="NHWC")
    assert [p.trainable for p in layer.parameters()] == [False, True]
    a = _rand(2, 5, 6)
    out, = _run({"x": a}, [layer(_data("x", a))])
    ref = _group_norm(np.moveaxis(a, -1, 1), 3, np.ones(6), np.zeros(6), 1e-3)
    np.testing.assert_allclose(out, np.moveaxis(ref, 1, -1), rtol=1e-4, atol=1e-5)


def test_group_norm_trains_its_parameters():
    a = _rand(4, 4, 3)
    x = _data("x", a)
    layer = nn.GroupNorm(2, 4)
    loss = paddle.mean(layer(x) * static.data("t", [4, 4, 3], "float32"))
    target = _rand(4, 4, 3)
    paddle.optimizer.SGD(learning_rate=1.0).minimize(loss)
    exe = static.Executor()
    exe.run(static.default_startup_program())
    exe.run(feed={"x": a, "t": target}, fetch_list=[loss])
    xhat = _group_norm(a, 2, np.ones(4), np.zeros(4))
    # d mean(y * t) / d bias[c] = sum over (n, l) of t / numel; same for weight with xhat
    np.testing.assert_allclose(scope_value(layer.bias), -target.sum((0, 2)) / target.size,
                               rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(scope_value(layer.weight),
                               1 - (xhat * target).sum((0, 2)) / target.size,
                               rtol=1e-4, atol=1e-6)


def test_group_norm_errors():
    with pytest.raises(ValueError, match="GroupNorm: num_channels \\(6\\) must be divisible"):
        nn.GroupNorm(4, 6)
    with pytest.raises(ValueError, match="expected num_channels=4"):
        nn.GroupNorm(2, 4)(static.data("x", [2, 6, 3], "float32"))
    x = static.data("z", [2, 6, 3], "float32")
    with pytest.raises(ValueError, match="group_norm.*6 channels, not divisible by groups=4"):
        append_op_out("group_norm", {"X": [x]}, {"groups": 4}, out_slot="Y",
                      extra_outputs=[("Mean", None), ("Variance", None)])
