"""Paddle 3's margin and likelihood losses (refimpl/layers/margin_losses.py,
likelihood_losses.py) and their nn layers: values recorded on Paddle 3.3.1 (float64, the
inputs below), numpy references, gradients by central differences, static == dynamic,
3.3.1's errors."""
import inspect

import numpy as np
import pytest

import refimpl as paddle
import refimpl.nn.functional as F
from helpers import central_differences

X = np.array([[-1.0, 0.0, 2.0, -0.5], [0.3, -2.0, 1.0, 0.7]])
Y = np.array([[0.5, -1.0, 1.5, 0.2], [-0.3, 0.4, 1.2, -0.6]])
Z = np.array([[1.0, 1.0, -1.0, 0.0], [0.5, -0.5, 0.25, 2.0]])
HEAD = np.linspace(-1, 1, 16).reshape(4, 4)
TAILS = [[np.linspace(-0.5, 0.5, 8).reshape(4, 2), np.linspace(0.3, -0.3, 4).reshape(2, 2)],
         [np.linspace(-0.2, 0.4, 4).reshape(4, 1), np.array([[0.1, -0.2, 0.3]])]]


def t(a):
    return paddle.to_tensor(a)


def _log_sigmoid(v):
    return -np.logaddexp(0, -v)


# (name, call on tensors, the arrays, Paddle 3.3.1's result with reduction 'none')
RECORDED = [
    ("cosine_embedding", lambda x, y: F.cosine_embedding_loss(
        x, y, t(np.array([1, -1])), margin=0.2, reduction="none"), (X, Y),
     [0.4432887995, 0.0]),
    ("hinge_embedding", lambda x: F.hinge_embedding_loss(
        x, t(np.sign(Y)), margin=0.5, reduction="none"), (X,),
     [[-1.0, 0.5, 2.0, -0.5], [0.2, -2.0, 1.0, 0.0]]),
    ("soft_margin", lambda x: F.soft_margin_loss(x, t(np.sign(Y)), reduction="none"), (X,),
     [[1.3132616875, 0.6931471806, 0.126928011, 0.9740769842],
      [0.8543552445, 2.126928011, 0.3132616875, 1.1031860489]]),
    ("multi_label_soft_margin", lambda x: F.multi_label_soft_margin_loss(
        x, t((Y > 0).astype("float64")), reduction="none"), (X,), [0.7768534658, 1.099432748]),
    ("multi_margin", lambda x, w: F.multi_margin_loss(
        x, t(np.array([2, 3])), p=2, margin=0.5, weight=w, reduction="none"),
     (X, np.array([1.0, 2.0, 0.5, 1.5])), [0.0, 0.24375]),
    ("multi_label_margin", lambda x: F.multi_label_margin_loss(
        x, t(np.array([[2, 0, -1, 3], [3, -1, 0, 0]])), reduction="none"), (X,),
     [0.875, 0.475]),
    ("triplet_margin", lambda x, y, z: F.triplet_margin_loss(
        x, y, z, margin=0.5, swap=True, reduction="none"), (X, Y, Z), [0.0, 1.1704718025]),
    ("triplet_margin_with_distance", lambda x, y, z: F.triplet_margin_with_distance_loss(
        x, y, z, reduction="none"), (X, Y, Z), [0.0, 1.6704718025]),
    ("gaussian_nll", lambda x, y: F.gaussian_nll_loss(
        x, y, t(np.abs(Z) + 0.1), full=True, reduction="none"), (X, Y),
     [[1.9893208958, 1.4211390777, 1.0802299867, 2.2176459867],
      [0.9635257213, 5.4635257213, 0.4511703281, 1.692288158]]),
    ("poisson_nll", lambda x: F.poisson_nll_loss(x, t(np.abs(Y) * 3), reduction="none"), (X,),
     [[1.8678794412, 1.0, -1.6109439011, 0.9065306597],
      [1.0798588076, 2.5353352832, -0.8817181715, 0.7537527075]]),
    ("poisson_nll_full", lambda x: F.poisson_nll_loss(
        x, t(np.abs(Y) * 3), log_input=False, full=True, reduction="none"),
     (np.abs(X) + 0.1,), [[1.1869034661, 8.7718365225, 2.7006074444, 0.9064953643],
                          [1.2246616362, 1.2385603604, 3.3276506196, 1.6725062323]]),
    ("adaptive_log_softmax", lambda x, h, a, b, c, d: F.adaptive_log_softmax_with_loss(
        x, t(np.array([3, 6])), h, [[a, b], [c, d]], [2, 4, 7])[0],
     (X, HEAD, TAILS[0][0], TAILS[0][1], TAILS[1][0], TAILS[1][1]),
     [-2.153875928, -2.3906016487]),
    ("huber_not_huber", lambda x, y: paddle.nn.HuberLoss(
        reduction="none", delta=0.5, is_huber=False)(x, y), (X, Y),
     [[1.25, 0.75, 0.25, 0.45], [0.35, 2.15, 0.04, 1.05]]),
]


