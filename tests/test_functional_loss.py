"""nn.functional losses / normalizations and their fluid.layers twins against numpy
formulas written out here (reductions, weights, ignore_index, pos_weight)."""
import numpy as np
import pytest

import refimpl as paddle
import refimpl.nn.functional as F
from refimpl import fluid, nn, static, versions

RNG = np.random.RandomState(7)


def run(build, **feeds):
    """Build `build(*data vars)` in a fresh program and run it on `feeds` (name -> array)."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        vars_ = [static.data(k, list(v.shape), v.dtype.name) for k, v in feeds.items()]
        outs = build(*vars_)
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    exe = static.Executor()
    exe.run(startup)
    got = exe.run(main, feed=feeds, fetch_list=outs)
    return got if len(got) > 1 else got[0]


def reduce_np(loss, reduction):
    return {"mean": loss.mean(), "sum": loss.sum(), "none": loss}[reduction]


def sigmoid(a):
    return 1 / (1 + np.exp(-a))


P = RNG.uniform(0.05, 0.95, (4, 3))
Y = RNG.uniform(0, 1, (4, 3))
X = RNG.uniform(-2, 2, (4, 3))
W = RNG.uniform(0.5, 1.5, (4, 3))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_binary_cross_entropy_reductions_and_weight(reduction):
    got = run(lambda p, y, w: F.binary_cross_entropy(p, y, w, reduction), p=P, y=Y, w=W)
    want = -W * (Y * np.log(P) + (1 - Y) * np.log(1 - P))
    np.testing.assert_allclose(got, reduce_np(want, reduction), rtol=1e-10)


def test_binary_cross_entropy_clips_log_at_minus_100():
    got = run(lambda p, y: F.binary_cross_entropy(p, y, reduction="none"),
              p=np.array([0.0, 1.0]), y=np.array([1.0, 0.0]))
    np.testing.assert_allclose(got, [100.0, 100.0])


def test_binary_cross_entropy_with_logits_pos_weight():
    pw = np.array([1.0, 2.0, 3.0])
    got = run(lambda x, y, pw: F.binary_cross_entropy_with_logits(x, y, reduction="sum",
                                                                   pos_weight=pw),
              x=X, y=Y, pw=pw)
    plain = -(Y * np.log(sigmoid(X)) + (1 - Y) * np.log(1 - sigmoid(X)))
    np.testing.assert_allclose(got, (plain * (1 + (pw - 1) * Y)).sum(), rtol=1e-10)


def test_sigmoid_cross_entropy_with_logits_ignore_and_normalize():
    label = np.array([[1.0, 0.0, -1.0], [0.0, -1.0, 1.0]])
    x = X[:2]
    got = run(lambda x, y: fluid.layers.sigmoid_cross_entropy_with_logits(
        x, y, ignore_index=-1, normalize=True), x=x, y=label)
    full = -(label * np.log(sigmoid(x)) + (1 - label) * np.log(1 - sigmoid(x)))
    np.testing.assert_allclose(got, np.where(label == -1, 0, full) / 4, rtol=1e-10)


@pytest.mark.parametrize("reduction", ["none", "mean", "batchmean", "sum"])
def test_kl_div(reduction):
    target = Y.copy()
    target[0, 0] = 0.0  # contributes 0, not nan
    got = run(lambda x, t: F.kl_div(x, t, reduction), x=X, t=target)
    with np.errstate(divide="ignore", invalid="ignore"):
        loss = np.where(target > 0, target * (np.log(target) - X), 0)
    want = {"none": loss, "mean": loss.mean(), "batchmean": loss.sum() / 4,
            "sum": loss.sum()}[reduction]
    np.testing.assert_allclose(got, want, rtol=1e-10)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_l1_loss(reduction):
    got = run(lambda x, y: F.l1_loss(x, y, reduction), x=X, y=Y)
    np.testing.assert_allclose(got, reduce_np(np.abs(X - Y), reduction), rtol=1e-12)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_l1_loss_names_its_result(reduction):
    # Paddle 2.0 passes `name` to the final mean / sum (test_l1_loss: 'aaa' in y.name)
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [2, 3], "float32")
        out = F.l1_loss(x, x * 2.0, reduction, name="aaa")
        loss = nn.loss.L1Loss(reduction, name="bbb")(x, x)
    assert "aaa" in out.name and main.global_block().ops[-1].output_arg_names[0] == \
        loss.name and "bbb" in loss.name
    (value,) = static.Executor().run(main, feed={"x": np.array([[1, -2, 3], [4, 5, -6]],
                                                               "float32")}, fetch_list=[out])
    np.testing.assert_allclose(value, reduce_np(np.array([[1, 2, 3], [4, 5, 6]], "float32"),
                                                reduction))


def test_smooth_l1_loss_is_huber_with_delta():
    got = run(lambda x, y: F.smooth_l1_loss(x, y, "none", delta=0.5), x=X, y=Y)
    r = np.abs(X - Y)
    np.testing.assert_allclose(got, np.where(r <= 0.5, 0.5 * r * r, 0.5 * (r - 0.25)))


def test_fluid_smooth_l1_with_weights_and_sigma():
    iw, ow = W, W[::-1]
    got = run(lambda x, y, iw, ow: fluid.layers.smooth_l1(x, y, iw, ow, sigma=2.0),
              x=X, y=Y, iw=iw, ow=ow)
    d = (X - Y) * iw
    val = np.where(np.abs(d) < 0.25, 0.5 * 4 * d * d, np.abs(d) - 0.125) * ow
    np.testing.assert_allclose(got, val.sum(1, keepdims=True))


@pytest.mark.paddle("3")      # refimpl's own checks: 1.8 / 2.0 check fluid.layers as Paddle
def test_margin_ranking_loss_and_fluid_margin_rank_loss():
    label = np.where(RNG.rand(4, 1) > 0.5, 1.0, -1.0)
    a, b = X[:, :1], Y[:, :1]
    want = np.maximum(0, -label * (a - b) + 0.1)
    got = run(lambda a, b, l: F.margin_ranking_loss(a, b, l, 0.1, "none"), a=a, b=b, l=label)
    np.testing.assert_allclose(got, want)
    # fluid's margin_rank_loss takes float32 only (1.8.5's and 2.0's check)
    as32 = {k: v.astype("float32") for k, v in dict(a=a, b=b, l=label).items()}
    got = run(lambda a, b, l: fluid.layers.margin_rank_loss(l, a, b, 0.1), **as32)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_margin_ranking_loss_names_its_result_and_reduces(reduction):
    """The result is named after the loss (Paddle 2.0's LayerHelper naming), whatever the
    reduction; the values are numpy's."""
    label = np.where(RNG.rand(4, 3) > 0.5, 1.0, -1.0)
    names = []

    def build(a, b, l):
        loss = nn.MarginRankingLoss(margin=0.2, reduction=reduction)(a, b, l)
        names.append(loss.name)
        return loss
    got = run(build, a=X, b=Y, l=label)
    assert names[0].startswith("margin_ranking_loss_") and names[0].endswith(".tmp_0")
    np.testing.assert_allclose(
        got, reduce_np(np.maximum(0, -label * (X - Y) + 0.2), reduction).reshape(got.shape))
    assert got.shape == ((4, 3) if reduction == "none" else versions.switch("scalar_shape"))


@pytest.mark.paddle("3")      # refimpl's own checks: 1.8 / 2.0 check fluid.layers as Paddle
def test_rank_loss_and_bpr_loss():
    label = RNG.randint(0, 2, (4, 1)).astype("float32")     # rank_loss: float32 only
    a, b = X[:, :1].astype("float32"), Y[:, :1].astype("float32")
    got = run(lambda l, a, b: fluid.layers.rank_loss(l, a, b), l=label, a=a, b=b)
    np.testing.assert_allclose(got, np.log1p(np.exp(a - b)) - label * (a - b), rtol=1e-6,
                               atol=1e-6)
    pos = np.array([[0], [2], [1], [0]])
    got = run(lambda x, l: fluid.layers.bpr_loss(x, l), x=X, l=pos)
    want = [-np.mean([np.log(sigmoid(X[n, pos[n, 0]] - X[n, j])) for j in range(3)
                      if j != pos[n, 0]]) for n in range(4)]
    np.testing.assert_allclose(got[:, 0], want)


def test_rank_loss_mixes_n_and_n_by_1_inputs_and_takes_labels_shape():
    # Paddle 1.8.5: Label [3], Left [3, 1], Right [3] gives Out [3]; Label [3, 1] gives [3, 1]
    from refimpl.fluid import core
    from refimpl.fluid.op import Operator
    label, a, b = RNG.randint(0, 2, 3).astype("float64"), RNG.rand(3), RNG.rand(3)
    want = np.log1p(np.exp(a - b)) - label * (a - b)
    for shapes in (((3,), (3, 1), (3,)), ((3, 1), (3,), (3, 1)), ((3,), (3,), (3, 1))):
        scope, place = core.Scope(), core.CPUPlace()
        for name, value, shape in zip(("l", "a", "b"), (label, a, b), shapes):
            scope.var(name).get_tensor().set(value.reshape(shape), place)
        Operator("rank_loss", Label="l", Left="a", Right="b", Out="o").run(scope, place)
        out = np.array(scope.find_var("o").get_tensor())
        assert out.shape == shapes[0]
        np.testing.assert_allclose(out.ravel(), want, rtol=1e-12)
    scope.var("a").get_tensor().set(np.zeros((3, 2)), place)
    with pytest.raises(ValueError, match=r"Left 'a' has shape \[3, 2\]"):
        Operator("rank_loss", Label="l", Left="a", Right="b", Out="o").run(scope, place)


def test_log_loss():
    label = RNG.randint(0, 2, (4, 1)).astype("float64")
    got = run(lambda p, l: F.log_loss(p, l), p=P[:, :1], l=label)
    p = P[:, :1]
    np.testing.assert_allclose(got, -label * np.log(p + 1e-4) - (1 - label) * np.log(1 - p + 1e-4))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss_weight_and_ignore_index(reduction):
    logp = np.log(RNG.dirichlet(np.ones(3), 5))
    label = np.array([0, 2, 1, 1, 2])
    weight = np.array([0.5, 1.0, 2.0])
    got = run(lambda x, l, w: F.nll_loss(x, l, w, ignore_index=1, reduction=reduction),
              x=logp, l=label, w=weight)
    w = np.where(label == 1, 0, weight[label])
    loss = -w * logp[np.arange(5), label]
    want = {"none": loss, "sum": loss.sum(), "mean": loss.sum() / w.sum()}[reduction]
    np.testing.assert_allclose(got, want)


def test_nll_loss_spatial():
    logp = RNG.randn(2, 3, 2, 2)
    label = RNG.randint(0, 3, (2, 2, 2))
    got = run(lambda x, l: F.nll_loss(x, l), x=logp, l=label)
    want = -np.take_along_axis(logp, label[:, None], 1).mean()
    np.testing.assert_allclose(got, want)


def test_nll_loss_rejects_a_wrong_label_shape():
    with pytest.raises(Exception, match="Label"):
        run(lambda x, l: F.nll_loss(x, l), x=RNG.randn(4, 3), l=np.zeros((3,), "int64"))


def test_sigmoid_focal_loss_2_0_against_formula():
    label = RNG.randint(0, 2, (4, 3)).astype("float64")
    got = run(lambda x, y, n: F.sigmoid_focal_loss(x, y, n, reduction="none"), x=X, y=label,
              n=np.array([2.0]))
    p = sigmoid(X)
    ce = -(label * np.log(p) + (1 - label) * np.log(1 - p))
    p_t = p * label + (1 - p) * (1 - label)
    a_t = 0.25 * label + 0.75 * (1 - label)
    np.testing.assert_allclose(got, a_t * (1 - p_t) ** 2 * ce / 2)


def test_fluid_sigmoid_focal_loss_classes_background_and_ignored():
    label = np.array([[1], [0], [-1], [3]], "int32")
    got = run(lambda x, l, fg: fluid.layers.sigmoid_focal_loss(x, l, fg), x=X, l=label,
              fg=np.array([2], "int32"))
    p = sigmoid(X)
    want = np.zeros_like(X)
    for n, c in enumerate(label[:, 0]):
        for j in range(3):
            if c == j + 1:
                want[n, j] = -0.25 * (1 - p[n, j]) ** 2 * np.log(p[n, j]) / 2
            elif c != -1:
                want[n, j] = -0.75 * p[n, j] ** 2 * np.log(1 - p[n, j]) / 2
    np.testing.assert_allclose(got, want)


def test_dice_loss():
    prob = RNG.dirichlet(np.ones(3), 4)
    label = np.array([[0], [2], [1], [2]])
    got = run(lambda p, l: F.dice_loss(p, l), p=prob, l=label)
    onehot = np.eye(3)[label[:, 0]]
    dice = 1 - 2 * (prob * onehot).sum(1) / (prob.sum(1) + onehot.sum(1) + 1e-5)
    np.testing.assert_allclose(got, dice.mean())


def test_npair_loss():
    anchor, positive = RNG.randn(4, 3), RNG.randn(4, 3)
    labels = np.array([1.0, 2.0, 1.0, 3.0])
    got = run(lambda a, p, l: F.npair_loss(a, p, l, l2_reg=0.01), a=anchor, p=positive,
              l=labels)
    targets = (labels[:, None] == labels[None, :]).astype(float)
    targets /= targets.sum(1, keepdims=True)
    sim = anchor @ positive.T
    logsm = sim - np.log(np.exp(sim).sum(1, keepdims=True))
    ce = -(targets * logsm).sum(1)
    l2 = ((anchor ** 2).sum(1).mean() + (positive ** 2).sum(1).mean()) * 0.25 * 0.01
    np.testing.assert_allclose(got, ce.mean() + l2)


def test_label_smooth_uniform_and_prior():
    onehot = np.eye(4)[[0, 3, 1]]
    prior = np.array([[0.1, 0.2, 0.3, 0.4]])
    got = run(lambda x, p: [F.label_smooth(x, epsilon=0.1),
                            fluid.layers.label_smooth(x, p, epsilon=0.2)], x=onehot, p=prior)
    np.testing.assert_allclose(got[0], 0.9 * onehot + 0.1 / 4)
    np.testing.assert_allclose(got[1], 0.8 * onehot + 0.2 * prior)


@pytest.mark.parametrize("p", [1, 2, 3])
def test_normalize(p):
    got = run(lambda x: F.normalize(x, p=p, axis=0), x=X)
    norm = (np.abs(X) ** p).sum(0, keepdims=True) ** (1 / p)
    np.testing.assert_allclose(got, X / norm)


def test_normalize_zero_vector_stays_zero():
    got = run(lambda x: F.normalize(x), x=np.zeros((2, 3)))
    np.testing.assert_array_equal(got, 0)


def test_l2_normalize():
    got = run(lambda x: fluid.layers.l2_normalize(x, axis=1, epsilon=1e-6), x=X)
    np.testing.assert_allclose(got, X / np.sqrt((X * X).sum(1, keepdims=True) + 1e-6))


def test_cosine_similarity():
    got = run(lambda a, b: F.cosine_similarity(a, b, axis=1), a=X, b=Y)
    want = (X * Y).sum(1) / np.sqrt((X * X).sum(1) * (Y * Y).sum(1))
    np.testing.assert_allclose(got, want)


def test_fluid_mse_and_huber():
    got = run(lambda x, y: [fluid.layers.mse_loss(x, y), fluid.layers.huber_loss(x, y, 1.0)],
              x=X, y=Y)
    np.testing.assert_allclose(got[0], ((X - Y) ** 2).mean())
    r = np.abs(Y - X)
    np.testing.assert_allclose(got[1], np.where(r <= 1, 0.5 * r * r, r - 0.5))


def test_losses_train_through_backward():
    """The gradient of a composed loss reaches the input (append_backward end to end)."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [4, 3], "float64")
        x.stop_gradient = False
        y = static.data("y", [4, 3], "float64")
        loss = F.binary_cross_entropy_with_logits(x, y)
        grads = static.gradients([loss], [x])
    got = static.Executor().run(main, feed={"x": X, "y": Y}, fetch_list=grads)[0]
    np.testing.assert_allclose(got, (sigmoid(X) - Y) / X.size)


def test_teacher_student_sigmoid_loss_cases():
    x = np.array([[0.5], [-1.0], [2.0], [0.3], [20.0]])
    label = np.array([[-2.0], [-1.0], [0.25], [1.5], [-1.0]])
    got = run(lambda x, l: fluid.layers.teacher_student_sigmoid_loss(x, l), x=x, l=label)

    def ce(v, z):
        return np.log1p(np.exp(v)) - v * z
    want = [ce(0.5, 0), ce(-1.0, 1), ce(2.0, 0) + ce(2.0, 0.25), ce(0.3, 1) + ce(0.3, 0.5),
            np.log1p(np.exp(-20.0))]   # ce(20, 1): beyond soft_max_up_bound 15, unbounded
    np.testing.assert_allclose(got[:, 0], want)


def test_teacher_student_sigmoid_loss_bounds_act_on_the_gradient_only():
    """Paddle 1.8.5's kernel (measured; 3.3.1 has no such op): outside the bounds the loss
    is the unbounded one while the gradient is zero; inside it is 2 sigmoid(x) - Label
    (teacher rows), sigmoid(x) - 1 (a click alone), sigmoid(x) (no click)."""
    x = np.array([[-2.868], [3.1], [-1.0], [2.0], [20.0], [-20.0]])
    label = np.array([[0.3], [1.6], [-2.0], [-1.0], [0.0], [-1.0]])
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        xv = static.data("x", [6, 1], "float64")
        xv.stop_gradient = False
        lv = static.data("l", [6, 1], "float64")
        y = fluid.layers.teacher_student_sigmoid_loss(xv, lv, soft_max_up_bound=2.5,
                                                      soft_max_lower_bound=-2.5)
        grads = static.gradients([y], [xv])
    loss, grad = static.Executor().run(main, feed={"x": x, "l": label}, fetch_list=[y] + grads)
    paddle185_loss = [0.9709144871220997, 1.3281279358771474, 0.31326168751822286,
                      0.1269280110429726, 40.00000000412231, 20.000000002061153]
    paddle185_grad = [0.0, 0.0, 0.2689414213699951, -0.11920292202211769, 0.0, 0.0]
    np.testing.assert_allclose(loss[:, 0], paddle185_loss, rtol=1e-12)
    np.testing.assert_allclose(grad[:, 0], paddle185_grad, rtol=1e-12)


@pytest.mark.parametrize("version", ["2.0", "3"])
def test_softmax_with_cross_entropy_hard_label_with_unit_trailing_dims(
        dygraph, paddle_version, version):
    # PaddleNLP 2.0's Perplexity unsqueezes a [B, T, 1] label to [B, T, 1, 1] for logits
    # [B, T, V]: Paddle 1.8.5 reads it as [B, T, 1] (measured); 3.3.1 raises
    import refimpl as paddle
    logits = np.random.RandomState(0).rand(2, 3, 5).astype("float32")
    label = np.array([1, 2, 3, 4, 0, 1], "int64").reshape(2, 3, 1, 1)
    with paddle_version(version):
        lg = paddle.to_tensor(logits, stop_gradient=False)
        if version == "3":
            with pytest.raises(Exception, match="expected rank 3 like Logits"):
                F.softmax_with_cross_entropy(lg, paddle.to_tensor(label))
            return
        loss = F.softmax_with_cross_entropy(lg, paddle.to_tensor(label))
        loss.sum().backward()
    log_softmax = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    one_hot = np.eye(5)[label.reshape(2, 3)]
    assert list(loss.shape) == [2, 3, 1]
    np.testing.assert_allclose(loss.numpy()[..., 0], -(log_softmax * one_hot).sum(-1),
                               rtol=1e-6)
    np.testing.assert_allclose(np.asarray(lg.grad), np.exp(log_softmax) - one_hot,
                               rtol=1e-5, atol=1e-7)
    with pytest.raises(Exception, match="expected rank 3 like Logits"):
        F.softmax_with_cross_entropy(lg, paddle.to_tensor(label.reshape(2, 3, 1, 1, 1)[..., :1]
                                                          .repeat(2, axis=3)))


def test_eager_build_checks_follow_a_profile_switch_on_the_same_shapes(dygraph, paddle_version):
    # the tracer runs an op's build-time checks once per signature: the profile is part of
    # it, so 3's rank check still runs after 2.0 accepted the same shapes
    import refimpl as paddle
    logits = paddle.to_tensor(np.zeros((2, 3, 5), "float32"))
    label = paddle.to_tensor(np.zeros((2, 3, 1, 1), "int64"))
    with paddle_version("2.0"):
        assert list(F.softmax_with_cross_entropy(logits, label).shape) == [2, 3, 1]
    with paddle_version("3"):
        with pytest.raises(Exception, match="expected rank 3 like Logits"):
            F.softmax_with_cross_entropy(logits, label)


@pytest.mark.paddle("2.0")    # 2.0's paddle.norm (switch paddle_norm: 3's is linalg.norm)
def test_paddle_norm_checks_axis_and_p_types():
    """paddle.norm: an axis that is no int / list / tuple is a ValueError before x is
    looked at (2.0 order: norm("inf", [2], "int64")), so is a p that is no str or number;
    p=2 over axis 0 of [3, 4] gives 5."""
    with static.program_guard(static.Program(), static.Program()):
        with pytest.raises(ValueError, match="norm: axis"):
            paddle.norm("inf", [2], "int64")
        x = fluid.data("x", [2], "float64")
        for p, axis in (([1], None), ([1], -1)):
            with pytest.raises(ValueError, match="norm: p"):
                paddle.norm(x, p=p, axis=axis)
        out = paddle.norm(x, p=2, axis=0)
        got = static.Executor().run(x.block.program, feed={"x": np.array([3., 4.])},
                                    fetch_list=[out])[0]
    np.testing.assert_allclose(got, 5.0)


def test_cross_entropy_of_probabilities_without_softmax():
    """use_softmax=False (Paddle 2.1 on): the input holds probabilities and the loss is -log
    of the label's; Paddle 3.3.1 gave 0.6931472, 0.22314353 for these (mean 0.45814535, class
    weights 1, 2, 3: 0.41114503), for [N] and [N, 1] labels and a class axis 0."""
    p = np.array([[0.2, 0.5, 0.3], [0.1, 0.1, 0.8]], "float32")
    label = np.array([[1], [2]], "int64")
    want = -np.log(p[[0, 1], [1, 2]])
    got = run(lambda x, y: F.cross_entropy(x, y, reduction="none", use_softmax=False),
              x=p, y=label)
    np.testing.assert_allclose(got.ravel(), want, rtol=1e-6)
    got = run(lambda x, y: F.cross_entropy(x, y, use_softmax=False), x=p, y=label[:, 0])
    np.testing.assert_allclose(got, want.mean(), rtol=1e-6)
    w = np.array([1., 2., 3.], "float32")
    got = run(lambda x, y, w: F.cross_entropy(x, y, weight=w, use_softmax=False),
              x=p, y=label, w=w)
    np.testing.assert_allclose(got, (want * w[[1, 2]]).sum() / w[[1, 2]].sum(), rtol=1e-6)
    soft = np.eye(3, dtype="float32")[[1, 2]]
    got = run(lambda x, y: F.cross_entropy(x, y, soft_label=True, axis=0, reduction="none",
                                           use_softmax=False), x=p.T.copy(), y=soft.T.copy())
    np.testing.assert_allclose(got.ravel(), want, rtol=1e-6)


def _appended_op(op_type, inputs, outputs, loss_slot, grads):
    """Append `op_type` by type (no layer builds these ops), reduce_sum its `loss_slot` and
    run: {output: value} and {input: gradient} for `grads`."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        block = main.global_block()
        ins = {}
        for name, value in inputs.items():
            ins[name] = fluid.data(name, list(value.shape), str(value.dtype))
            ins[name].stop_gradient = name not in grads
        outs = {name: block.create_var(name=name, dtype="float32") for name in outputs}
        block.append_op(type=op_type, inputs={k: [v] for k, v in ins.items()},
                        outputs={k: [v] for k, v in outs.items()})
        fluid.backward.append_backward(fluid.layers.reduce_sum(outs[loss_slot]))
    got = fluid.Executor(fluid.CPUPlace()).run(
        main, feed=inputs, fetch_list=list(outputs) + [g + "@GRAD" for g in grads])
    return dict(zip(outputs, got[:len(outputs)])), dict(zip(grads, got[len(outputs):]))


