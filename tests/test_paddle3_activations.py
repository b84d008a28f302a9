"""Paddle 3's activations (F.silu celu mish logsigmoid swiglu rrelu gumbel_softmax, the
in-place hardtanh_ / leaky_relu_ / tanh_ / thresholded_relu_, thresholded_relu's value,
paddle.softmax / Tensor.softmax, Softmax2D), dropout1d and feature_alpha_dropout, and their
nn layers: values recorded on Paddle 3.3.1 or numpy references, gradients against central
differences, the random ones statistically with fixed seeds."""
import numpy as np
import pytest

import refimpl as paddle
import refimpl.nn.functional as F
from helpers import central_differences

X = np.array([[-1.0, 0.0, 2.0, -0.5], [0.3, -2.0, 1.0, 0.7]])
Y = np.array([[0.5, -1.0, 1.5, 0.2], [-0.3, 0.4, 1.2, -0.6]])


def t(a, stop_gradient=True):
    return paddle.to_tensor(a, stop_gradient=stop_gradient)


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


# Paddle 3.3.1's values on X (float64)
RECORDED = [
    ("silu", lambda x: F.silu(x), [[-0.2689414214, 0.0, 1.761594156, -0.1887703344],
                                  [0.172332755, -0.238405844, 0.7310585786, 0.4677314405]]),
    ("celu", lambda x: F.celu(x, 0.5), [[-0.4323323584, 0.0, 2.0, -0.3160602794],
                                        [0.3, -0.4908421806, 1.0, 0.7]]),
    ("mish", lambda x: F.mish(x), [[-0.3034014614, 0.0, 1.9439589595, -0.2207437747],
                                  [0.2080013723, -0.2525014827, 0.8650983883, 0.5611483776]]),
    ("logsigmoid", lambda x: F.logsigmoid(x),
     [[-1.3132616875, -0.6931471806, -0.126928011, -0.9740769842],
      [-0.5543552445, -2.126928011, -0.3132616875, -0.4031860489]]),
    ("swiglu", lambda x: F.swiglu(x), [[-0.5378828427, -0.0], [0.172332755, -0.1668840908]]),
    ("swiglu_y", lambda x: F.swiglu(x, t(Y)),
     [[-0.1344707107, -0.0, 2.6423912339, -0.0377540669],
      [-0.0516998265, -0.0953623376, 0.8772702944, -0.2806388643]]),
    ("thresholded_relu_value", lambda x: F.thresholded_relu(x, 0.1, 0.5),
     [[0.5, 0.5, 2.0, 0.5], [0.3, 0.5, 1.0, 0.7]]),
]


@pytest.mark.paddle("3")
@pytest.mark.parametrize("name, call, expected", RECORDED, ids=[c[0] for c in RECORDED])
def test_activations_give_paddle_331s_values_and_gradients(name, call, expected):
    paddle.disable_static()
    x = t(X, stop_gradient=False)
    out = call(x)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-9, atol=1e-10)
    weights = np.linspace(0.5, 1.5, out.size).reshape(out.shape)
    (out * t(weights)).sum().backward()
    # (X's entries keep 0.05 from every kink but silu's, celu's and mish's smooth 0)
    numeric = central_differences(lambda a: float((call(t(a)).numpy() * weights).sum()), X)
    np.testing.assert_allclose(np.asarray(x.grad), numeric, rtol=1e-5, atol=1e-6)


def test_activation_references():
    paddle.disable_static()
    x = t(X)
    np.testing.assert_allclose(F.silu(x).numpy(), X * _sigmoid(X))
    np.testing.assert_allclose(F.celu(x, 2.0).numpy(),
                               np.maximum(X, 0) + np.minimum(0, 2 * np.expm1(X / 2)))
    np.testing.assert_allclose(F.mish(x).numpy(), X * np.tanh(np.log1p(np.exp(X))))
    assert F.logsigmoid is F.log_sigmoid
    # paddle.softmax: dim None is 1 for a 2-D input, 0 for a 1-D or 3-D one
    e = np.exp(X - X.max(1, keepdims=True))
    np.testing.assert_allclose(paddle.softmax(x).numpy(), e / e.sum(1, keepdims=True))
    cube = np.arange(24.0).reshape(2, 3, 4) / 10
    np.testing.assert_allclose(paddle.softmax(t(cube)).numpy().sum(0), np.ones((3, 4)))
    np.testing.assert_allclose(x.softmax(0).numpy().sum(0), np.ones(4))
    assert paddle.softmax(x, 1, dtype="float32").dtype == paddle.float32
    # Softmax2D: over the channels (axis -3)
    out = paddle.nn.Softmax2D()(t(cube)).numpy()
    np.testing.assert_allclose(out.sum(0), np.ones((3, 4)))
    assert repr(paddle.nn.Softmax2D()) == "Softmax2D()"
    assert paddle.nn.Softmax2D(name="test").extra_repr() == "name=test"
    with pytest.raises(AssertionError, match="requires a 3D or 4D tensor as input"):
        paddle.nn.Softmax2D()(x)