@pytest.mark.paddle("3")
@pytest.mark.parametrize("name, call, arrays, expected", RECORDED,
                         ids=[case[0] for case in RECORDED])
def test_losses_give_paddle_331s_values_and_central_difference_gradients(name, call, arrays,
                                                                         expected):
    paddle.disable_static()
    inputs = [paddle.to_tensor(a, stop_gradient=False) for a in arrays]
    out = call(*inputs)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-9, atol=1e-10)
    weights = np.linspace(0.5, 1.5, out.size).reshape(out.shape)
    (out * t(weights)).sum().backward()
    for k, (tensor, array) in enumerate(zip(inputs, arrays)):
        def f(a, k=k):
            values = [t(b) for b in arrays]
            values[k] = t(a)
            return float((call(*values).numpy() * weights).sum())
        np.testing.assert_allclose(np.asarray(tensor.grad), central_differences(f, array),
                                   rtol=1e-5, atol=1e-6, err_msg="%s: input %d" % (name, k))


def test_reductions_and_numpy_references():
    paddle.disable_static()
    x, y = t(X), t(Y)
    # soft margin: log(1 + exp(-y x)), an integer label cast to x's dtype
    label = np.sign(Y).astype("int64")
    np.testing.assert_allclose(F.soft_margin_loss(x, t(label)).numpy(),
                               np.log1p(np.exp(-label * X)).mean())
    np.testing.assert_allclose(F.soft_margin_loss(x, t(label), "sum").numpy(),
                               np.log1p(np.exp(-label * X)).sum())
    # multi-label soft margin with a weight, then the mean over the batch
    target = (Y > 0).astype("float64")
    w = np.array([1.0, 2.0, 0.5, 1.0])
    per_class = -(target * _log_sigmoid(X) + (1 - target) * _log_sigmoid(-X)) * w
    np.testing.assert_allclose(F.multi_label_soft_margin_loss(x, t(target), t(w)).numpy(),
                               per_class.mean(-1).mean())
    # triplet margin: ||a - b + eps||_p along the last axis
    def dist(a, b, p=2.0):
        return (np.abs(a - b + 1e-6) ** p).sum(-1) ** (1 / p)
    np.testing.assert_allclose(
        F.triplet_margin_loss(x, y, t(Z), p=3.0, reduction="sum").numpy(),
        np.maximum(dist(X, Y, 3) - dist(X, Z, 3) + 1.0, 0).sum())
    # gaussian nll: a variance without the last dim is unsqueezed, one clipped at epsilon
    var = np.array([0.5, 1e-9])
    expected = 0.5 * (np.log(np.maximum(var, 1e-6))[:, None]
                      + (X - Y) ** 2 / np.maximum(var, 1e-6)[:, None])
    np.testing.assert_allclose(F.gaussian_nll_loss(x, y, t(var), reduction="sum").numpy(),
                               expected.sum())


def test_multi_label_margin_loss_reads_targets_up_to_the_first_minus_one():
    paddle.disable_static()
    labels = np.array([[2, 0, -1, 3], [3, -1, 0, 0]])

    def reference(row, targets):
        targets = list(targets[:list(targets).index(-1)] if -1 in targets else targets)
        return sum(max(0.0, 1 - row[j] + row[i]) for j in targets
                   for i in range(len(row)) if i not in targets) / len(row)
    expected = [reference(X[n], labels[n]) for n in range(2)]
    np.testing.assert_allclose(F.multi_label_margin_loss(t(X), t(labels), "none").numpy(),
                               expected)
    np.testing.assert_allclose(F.multi_label_margin_loss(t(X), t(labels)).numpy(),
                               np.mean(expected))