# margins 0.5, 1, -1, -2, 0.5: on both sides of and on the kinks (Paddle 1.8.5, measured)
_LOGITS = np.float32([[0.5], [1.0], [-1.0], [2.0], [-0.5]])
_LABELS = np.float32([[1], [1], [1], [0], [0]])


def test_hinge_loss_op_matches_paddle_18():
    out, grad = _appended_op("hinge_loss", {"Logits": _LOGITS, "Labels": _LABELS}, ["Loss"],
                             "Loss", ["Logits"])
    np.testing.assert_array_equal(out["Loss"].ravel(), [0.5, 0, 2, 3, 0.5])
    np.testing.assert_array_equal(grad["Logits"].ravel(), [-1, 0, -1, 1, 1])


def test_modified_huber_loss_op_matches_paddle_18():
    out, grad = _appended_op("modified_huber_loss", {"X": _LOGITS, "Y": _LABELS},
                             ["IntermediateVal", "Out"], "Out", ["X"])
    np.testing.assert_array_equal(out["IntermediateVal"].ravel(), [0.5, 1, -1, -2, 0.5])
    np.testing.assert_array_equal(out["Out"].ravel(), [0.25, 0, 4, 8, 0.25])
    np.testing.assert_array_equal(grad["X"].ravel(), [-1, 0, -4, 4, 1])


