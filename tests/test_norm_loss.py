"""batch_norm / layer_norm / dropout / losses / embedding / metrics through the public layers:
running statistics over training steps, test mode and clone(for_test=True), dropout mask
replay through the Seed input, and every loss and its gradient against numpy."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl import fluid, static, versions
import refimpl.metric as metric
import refimpl.nn.functional as F

EPS = 1e-5


def _exe():
    exe = static.Executor()
    exe.run(static.default_startup_program())
    return exe


def _value(name):
    return np.array(static.global_scope().find_var(name).get_tensor())


def _softmax(a, axis=-1):
    e = np.exp(a - a.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


# -- batch_norm


def test_batch_norm_parameters_are_named_and_flagged_like_paddle():
    x = static.data("x", [None, 3, 2, 2], "float32")
    fluid.layers.batch_norm(x)
    params = {p.name: p for p in static.default_main_program().all_parameters()}
    assert sorted(params) == ["batch_norm_0.b_0", "batch_norm_0.w_0", "batch_norm_0.w_1",
                              "batch_norm_0.w_2"]
    assert params["batch_norm_0.w_0"].trainable and params["batch_norm_0.b_0"].trainable
    assert not params["batch_norm_0.w_1"].trainable and not params["batch_norm_0.w_2"].trainable
    op, = [o for o in static.default_main_program().global_block().ops if o.type == "batch_norm"]
    assert op.output("MeanOut") == ["batch_norm_0.w_1"]       # updated in place
    assert op.output("VarianceOut") == ["batch_norm_0.w_2"]
    assert [op.output(s)[0] for s in ("SavedMean", "SavedVariance", "Y")] == \
        ["batch_norm_0.tmp_0", "batch_norm_0.tmp_1", "batch_norm_0.tmp_2"]
    _exe()
    np.testing.assert_array_equal(_value("batch_norm_0.w_0"), np.ones(3))
    np.testing.assert_array_equal(_value("batch_norm_0.w_1"), np.zeros(3))
    np.testing.assert_array_equal(_value("batch_norm_0.w_2"), np.ones(3))


def test_batch_norm_running_stats_follow_the_momentum_rule_over_training_steps():
    """NCHW training with SGD: each step normalizes with the batch's mean and biased
    variance, and running = momentum * running + (1 - momentum) * batch."""
    rng = np.random.RandomState(3)
    x = static.data("x", [None, 2, 3, 3], "float32")
    y = fluid.layers.batch_norm(x, momentum=0.8)
    loss = paddle.mean(y * y + y)
    fluid.optimizer.SGD(0.1).minimize(loss)
    saved = [o for o in static.default_main_program().global_block().ops
             if o.type == "batch_norm"][0].output("SavedVariance")[0]
    exe = _exe()
    mean, var = np.zeros(2), np.ones(2)
    for step in range(3):
        a = (rng.randn(4, 2, 3, 3) * (step + 1) + step).astype("float32")
        scale, bias = _value("batch_norm_0.w_0"), _value("batch_norm_0.b_0")
        out, inv_std = exe.run(feed={"x": a}, fetch_list=[y, saved])
        bm, bv = a.mean((0, 2, 3)), a.var((0, 2, 3))
        want = (a - bm[:, None, None]) / np.sqrt(bv[:, None, None] + EPS) * \
            scale[:, None, None] + bias[:, None, None]
        np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(inv_std, 1 / np.sqrt(bv + EPS), rtol=1e-5)
        mean, var = 0.8 * mean + 0.2 * bm, 0.8 * var + 0.2 * bv
        np.testing.assert_allclose(_value("batch_norm_0.w_1"), mean, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(_value("batch_norm_0.w_2"), var, rtol=1e-5)
    # Scale/Bias trained (the loss depends on them); the running stats are not SGD-updated
    assert not np.allclose(_value("batch_norm_0.w_0"), 1)


@pytest.mark.parametrize("version, momentum", [("1.8", 0.25), ("2.0", 0.25), ("3", 0.9)])
def test_batch_norm_momentum_tensor_overrides_the_momentum_attr(paddle_version, version,
                                                                momentum):
    """Paddle 1.8's dispensable MomentumTensor (its test_batch_norm_op's
    TestBatchNormOpTrainingMomentumVariable): the fed [1] value 0.25, not the attr 0.9,
    weighs the running statistics (1.8.5 measured); Paddle 3.3.1 uses the attr. Y is
    the batch's normalization either way."""
    with paddle_version(version):
        _run_batch_norm_with_momentum_tensor(momentum)