def test_gaussian_nll_loss_passes_no_gradient_to_the_variance():
    paddle.disable_static()
    var = paddle.to_tensor(np.abs(Z) + 0.1, stop_gradient=False)
    x = paddle.to_tensor(X, stop_gradient=False)
    F.gaussian_nll_loss(x, t(Y), var).backward()
    assert var.grad is None          # 3.3.1: the clipped variance is a constant
    np.testing.assert_allclose(np.asarray(x.grad), (X - Y) / (np.abs(Z) + 0.1) / X.size)


@pytest.mark.paddle("3")
def test_static_programs_compute_what_dynamic_mode_does():
    paddle.disable_static()
    eager = [F.multi_label_margin_loss(t(X), t(np.array([[2, 0, -1, 3], [3, -1, 0, 0]]))),
             F.cosine_embedding_loss(t(X), t(Y), t(np.array([1, -1]))),
             F.poisson_nll_loss(t(X), t(np.abs(Y)), full=True)]
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            x = paddle.static.data("x", [2, 4], "float64")
            y = paddle.static.data("y", [2, 4], "float64")
            labels = paddle.static.data("labels", [2, 4], "int64")
            label = paddle.static.data("label", [2], "int64")
            fetches = [F.multi_label_margin_loss(x, labels),
                       F.cosine_embedding_loss(x, y, label),
                       F.poisson_nll_loss(x, paddle.abs(y), full=True)]
        exe = paddle.static.Executor(paddle.CPUPlace())
        got = exe.run(main, feed={"x": X, "y": Y, "label": np.array([1, -1]),
                                  "labels": np.array([[2, 0, -1, 3], [3, -1, 0, 0]])},
                      fetch_list=fetches)
    finally:
        paddle.disable_static()
    # (the program's scale ops hold their factors in 32 bits, as 3.3.1's legacy IR: 2e-9)
    for static_value, eager_value in zip(got, eager):
        np.testing.assert_allclose(static_value, eager_value.numpy(), rtol=1e-8)


@pytest.mark.paddle("3")    # 3.3.1's errors
def test_errors_as_paddle_331():
    paddle.disable_static()
    x = t(X)
    with pytest.raises(ValueError, match="reduction"):
        F.hinge_embedding_loss(X, X, reduction="reduce_mean")    # before the ndarray
    with pytest.raises(ValueError, match="label 'generated_tensor_.*' must be 1-D"):
        F.cosine_embedding_loss(x, x, t(np.ones((2, 1))))
    with pytest.raises(ValueError, match="must be in \\[-1, 1\\]"):
        paddle.nn.CosineEmbeddingLoss(margin=2)
    with pytest.raises(ValueError, match="label values should be < 4"):
        F.multi_label_margin_loss(x, t(np.array([[4, -1, 0, 0], [0, 1, 2, 3]])))
    with pytest.raises(ValueError, match="expected a 2-D input"):
        F.multi_label_margin_loss(t(X[0]), t(np.array([0, 1, -1, 0])))
    with pytest.raises(ValueError, match="should be no less than 0"):
        F.triplet_margin_loss(x, x, x, margin=-1)
    with pytest.raises(ValueError, match="distances must be no less than 0"):
        F.triplet_margin_with_distance_loss(
            x, t(Y), t(Z), distance_function=lambda a, b: -((a - b) ** 2).sum(-1))
    with pytest.raises(ValueError, match="variance has negative"):
        F.gaussian_nll_loss(x, x, t(-np.ones((2, 4))))
    with pytest.raises(ValueError, match="variance .* must have input's shape"):
        F.gaussian_nll_loss(x, x, t(np.ones((4,))))
    with pytest.raises(ValueError, match="epsilon must be positive"):
        F.poisson_nll_loss(x, x, epsilon=0)
    with pytest.raises(ValueError, match="label values should be in \\[0, n_classes - 1\\]"):
        F.adaptive_log_softmax_with_loss(x, t(np.array([0, 7])), t(HEAD),
                                         [[t(a) for a in pair] for pair in TAILS], [2, 4, 7])
    # a numpy array for a tensor: 3.3.1's eager kernels raise ValueError, refimpl's checks
    # TypeError; the error is both
    with pytest.raises(ValueError):
        F.soft_margin_loss(X, x)
    with pytest.raises(TypeError):
        F.soft_margin_loss(X, x)