def test_squared_l2_distance_op_sums_one_row_ys_gradient():
    x, y = np.arange(6, dtype="float32").reshape(2, 3), np.ones((1, 3), "float32")
    out, grad = _appended_op("squared_l2_distance", {"X": x, "Y": y}, ["sub_result", "Out"],
                             "Out", ["X", "Y"])
    np.testing.assert_array_equal(out["sub_result"], x - y)
    np.testing.assert_array_equal(out["Out"], [[2], [29]])
    np.testing.assert_array_equal(grad["X"], 2 * (x - y))
    np.testing.assert_array_equal(grad["Y"], [[-2, -6, -10]])   # Paddle 1.8.5


def test_minus_op_refuses_broadcasting():
    x = np.arange(6, dtype="float32").reshape(2, 3)
    out, grad = _appended_op("minus", {"X": x, "Y": 2 * x}, ["Out"], "Out", ["X", "Y"])
    np.testing.assert_array_equal(out["Out"], -x)
    np.testing.assert_array_equal(grad["X"], np.ones_like(x))
    np.testing.assert_array_equal(grad["Y"], -np.ones_like(x))
    with pytest.raises(Exception, match="minus does not broadcast"):
        _appended_op("minus", {"X": x, "Y": x[:1]}, ["Out"], "Out", [])


def test_fluid_mse_loss_of_shapeless_tensors_runs():
    # 1.8's test_mse_loss: create_tensor variables (no shape until fed) into mse_loss, whose
    # reduce_mean learns its shape when run
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.layers.create_tensor(dtype="float32", name="x")
        y = fluid.layers.create_tensor(dtype="float32", name="y")
        loss = fluid.layers.mse_loss(input=x, label=y)
    xv, yv = np.array([[1.0, 2.0]], "float32"), np.array([[0.0, 4.0]], "float32")
    got, = fluid.Executor(fluid.CPUPlace()).run(main, feed={"x": xv, "y": yv},
                                                fetch_list=[loss])
    np.testing.assert_allclose(got, [2.5])