def test_in_place_activations_change_the_tensor():
    paddle.disable_static()
    base = np.array([-2.0, 0.5, 3.0])
    expected = {"hardtanh_": np.clip(base, -1, 1), "leaky_relu_": np.where(base > 0, base,
                                                                           0.01 * base),
                "tanh_": np.tanh(base), "thresholded_relu_": np.where(base > 1, base, 0)}
    for name, values in expected.items():
        x = t(base.copy())
        assert getattr(F, name)(x) is x
        np.testing.assert_allclose(x.numpy(), values, err_msg=name)
    x = t(base.copy())
    assert F.silu(x, inplace=True) is x
    np.testing.assert_allclose(x.numpy(), base * _sigmoid(base))


@pytest.mark.paddle("3")
def test_rrelu_slopes_and_its_gradient_is_the_noise():
    paddle.disable_static()
    paddle.seed(7)
    x = t(np.full((200, 50), -1.0), stop_gradient=False)
    out = F.rrelu(x, 0.1, 0.3)
    slopes = -out.numpy()
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3
    assert abs(slopes.mean() - 0.2) < 0.005 and slopes.std() > 0.05    # U(0.1, 0.3)
    out.sum().backward()
    np.testing.assert_allclose(np.asarray(x.grad), slopes)
    # evaluation: the mean slope, float32 attrs as in 3.3.1 (-0.20000000298023224)
    np.testing.assert_allclose(F.rrelu(t(X), 0.1, 0.3, training=False).numpy(),
                               np.where(X >= 0, X, X * float(np.float32(0.2))), rtol=1e-15)
    layer = paddle.nn.RReLU(0.1, 0.3, name="b")
    assert repr(layer) == "RReLU(lower=0.1, upper=0.3, training=True, dtype=float32, name=b)"
    layer.eval()
    np.testing.assert_allclose(layer(t(X)).numpy(), F.rrelu(t(X), 0.1, 0.3, False).numpy())
    with pytest.raises(TypeError, match="must be float type"):
        F.rrelu(t(X), 0, 0.5)
    with pytest.raises(ValueError, match="upper value must be greater than lower"):
        F.rrelu(t(X), 0.5, 0.2)
    with pytest.raises(ValueError, match="no greater than one"):
        F.rrelu(t(X), 0.5, 2.0)


def test_gumbel_softmax_samples_the_softmax():
    paddle.disable_static()
    paddle.seed(3)
    logits = np.log(np.array([0.1, 0.2, 0.7]))
    x = t(np.tile(logits, (4000, 1)))
    soft = F.gumbel_softmax(x, temperature=0.5).numpy()
    np.testing.assert_allclose(soft.sum(1), np.ones(4000))
    hard = F.gumbel_softmax(x, hard=True).numpy()
    assert set(np.unique(hard)) == {0.0, 1.0} and (hard.sum(1) == 1).all()
    # argmax(logits + Gumbel) is a draw from softmax(logits)
    np.testing.assert_allclose(hard.mean(0), [0.1, 0.2, 0.7], atol=0.03)
    # the gradient: the softmax's through Out, not divided by the temperature (3.3.1)
    v = t(X, stop_gradient=False)
    out = F.gumbel_softmax(v, temperature=0.5, axis=0)
    (out * t(Y)).sum().backward()
    o = out.numpy()
    np.testing.assert_allclose(np.asarray(v.grad), o * (Y - (o * Y).sum(0, keepdims=True)))
    with pytest.raises(ValueError, match="temperature must be greater than 0"):
        F.gumbel_softmax(v, temperature=-1)


@pytest.mark.paddle("3")
def test_dropout1d_drops_channels_shared_by_the_batch():
    paddle.disable_static()
    paddle.seed(0)
    out = F.dropout1d(paddle.ones([4, 64, 3]), 0.5).numpy()
    # one draw per channel, the same for every sample (3.3.1: dropout along axis 1)
    assert (out == out[:1, :, :1]).all()
    assert set(np.unique(out)) == {0.0, 2.0}
    unbatched = F.dropout1d(paddle.ones([64, 3]), 0.5).numpy()
    assert (unbatched == unbatched[:, :1]).all()
    np.testing.assert_array_equal(F.dropout1d(t(X), 0.5, training=False).numpy(), X)
    with pytest.raises(RuntimeError, match="expects 2D or 3D input, got 1D"):
        F.dropout1d(paddle.ones([3]))