def _run_batch_norm_with_momentum_tensor(momentum):
    rng = np.random.RandomState(5)
    block = static.default_main_program().global_block()
    names = {"x": [4, 3, 2, 2], "scale": [3], "bias": [3], "mean": [3], "variance": [3],
             "momentum": [1]}
    v = {n: block.create_var(name=n, shape=s, dtype="float32") for n, s in names.items()}
    outs = {n: block.create_var(name=n, dtype="float32") for n in ("y", "saved_mean",
                                                                    "saved_variance")}
    block.append_op(type="batch_norm", inputs={
        "X": v["x"], "Scale": v["scale"], "Bias": v["bias"], "Mean": v["mean"],
        "Variance": v["variance"], "MomentumTensor": v["momentum"]},
        outputs={"Y": outs["y"], "MeanOut": v["mean"], "VarianceOut": v["variance"],
                 "SavedMean": outs["saved_mean"], "SavedVariance": outs["saved_variance"]},
        attrs={"momentum": 0.9, "is_test": False})
    feed = {n: rng.rand(*s).astype("float32") for n, s in names.items()}
    feed["momentum"] = np.array([0.25], "float32")
    y, mean, var = static.Executor().run(feed=feed, fetch_list=["y", "mean", "variance"])
    a = feed["x"]
    bm, bv = a.mean((0, 2, 3)), a.var((0, 2, 3))
    np.testing.assert_allclose(mean, momentum * feed["mean"] + (1 - momentum) * bm, rtol=1e-5)
    np.testing.assert_allclose(var, momentum * feed["variance"] + (1 - momentum) * bv,
                               rtol=1e-5)
    want = (a - bm[:, None, None]) / np.sqrt(bv[:, None, None] + EPS) * \
        feed["scale"][:, None, None] + feed["bias"][:, None, None]
    np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-5)


def test_batch_norm_momentum_tensor_must_have_one_element():
    block = static.default_main_program().global_block()
    x = block.create_var(name="x", shape=[4, 3], dtype="float32")
    stats = [block.create_var(name=n, shape=[3], dtype="float32")
             for n in ("scale", "bias", "mean", "variance")]
    momentum = block.create_var(name="momentum", shape=[2], dtype="float32")
    with pytest.raises(Exception, match="MomentumTensor 'momentum' has shape \\[2\\]"):
        block.append_op(type="batch_norm", inputs=dict(zip(
            ("X", "Scale", "Bias", "Mean", "Variance", "MomentumTensor"),
            [x] + stats + [momentum])), outputs={
            "Y": block.create_var(name="y", dtype="float32"), "MeanOut": stats[2],
            "VarianceOut": stats[3],
            "SavedMean": block.create_var(name="sm", dtype="float32"),
            "SavedVariance": block.create_var(name="sv", dtype="float32")})


def test_clone_for_test_normalizes_with_the_running_stats_and_leaves_them():
    rng = np.random.RandomState(4)
    x = static.data("x", [None, 3], "float32")
    y = static.nn.batch_norm(x, momentum=0.5, act="relu")
    main = static.default_main_program()
    test_prog = main.clone(for_test=True)
    assert [o.attr("is_test") for o in test_prog.global_block().ops
            if o.type == "batch_norm"] == [True]
    exe = _exe()
    a = rng.randn(8, 3).astype("float32") * 2 + 1
    exe.run(main, feed={"x": a})
    mean, var = _value("batch_norm_0.w_1"), _value("batch_norm_0.w_2")
    np.testing.assert_allclose(mean, 0.5 * a.mean(0), rtol=1e-5)
    np.testing.assert_allclose(var, 0.5 + 0.5 * a.var(0), rtol=1e-5)
    b = rng.randn(5, 3).astype("float32")
    out, = exe.run(test_prog, feed={"x": b}, fetch_list=[y.name])
    np.testing.assert_allclose(out, np.maximum((b - mean) / np.sqrt(var + EPS), 0),
                               rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(_value("batch_norm_0.w_1"), mean)
    np.testing.assert_array_equal(_value("batch_norm_0.w_2"), var)


def test_batch_norm_nhwc_equals_nchw_transposed():
    rng = np.random.RandomState(5)
    a = rng.randn(2, 3, 4, 5).astype("float64")
    x1 = static.data("x1", [2, 3, 4, 5], "float64")
    x2 = static.data("x2", [2, 4, 5, 3], "float64")
    y1 = fluid.layers.batch_norm(x1)
    y2 = fluid.layers.batch_norm(x2, data_layout="NHWC")
    exe = _exe()
    o1, o2 = exe.run(feed={"x1": a, "x2": a.transpose(0, 2, 3, 1)}, fetch_list=[y1, y2])
    np.testing.assert_allclose(o2, o1.transpose(0, 2, 3, 1), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(_value("batch_norm_1.w_2"), _value("batch_norm_0.w_2"),
                               rtol=1e-12)


@pytest.mark.parametrize("training, use_global_stats, batch_stats", [
    (True, None, True), (False, None, False), (True, True, False), (False, False, True)])
def test_functional_batch_norm_picks_batch_or_running_stats(training, use_global_stats,
                                                            batch_stats):
    rng = np.random.RandomState(6)
    x = static.data("x", [6, 2], "float64")
    params = {n: static.create_global_var([2], v, "float64", persistable=True, name=n)
              for n, v in (("rm", 0.5), ("rv", 2.0), ("w", 1.5), ("b", -1.0))}
    y = F.batch_norm(x, params["rm"], params["rv"], params["w"], params["b"],
                     training=training, momentum=0.9, use_global_stats=use_global_stats)
    a = rng.randn(6, 2)
    out, = _exe().run(feed={"x": a}, fetch_list=[y])
    m, v = (a.mean(0), a.var(0)) if batch_stats else (0.5, 2.0)
    np.testing.assert_allclose(out, (a - m) / np.sqrt(v + EPS) * 1.5 - 1.0, rtol=1e-10)
    momentum = float(np.float32(0.9))     # a FLOAT attr: 32 bits, as in Paddle
    want_rm = momentum * 0.5 + (1 - momentum) * a.mean(0) if batch_stats else np.full(2, 0.5)
    np.testing.assert_allclose(_value("rm"), want_rm, rtol=1e-12)


def test_batch_norm_gradients_match_finite_differences():
    """d(sum(w * Y))/dX, /dScale, /dBias of a training-mode batch norm (float64)."""
    rng = np.random.RandomState(7)
    a = rng.randn(3, 2, 2, 2)
    w = rng.randn(3, 2, 2, 2)
    scale, bias = np.array([1.3, 0.7]), np.array([0.1, -0.2])

    def objective(a, scale, bias):
        m, v = a.mean((0, 2, 3)), a.var((0, 2, 3))
        y = (a - m[:, None, None]) / np.sqrt(v[:, None, None] + EPS) * \
            scale[:, None, None] + bias[:, None, None]
        return (w * y).sum()

    x = static.data("x", [3, 2, 2, 2], "float64")
    x.stop_gradient = False
    y = fluid.layers.batch_norm(
        x, param_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(scale)),
        bias_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(bias)))
    wv = static.create_global_var([3, 2, 2, 2], 0.0, "float64", persistable=True, name="wv")
    loss = paddle.sum(y * wv)
    grads = static.gradients([loss], [x, static.default_main_program().global_block()
                                      .var("batch_norm_0.w_0"),
                                      static.default_main_program().global_block()
                                      .var("batch_norm_0.b_0")])
    exe = _exe()
    static.global_scope().find_var("wv").get_tensor().set(w, static.CPUPlace())
    got = exe.run(feed={"x": a}, fetch_list=grads)
    for i, (g, arr) in enumerate(zip(got, (a, scale, bias))):
        numeric = np.zeros_like(arr)
        for idx in np.ndindex(arr.shape):
            args = [a.copy(), scale.copy(), bias.copy()]
            args[i][idx] += 1e-6
            plus = objective(*args)
            args[i][idx] -= 2e-6
            numeric[idx] = (plus - objective(*args)) / 2e-6
        np.testing.assert_allclose(g, numeric, rtol=1e-5, atol=1e-7)