@pytest.mark.paddle("3")
def test_loss_layers_take_the_functions_settings():
    paddle.disable_static()
    params = inspect.signature(paddle.nn.TripletMarginLoss).parameters
    assert list(params) == ["margin", "p", "epsilon", "swap", "reduction", "name"]
    assert list(inspect.signature(paddle.nn.PoissonNLLLoss).parameters) == [
        "log_input", "full", "epsilon", "reduction", "name"]
    layer = paddle.nn.MultiMarginLoss(p=2, margin=0.5, weight=t(np.array([1.0, 2, 0.5, 1.5])),
                                      reduction="none")
    np.testing.assert_allclose(layer(input=t(X), label=t(np.array([2, 3]))).numpy(),
                               [0.0, 0.24375])
    with pytest.raises(ValueError, match="reduction"):
        paddle.nn.SoftMarginLoss(reduction="bad")
    with pytest.raises(TypeError, match="takes input, label"):
        paddle.nn.SoftMarginLoss()(t(X))
    assert paddle.nn.HuberLoss is paddle.nn.SmoothL1Loss
    model = paddle.nn.AdaptiveLogSoftmaxWithLoss(16, 6, [2, 4], head_bias=True)
    assert len(model.parameters()) == 2      # 3.3.1: the tail weights sit in a list
    assert [list(w.shape) for pair in model.tail_weights for w in pair] == [
        [16, 4], [4, 2], [16, 1], [1, 2]]
    out, loss = model(t(np.random.RandomState(0).randn(3, 16).astype("float32")),
                      t(np.array([0, 3, 5])))
    assert out.shape == [3] and loss.shape == []
    np.testing.assert_allclose(loss.numpy(), -out.numpy().mean(), rtol=1e-6)
    with pytest.raises(ValueError, match="cutoffs should be"):
        paddle.nn.AdaptiveLogSoftmaxWithLoss(16, 6, [4, 2])


@pytest.mark.paddle("3")
def test_adaptive_log_prob_and_predict_as_paddle_331():
    paddle.disable_static()
    # in_features 8 and div_value 4: the last cluster's projection is [8, 0] (an empty
    # matmul: uniform log-probabilities inside that cluster, as 3.3.1 gives)
    model = paddle.nn.AdaptiveLogSoftmaxWithLoss(8, 7, [2, 4], head_bias=True)
    rs = np.random.RandomState(0)
    for p in model.parameters():
        p.set_value(rs.randn(*p.shape).astype("float32"))
    for pair in model.tail_weights:
        for w in pair:
            w.set_value(rs.randn(*w.shape).astype("float32"))
    x = t(rs.randn(5, 8).astype("float32"))
    log_prob = model.log_prob(x).numpy()
    np.testing.assert_allclose(log_prob[:2], [   # Paddle 3.3.1's, same parameters
        [-5.00314, -4.0139, -1.11464, -4.53298, -1.55048, -1.55048, -1.55048],
        [-0.88108, -3.22171, -2.91869, -1.41218, -2.49229, -2.49229, -2.49229]], atol=2e-5)
    np.testing.assert_allclose(np.exp(log_prob).sum(1), np.ones(5), rtol=1e-5)
    predicted = model.predict(x)
    assert predicted.dtype == paddle.float32
    np.testing.assert_array_equal(predicted.numpy(), [2.0, 0.0, 4.0, 3.0, 3.0])
    out, _ = model(x, t(np.array([0, 1, 3, 4, 6])))
    np.testing.assert_allclose(out.numpy(), log_prob[np.arange(5), [0, 1, 3, 4, 6]],
                               rtol=1e-5)