@pytest.mark.paddle("3")
def test_feature_alpha_dropout_keeps_or_saturates_whole_channels():
    paddle.disable_static()
    paddle.seed(1)
    p = 0.5
    alpha_p = -1.6732632423543772 * 1.0507009873554805
    a = ((1 - p) * (1 + p * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * p
    x = np.random.RandomState(0).randn(8, 16, 5)
    out = F.feature_alpha_dropout(t(x), p).numpy()
    kept = np.isclose(out, a * x + b).all(-1)
    dropped = np.isclose(out, a * alpha_p + b).all(-1)
    assert (kept | dropped).all() and kept.any() and dropped.any()
    np.testing.assert_array_equal(F.feature_alpha_dropout(t(x), p, training=False).numpy(), x)
    layer = paddle.nn.FeatureAlphaDropout(0.2)
    assert repr(layer) == "FeatureAlphaDropout(p=0.2)"
    layer.eval()
    np.testing.assert_array_equal(layer(t(x)).numpy(), x)
    with pytest.raises(ValueError, match="at least 2 dims"):
        F.feature_alpha_dropout(paddle.ones([3]), 0.5)
    with pytest.raises(TypeError, match="p must be a float or int"):
        F.feature_alpha_dropout(t(x), "0.5")


def test_layers_reprs_and_identity():
    paddle.disable_static()
    assert paddle.nn.SiLU is paddle.nn.Silu
    assert repr(paddle.nn.SiLU()) == "Silu(inplace=False)"
    assert repr(paddle.nn.SiLU(name="a")) == "Silu(inplace=False, name=a)"
    assert repr(paddle.nn.CELU(0.3)) == "CELU(alpha=0.3)"
    assert repr(paddle.nn.Mish()) == "Mish()"
    x = t(X)
    assert paddle.nn.Identity(3, bias=False)(x) is x
    np.testing.assert_allclose(paddle.nn.CELU(0.5)(x).numpy(), F.celu(x, 0.5).numpy())
    np.testing.assert_allclose(paddle.nn.Mish()(x).numpy(), F.mish(x).numpy())
    with pytest.raises(ZeroDivisionError, match="alpha cannot be 0 for celu"):
        F.celu(x, 0)
    with pytest.raises(ValueError, match="must have one shape"):
        F.swiglu(x, t(Y[:, :3]))
    with pytest.raises(ValueError, match="divisible by 2"):
        F.swiglu(t(X[:, :3]))


def test_static_programs_build_the_ops():
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            x = paddle.static.data("x", [2, 4], "float64")
            outs = [F.silu(x), F.celu(x, 0.5), F.rrelu(x, training=False),
                    F.thresholded_relu(x, 0.0, 0.5), F.thresholded_relu(x)]
        assert [op.type for op in main.global_block().ops] == [
            "silu", "celu", "rrelu", "thresholded_relu", "thresholded_relu"]
        assert main.global_block().ops[-2].attrs["value"] == 0.5
        got = paddle.static.Executor(paddle.CPUPlace()).run(main, feed={"x": X},
                                                             fetch_list=outs)
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(got[0], X * _sigmoid(X))
    np.testing.assert_allclose(got[3], np.where(X > 0, X, 0.5))


@pytest.mark.paddle("3")
def test_c_ops_of_the_new_activations():
    paddle.disable_static()
    x = t(X)
    ops = paddle._C_ops
    np.testing.assert_allclose(ops.silu(x).numpy(), F.silu(x).numpy())
    np.testing.assert_allclose(ops.logsigmoid(x).numpy(), F.logsigmoid(x).numpy())
    np.testing.assert_allclose(ops.celu(x, 0.5).numpy(), F.celu(x, 0.5).numpy())
    # value is a float attr: 0.3 in 32 bits, as 3.3.1's _C_ops give (0.30000001192092896)
    np.testing.assert_allclose(ops.thresholded_relu(x, 0.1, 0.3).numpy(),
                               np.where(X > 0.1, X, float(np.float32(0.3))), rtol=1e-15)
    # rrelu(x, lower, upper, is_test): Out only
    np.testing.assert_allclose(ops.rrelu(x, 0.1, 0.3, True).numpy(),
                               F.rrelu(x, 0.1, 0.3, training=False).numpy())
    hard = ops.gumbel_softmax(x, 1.0, True, -1).numpy()
    np.testing.assert_array_equal(hard.sum(-1), [1.0, 1.0])