# -- layer_norm


def test_layer_norm_layers_match_numpy():
    rng = np.random.RandomState(8)
    x = static.data("x", [3, 2, 4], "float64")
    y = fluid.layers.layer_norm(x, begin_norm_axis=1)
    g = static.create_global_var([4], 2.0, "float64", persistable=True, name="g")
    fy = F.layer_norm(x, [4], weight=g)
    a = rng.randn(3, 2, 4)
    out, fout = _exe().run(feed={"x": a}, fetch_list=[y, fy])
    rows = a.reshape(3, 8)
    want = (rows - rows.mean(1, keepdims=True)) / np.sqrt(rows.var(1, keepdims=True) + EPS)
    np.testing.assert_allclose(out, want.reshape(a.shape), rtol=1e-10)
    last = (a - a.mean(-1, keepdims=True)) / np.sqrt(a.var(-1, keepdims=True) + EPS)
    np.testing.assert_allclose(fout, 2 * last, rtol=1e-10)
    names = sorted(p.name for p in static.default_main_program().all_parameters())
    assert names == ["layer_norm_0.b_0", "layer_norm_0.w_0"]


# -- dropout


def _dropout_program(seed_value):
    """Two dropouts reading one Seed tensor (what RecomputeOptimizer builds)."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [20, 30], "float32")
        block = main.global_block()
        seed = block.create_var(name="seed_out", shape=[1], dtype="int32")
        block.append_op(type="seed", outputs={"Out": [seed]}, attrs={"seed": seed_value})
        outs = []
        for i in range(2):
            out = block.create_var(name="out%d" % i, shape=[20, 30], dtype="float32")
            mask = block.create_var(name="mask%d" % i, shape=[20, 30], dtype="uint8")
            block.append_op(type="dropout", inputs={"X": [x], "Seed": [seed]},
                            outputs={"Out": [out], "Mask": [mask]},
                            attrs={"dropout_prob": 0.4,
                                   "dropout_implementation": "upscale_in_train"})
            outs += [out, mask]
    return main, outs


def _paddle_mask(seed, p, shape):
    """Paddle 2.x's CPU dropout mask of a fixed seed: a std::mt19937_64 seeded with it, one
    float32 U(0, 1) draw per element, kept where >= p (specs/ops/dropout.md)."""
    from refimpl.framework.mt19937 import Engine
    n = int(np.prod(shape))
    return (Engine.from_seed(seed).uniform(0.0, 1.0, n, "float32") >= p).reshape(shape)


@pytest.mark.skipif(versions.switch("dropout_stream") != "mt19937_64",
                    reason="Paddle 2.x's masks; 1.8.5's stream: tests/test_dropout_stream.py")
def test_dropout_masks_replay_through_the_seed_input():
    ones = np.ones((20, 30), "float32")
    exe = static.Executor()
    main, outs = _dropout_program(1234)
    o0, m0, o1, m1 = exe.run(main, feed={"x": ones}, fetch_list=outs)
    assert m0.dtype == np.uint8
    np.testing.assert_array_equal(m0, m1)
    np.testing.assert_array_equal(m0, _paddle_mask(1234, 0.4, (20, 30)))
    np.testing.assert_allclose(o0, m0 / 0.6, rtol=1e-6)
    again = exe.run(main, feed={"x": ones}, fetch_list=outs)
    np.testing.assert_array_equal(again[1], m0)             # a fixed seed: same every run
    fresh, fresh_outs = _dropout_program(0)                 # seed 0: a new draw each run
    a = exe.run(fresh, feed={"x": ones}, fetch_list=fresh_outs)
    b = exe.run(fresh, feed={"x": ones}, fetch_list=fresh_outs)
    np.testing.assert_array_equal(a[1], a[3])
    assert not np.array_equal(a[1], b[1])


@pytest.mark.skipif(versions.switch("dropout_stream") != "mt19937_64",
                    reason="Paddle 2.x's masks; 1.8.5's stream: tests/test_dropout_stream.py")
@pytest.mark.parametrize("impl, train_scale, infer_scale", [
    ("downgrade_in_infer", 1.0, 0.75), ("upscale_in_train", 1 / 0.75, 1.0)])
def test_dropout_scales_and_gradient(impl, train_scale, infer_scale):
    rng = np.random.RandomState(9)
    x = static.data("x", [10, 8], "float64")
    x.stop_gradient = False
    out = fluid.layers.dropout(x, 0.25, seed=17, dropout_implementation=impl)
    infer = fluid.layers.dropout(x, 0.25, is_test=True, dropout_implementation=impl)
    mask_name = [o for o in static.default_main_program().global_block().ops
                 if o.type == "dropout"][0].output("Mask")[0]
    dx = static.gradients([paddle.sum(out)], [x])[0]
    a = rng.randn(10, 8)
    o, i, mask, g = _exe().run(feed={"x": a}, fetch_list=[out, infer, mask_name, dx])
    np.testing.assert_array_equal(mask, _paddle_mask(17, 0.25, (10, 8)))
    # Paddle 3.3.1's mask of seed 17 (measured, FLAGS_enable_pir_api=0): 0 at these
    assert np.flatnonzero(mask == 0).tolist() == [1, 6, 7, 13, 21, 28, 47, 49, 66]
    np.testing.assert_allclose(o, a * mask * train_scale, rtol=1e-12)
    np.testing.assert_allclose(i, a * infer_scale, rtol=1e-12)
    np.testing.assert_allclose(g, mask * train_scale, rtol=1e-12)


def test_dropout_without_seed_uses_the_program_random_seed():
    main = static.default_main_program()
    main.random_seed = 21
    x = static.data("x", [4, 4], "float32")
    fluid.layers.dropout(x, 0.5)
    F.dropout(x, 0.5)
    ops = [o for o in main.global_block().ops if o.type == "dropout"]
    assert [(o.attr("fix_seed"), o.attr("seed")) for o in ops] == [(True, 21), (True, 21)]
    assert ops[1].attr("dropout_implementation") == "upscale_in_train"


def test_functional_dropout_of_zero_is_its_input_and_adds_no_op():
    # Paddle 3.3.1's F.dropout returns x itself for p == 0 (before checking mode); fluid's
    # layer still adds its op
    x = static.data("x", [4, 4], "float32")
    assert F.dropout(x, 0) is x and F.dropout(x, 0.0, mode="unknown") is x
    assert paddle.nn.Dropout(0.0)(x) is x
    assert not [o for o in static.default_main_program().global_block().ops
                if o.type == "dropout"]
    fluid.layers.dropout(x, 0.0)
    assert [o.type for o in static.default_main_program().global_block().ops] == ["dropout"]


# -- losses


def test_softmax_with_cross_entropy_hard_soft_and_axis():
    rng = np.random.RandomState(10)
    logits = static.data("logits", [4, 5], "float64")
    logits.stop_gradient = False
    label = static.data("label", [4, 1], "int64")
    soft = static.data("soft", [4, 5], "float64")
    logits3 = static.data("logits3", [2, 3, 4], "float64")
    label3 = static.data("label3", [2, 1, 4], "int64")
    hard_loss, sm = fluid.layers.softmax_with_cross_entropy(logits, label, ignore_index=3,
                                                            return_softmax=True)
    soft_loss = fluid.layers.softmax_with_cross_entropy(logits, soft, soft_label=True)
    axis_loss = F.softmax_with_cross_entropy(logits3, label3, axis=1)
    dlogits = static.gradients([paddle.sum(hard_loss)], [logits])[0]
    lg, lb = rng.randn(4, 5) * 3, np.array([[0], [3], [4], [1]], "int64")
    sl = _softmax(rng.randn(4, 5))
    lg3, lb3 = rng.randn(2, 3, 4), rng.randint(0, 3, (2, 1, 4)).astype("int64")
    h, s, so, ax, g = _exe().run(
        feed={"logits": lg, "label": lb, "soft": sl, "logits3": lg3, "label3": lb3},
        fetch_list=[hard_loss, sm, soft_loss, axis_loss, dlogits])
    p = _softmax(lg)
    nll = -np.log(p[np.arange(4), lb[:, 0]])
    nll[1] = 0                                              # label 3 is ignore_index
    np.testing.assert_allclose(s, p, rtol=1e-12)
    np.testing.assert_allclose(h[:, 0], nll, rtol=1e-10)
    np.testing.assert_allclose(so[:, 0], -(sl * np.log(p)).sum(1), rtol=1e-10)
    p3 = _softmax(lg3, axis=1)
    np.testing.assert_allclose(ax, -np.log(np.take_along_axis(p3, lb3, axis=1)), rtol=1e-10)
    want = p - np.eye(5)[lb[:, 0]]
    want[1] = 0
    np.testing.assert_allclose(g, want, rtol=1e-10, atol=1e-12)


def test_functional_cross_entropy_reductions_and_ignore_index():
    rng = np.random.RandomState(11)
    logits = static.data("logits", [6, 4], "float64")
    label = static.data("label", [6], "int64")
    outs = [F.cross_entropy(logits, label), F.cross_entropy(logits, label, reduction="sum"),
            F.cross_entropy(logits, label, reduction="none"),
            F.cross_entropy(logits, label, ignore_index=2)]
    lg, lb = rng.randn(6, 4), np.array([0, 2, 3, 2, 1, 0], "int64")
    mean, total, each, ignoring = _exe().run(feed={"logits": lg, "label": lb},
                                             fetch_list=outs)
    nll = -np.log(_softmax(lg)[np.arange(6), lb])
    assert each.shape == (6,)   # the label's shape (Paddle 3.3.1: label [5] -> loss (5,))
    np.testing.assert_allclose(each, nll, rtol=1e-10)
    np.testing.assert_allclose(mean, nll.mean(), rtol=1e-10)
    np.testing.assert_allclose(total, nll.sum(), rtol=1e-10)
    # Paddle 2.0: the mean over the labels that are not ignored
    np.testing.assert_allclose(ignoring, nll[lb != 2].sum() / 4, rtol=1e-10)
    with pytest.raises(ValueError, match="reduction must be one of"):
        F.cross_entropy(logits, label, reduction="avg")


def test_fluid_cross_entropy_on_probabilities_and_its_gradient():
    rng = np.random.RandomState(12)
    probs = static.data("probs", [5, 3], "float64")
    probs.stop_gradient = False
    label = static.data("label", [5, 1], "int64")
    soft = static.data("soft", [5, 3], "float64")
    hard = fluid.layers.cross_entropy(probs, label, ignore_index=1)
    soft_y = fluid.layers.cross_entropy(probs, soft, soft_label=True)
    types = [o.type for o in static.default_main_program().global_block().ops]
    assert types == ["cross_entropy2", "cross_entropy"]     # as Paddle 1.8 builds them
    dprobs = static.gradients([paddle.sum(hard)], [probs])[0]
    p, lb, sl = _softmax(rng.randn(5, 3)), np.array([[0], [1], [2], [2], [0]], "int64"), \
        _softmax(rng.randn(5, 3))
    h, s, g = _exe().run(feed={"probs": p, "label": lb, "soft": sl},
                         fetch_list=[hard, soft_y, dprobs])
    keep = lb[:, 0] != 1
    np.testing.assert_allclose(h[:, 0], np.where(keep, -np.log(p[np.arange(5), lb[:, 0]]), 0),
                               rtol=1e-12)
    np.testing.assert_allclose(s[:, 0], -(sl * np.log(p)).sum(1), rtol=1e-12)
    want = np.zeros_like(p)
    want[np.arange(5), lb[:, 0]] = -1 / p[np.arange(5), lb[:, 0]]
    want[~keep] = 0
    np.testing.assert_allclose(g, want, rtol=1e-12)


def test_cross_entropy2_takes_a_label_without_its_last_dim_of_1():
    # Paddle 1.8.5's test_cross_entropy2_op (RemoveLastDim): Label [4, 2] for X [4, 2, 3];
    # Y takes Label's shape, MatchX stays [4, 2, 1], the gradient is the same
    from refimpl.fluid import core
    from refimpl.fluid.op import Operator
    rng = np.random.RandomState(3)
    x = rng.uniform(0.1, 1, (4, 2, 3))
    label = rng.randint(0, 3, (4, 2)).astype("int64")
    picked = np.take_along_axis(x, label[..., None], -1)
    scope, place = core.Scope(), core.CPUPlace()
    for name, value in (("x", x), ("label", label)):
        scope.var(name).get_tensor().set(value, place)
    Operator("cross_entropy2", X="x", Label="label", Y="y", XShape="xs", MatchX="m",
             ignore_index=-100).run(scope, place)
    y, m = (np.array(scope.find_var(n).get_tensor()) for n in ("y", "m"))
    assert y.shape == (4, 2) and m.shape == (4, 2, 1)
    np.testing.assert_allclose(y, -np.log(picked[..., 0]), rtol=1e-12)
    np.testing.assert_allclose(m, picked, rtol=1e-12)
    probs = static.data("probs", [4, 2, 3], "float64")
    probs.stop_gradient = False
    lab = static.data("lab", [4, 2], "int64")
    loss = fluid.layers.cross_entropy(probs, lab)
    grad = static.gradients([paddle.sum(loss)], [probs])[0]
    out, g = _exe().run(feed={"probs": x, "lab": label}, fetch_list=[loss, grad])
    np.testing.assert_allclose(out, -np.log(picked[..., 0]), rtol=1e-12)
    want = np.zeros_like(x)
    np.put_along_axis(want, label[..., None], -1 / picked, -1)
    np.testing.assert_allclose(g, want, rtol=1e-12)


def test_cross_entropy_of_a_zero_probability_is_1e20_as_paddle():
    probs = static.data("probs", [2, 2], "float32")
    label = static.data("label", [2, 1], "int64")
    y = fluid.layers.cross_entropy(probs, label)
    out, = _exe().run(feed={"probs": np.array([[0, 1], [0.5, 0.5]], "float32"),
                            "label": np.array([[0], [1]], "int64")}, fetch_list=[y])
    np.testing.assert_allclose(out[:, 0], [1e20, np.log(2)], rtol=1e-6)


def test_square_error_cost_and_mse_loss():
    rng = np.random.RandomState(13)
    x = static.data("x", [4, 3], "float64")
    t = static.data("t", [4, 3], "float64")
    outs = [fluid.layers.square_error_cost(x, t), F.mse_loss(x, t),
            F.mse_loss(x, t, reduction="sum"), F.mse_loss(x, t, reduction="none")]
    a, b = rng.randn(4, 3), rng.randn(4, 3)
    sq, mean, total, each = _exe().run(feed={"x": a, "t": b}, fetch_list=outs)
    np.testing.assert_allclose(sq, (a - b) ** 2, rtol=1e-12)
    np.testing.assert_allclose(mean, ((a - b) ** 2).mean(), rtol=1e-12)
    np.testing.assert_allclose(total, ((a - b) ** 2).sum(), rtol=1e-12)
    np.testing.assert_allclose(each, (a - b) ** 2, rtol=1e-12)
    assert outs[0].name == "square_error_cost_0.tmp_1"      # Paddle's naming


# -- embedding, one_hot, top-k, accuracy


def test_embedding_rows_padding_and_dense_scatter_add_gradient():
    table = np.arange(12, dtype="float64").reshape(6, 2)
    ids = static.data("ids", [5, 1], "int64")
    ids2 = static.data("ids2", [2, 3], "int64")
    attr = paddle.ParamAttr(name="emb", initializer=paddle.nn.initializer.Assign(table))
    e1 = fluid.layers.embedding(ids, [6, 2], padding_idx=-1, param_attr=attr, dtype="float64")
    e2 = static.nn.embedding(ids2, [6, 2], param_attr=attr, dtype="float64")
    assert e1.name == "embedding_0.tmp_0" and tuple(e2.shape) == (2, 3, 2)
    w = static.default_main_program().global_block().var("emb")
    dw = static.gradients([paddle.sum(e1) + paddle.sum(e2)], [w])[0]
    iv = np.array([[1], [5], [1], [0], [5]], "int64")
    iv2 = np.array([[2, 2, 2], [1, 0, 4]], "int64")
    o1, o2, g = _exe().run(feed={"ids": iv, "ids2": iv2}, fetch_list=[e1, e2, dw])
    want1 = table[iv[:, 0]]
    want1[iv[:, 0] == 5] = 0                                # padding_idx -1 -> row 5
    np.testing.assert_array_equal(o1, want1)
    np.testing.assert_array_equal(o2, table[iv2])
    counts = np.bincount(iv[:, 0][iv[:, 0] != 5], minlength=6) + \
        np.bincount(iv2.ravel(), minlength=6)
    np.testing.assert_array_equal(g, np.repeat(counts[:, None], 2, axis=1))


def test_embedding_errors_name_the_ids():
    ids = static.data("ids", [3, 2], "int64")
    with pytest.raises(ValueError, match="Ids 'ids' must have a last dim of 1"):
        fluid.layers.embedding(ids, [4, 2])
    good = static.data("good", [3, 1], "int64")
    out = fluid.layers.embedding(good, [4, 2])
    with pytest.raises(Exception, match="id 7 is out of range for W with 4 rows"):
        _exe().run(feed={"good": np.array([[1], [7], [0]], "int64")}, fetch_list=[out])


def test_one_hot_both_versions():
    x = static.data("x", [3, 1], "int64")
    y = static.data("y", [3], "int64")
    a = fluid.layers.one_hot(x, 4)
    b = F.one_hot(y, 4)
    c = fluid.layers.one_hot(x, 2, allow_out_of_range=True)
    xv = np.array([[3], [0], [2]], "int64")
    oa, ob, oc = _exe().run(feed={"x": xv, "y": xv[:, 0]}, fetch_list=[a, b, c])
    np.testing.assert_array_equal(oa, np.eye(4)[[3, 0, 2]])
    np.testing.assert_array_equal(ob, np.eye(4)[[3, 0, 2]])
    np.testing.assert_array_equal(oc, [[0, 0], [1, 0], [0, 0]])   # out of range -> zeros
    # the one_hot op refuses a rank-1 X when built (1.8.5's InferShape), v2 takes it
    with pytest.raises(ValueError, match="X 'y' must be at least 2-D .*got shape \\[3\\]"):
        fluid.layers.one_hot(y, 4)


def test_topk_and_accuracy():
    scores = static.data("scores", [4, 3], "float32")
    label = static.data("label", [4, 1], "int64")
    values, indices = paddle.topk(scores, 2, axis=0, largest=False)
    fv, fi = fluid.layers.topk(scores, 2)
    correct = static.create_global_var([1], 0, "int32", persistable=True, name="correct")
    acc1 = fluid.layers.accuracy(scores, label)
    acc2 = metric.accuracy(scores, label, k=2, correct=correct)
    s = np.array([[0.1, 0.5, 0.4], [0.7, 0.2, 0.1], [0.3, 0.3, 0.4], [0.2, 0.1, 0.7]],
                 "float32")
    lb = np.array([[2], [0], [0], [1]], "int64")
    v, i, v2, i2, a1, a2 = _exe().run(feed={"scores": s, "label": lb},
                                      fetch_list=[values, indices, fv, fi, acc1, acc2])
    np.testing.assert_array_equal(i, [[0, 3, 1], [3, 1, 0]])    # smallest first, ties: lower row
    np.testing.assert_array_equal(v, np.take_along_axis(s, i, 0))
    np.testing.assert_array_equal(i2, [[1, 2], [0, 1], [2, 0], [2, 0]])
    np.testing.assert_array_equal(v2, np.take_along_axis(s, i2, 1))
    np.testing.assert_allclose(a1, [0.25])                  # only row 1's top-1 is its label
    np.testing.assert_allclose(a2, [0.75])                  # rows 0, 1, 2 within top-2
    assert _value("correct").item() == 3


def test_functional_cross_entropy_class_weights_match_paddle():
    # recorded with Paddle 3.3.1 on these inputs (float64)
    rng = np.random.RandomState(0)
    lg, lb = rng.randn(5, 4), np.array([0, 3, 1, 1, 2], "int64")
    soft = rng.rand(5, 4)
    soft /= soft.sum(1, keepdims=True)
    w = np.array([0.5, 2.0, 1.0, 3.0])
    logits = static.data("logits", [5, 4], "float64")
    logits.stop_gradient = False
    label = static.data("label", [5], "int64")
    soft_label = static.data("soft", [5, 4], "float64")
    weight = static.data("weight", [4], "float64")
    outs = [F.cross_entropy(logits, label, weight=weight, reduction=r)
            for r in ("none", "mean", "sum")]
    outs += [F.cross_entropy(logits, label, weight=weight, reduction=r, ignore_index=1)
             for r in ("mean", "sum")]
    outs += [F.cross_entropy(logits, soft_label, weight=weight, soft_label=True, reduction=r)
             for r in ("mean", "sum")]
    outs += static.gradients(outs[3], [logits])
    got = _exe().run(feed={"logits": lg, "label": lb, "soft": soft, "weight": w},
                     fetch_list=outs)
    np.testing.assert_allclose(got[0], [0.6003762682, 7.4488380754, 3.2987994322,
                                        3.4136969348, 1.6418067431], rtol=1e-9)
    np.testing.assert_allclose([float(v) for v in got[1:7]],
                               [1.9298255828, 16.4035174538, 2.1535602415, 9.6910210867,
                                1.7431220597, 15.0612449926], rtol=1e-9)
    np.testing.assert_allclose(got[7][:2], [[-0.0776702625, 0.0085495874, 0.0152482357,
                                             0.0538724394], [0.4191627814, 0.0243717207,
                                                             0.1674675785, -0.6110020807]],
                               rtol=1e-8)
    np.testing.assert_array_equal(got[7][2:4], 0)    # the ignored labels


def test_cross_entropy_op_takes_hard_labels_without_their_last_dim():
    """Paddle 1.8's cross_entropy op: Label [N] with X [N, D] gives Y [N] (Label's shape)."""
    from refimpl.framework.program import Program, program_guard
    x_np = np.array([[0.2, 0.8], [0.6, 0.4], [0.5, 0.5]], "float32")
    label_np = np.array([1, 0, 1], "int64")
    main = Program()
    with program_guard(main, Program()):
        x = fluid.data("x", [3, 2], "float32")
        label = fluid.data("label", [3], "int64")
        y = main.current_block().create_var(name="y", dtype="float32", shape=None)
        main.current_block().append_op(type="cross_entropy", inputs={"X": [x], "Label": [label]},
                                       outputs={"Y": [y]})
    assert list(y.shape) == [3]
    out, = fluid.Executor().run(main, feed={"x": x_np, "label": label_np}, fetch_list=[y])
    np.testing.assert_allclose(out, -np.log([0.8, 0.6, 0.5]), rtol=1e-6)


def test_static_nn_group_norm_normalizes_groups_and_refuses_inputs_under_two_dims():
    """paddle.static.nn.group_norm, fluid.layers.group_norm's function (Paddle 2.x, 3.3.1): Scale
    and Bias only for a truthy attr; a 1-D input is a ValueError, as Paddle 2.x's
    test_group_norm_op_v2 and 3.3.1 (measured) have it, in dygraph too."""
    main, start = static.Program(), static.Program()
    with static.program_guard(main, start):
        x = static.data("x", [None, 4, 3], "float64")
        y = static.nn.group_norm(x, 2, param_attr=True, bias_attr=True)
    assert [(p.name, p.shape) for p in main.all_parameters()] == [
        ("group_norm_0.w_0", (4,)), ("group_norm_0.b_0", (4,))]
    a = np.sin(np.arange(24.0)).reshape(2, 4, 3)
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        exe.run(start)
        out, = exe.run(main, feed={"x": a}, fetch_list=[y])
    g = a.reshape(2, 2, 6)                                 # [N, groups, C/groups * L]
    want = (g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(out, want.reshape(a.shape), rtol=1e-10)
    with fluid.dygraph.guard():
        with pytest.raises(ValueError, match="group_norm: input .* needs at least 2 dims"):
            static.nn.group_norm(paddle.to_tensor(np.ones(3, "float32")), 3)


def test_functional_layer_norm_refuses_a_normalized_shape_that_is_no_int_list_or_tuple():
    # Paddle 2.x's test_layer_norm_op_v2 and 3.3.1: ValueError even before x is checked
    with pytest.raises(ValueError, match="normalized_shape must be an int, a list or a tuple"):
        F.layer_norm(np.ones((2, 3), "float32"), 1.0)
    with fluid.dygraph.guard():
        x = paddle.to_tensor(np.arange(6.0).reshape(2, 3))
        np.testing.assert_allclose(F.layer_norm(x, np.int64(3)).numpy(),
                                   F.layer_norm(x, [3]).numpy())
        np.testing.assert_allclose(F.layer_norm(x, (3,)).numpy()[0],
                                   [-1.2247357, 0.0, 1.2247357], rtol=1e-6)


def test_fluid_topk_with_a_variable_k_reads_it_when_run():
    # Paddle 1.8.5: fluid.layers.topk(x, k=Variable) feeds the top_k op's K input
    with versions.use("1.8"):
        main, startup = fluid.Program(), fluid.Program()
        with fluid.program_guard(main, startup):
            x = fluid.data(name="x", shape=[None, 6], dtype="float32")
            vk = fluid.data(name="vk", shape=[1], dtype="int32")
            values, indices = fluid.layers.topk(x, k=vk)
        exe = fluid.Executor(fluid.CPUPlace())
        v, i = exe.run(main, feed={"x": np.array([[3, 1, 4, 1, 5, 9]], "float32"),
                                   "vk": np.array([3], "int32")}, fetch_list=[values, indices])
    np.testing.assert_array_equal(v, [[9, 5, 4]])
    np.testing.assert_array_equal(i, [[5, 4, 2]])


def test_fluid_sign_takes_a_numpy_array():
    # Paddle 1.8.5's docstring: fluid.layers.sign(ndarray) assigns it first
    with versions.use("1.8"):
        main = fluid.Program()
        with fluid.program_guard(main, fluid.Program()):
            out = fluid.layers.sign(np.array([3.0, 0.0, -2.0], dtype="float32"))
        got, = fluid.Executor(fluid.CPUPlace()).run(main, fetch_list=[out])
        np.testing.assert_array_equal(got, [1, 0, -1])
        with pytest.raises(TypeError, match="sign: x must have dtype"):
            fluid.layers.sign(np.array([3, 0], dtype="int64"))


def test_sequence_mask_of_float_lengths_as_paddle_185():
    with versions.use("1.8"):
        main = fluid.Program()
        with fluid.program_guard(main, fluid.Program()):
            x = fluid.data(name="x", shape=[3], dtype="float32")
            mask = fluid.layers.sequence_mask(x=x)
        got, = fluid.Executor(fluid.CPUPlace()).run(
            main, feed={"x": np.array([1.5, 0.2, 2.7], "float32")}, fetch_list=[mask])
    np.testing.assert_array_equal(got, [[1, 1], [1, 0], [1, 1]])     # Paddle 1.8.5
