"""Public layer functions build programs whose results match numpy."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl import fluid, static
import refimpl.nn.functional as F

RNG = np.random.RandomState(0)


def _run(fetch, feed, startup=True):
    exe = static.Executor()
    if startup:
        exe.run(static.default_startup_program())
    return exe.run(feed=feed, fetch_list=fetch)


def test_math_and_broadcasting():
    x = static.data("x", [2, 3], "float32")
    y = static.data("y", [3], "float32")
    a, b = RNG.randn(2, 3).astype("float32"), RNG.rand(3).astype("float32") + 0.5
    outs = [paddle.add(x, y), paddle.divide(x, y), paddle.maximum(x, y), paddle.pow(x, 2.0),
            paddle.sum(x, axis=1), paddle.max(x), paddle.mean(x, axis=0, keepdim=True),
            fluid.layers.elementwise_mul(x, y, axis=1), paddle.matmul(x, x, transpose_y=True),
            paddle.clip(x, -0.5, 0.5), paddle.less_than(x, y), paddle.exp(x),
            F.softmax(x), F.log_softmax(x, axis=0), F.leaky_relu(x, 0.1), x * 2.0 + 1.0]
    got = _run(outs, {"x": a, "y": b})
    e = np.exp(a - a.max(1, keepdims=True))
    ls = a - a.max(0) - np.log(np.exp(a - a.max(0)).sum(0))
    want = [a + b, a / b, np.maximum(a, b), a ** 2, a.sum(1), a.max(), a.mean(0, keepdims=True),
            a * b, a @ a.T, np.clip(a, -0.5, 0.5), a < b, np.exp(a),
            e / e.sum(1, keepdims=True), ls, np.where(a > 0, a, 0.1 * a), a * 2 + 1]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_tensor_layers():
    x = static.data("x", [2, 6], "float32")
    a = np.arange(12, dtype="float32").reshape(2, 6)
    parts = paddle.split(x, [2, 4], axis=1)
    outs = [paddle.reshape(x, [3, -1]), paddle.transpose(x, [1, 0]), parts[1],
            paddle.concat([x, x], axis=0), paddle.unsqueeze(x, [0]), paddle.flatten(x),
            fluid.layers.slice(x, axes=[1], starts=[1], ends=[3]), paddle.argmax(x, axis=1),
            paddle.stack([x, x], axis=1), paddle.cast(x, "int32"), paddle.zeros([2], "int64"),
            paddle.full_like(x, 3.0), paddle.tile(x, [1, 2]), paddle.expand(
                paddle.reshape(x, [2, 1, 6]), [2, 3, 6])]
    got = _run(outs, {"x": a})
    want = [a.reshape(3, 4), a.T, a[:, 2:], np.concatenate([a, a]), a[None], a.reshape(-1),
            a[:, 1:3], a.argmax(1), np.stack([a, a], 1), a.astype("int32"), np.zeros(2),
            np.full_like(a, 3.0), np.tile(a, (1, 2)), np.broadcast_to(a[:, None], (2, 3, 6))]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    assert got[7].dtype == np.int64 and got[9].dtype == np.int32


def test_conv_pool_layers_match_direct_numpy():
    x = static.data("x", [None, 2, 6, 6], "float32")
    w_attr = paddle.ParamAttr(name="cw")
    conv = fluid.layers.conv2d(x, 3, 3, padding=1, param_attr=w_attr, act="relu")
    pooled = fluid.layers.pool2d(conv, 2, "max", 2)
    avg = F.avg_pool2d(conv, 2)
    a = RNG.randn(2, 2, 6, 6).astype("float32")
    exe = static.Executor()
    exe.run(static.default_startup_program())
    c, p, v, w, b = exe.run(feed={"x": a}, fetch_list=[conv, pooled, avg, "cw", "conv2d_0.b_0"])
    pad = np.pad(a, ((0, 0), (0, 0), (1, 1), (1, 1)))
    direct = np.zeros((2, 3, 6, 6), "float32")
    for i in range(6):
        for j in range(6):
            direct[:, :, i, j] = np.einsum("nchw,mchw->nm", pad[:, :, i:i + 3, j:j + 3], w)
    direct = np.maximum(direct + b[None, :, None, None], 0)
    np.testing.assert_allclose(c, direct, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(p, direct.reshape(2, 3, 3, 2, 3, 2).max(axis=(3, 5)), rtol=1e-4,
                               atol=1e-5)
    np.testing.assert_allclose(v, direct.reshape(2, 3, 3, 2, 3, 2).mean(axis=(3, 5)),
                               rtol=1e-4, atol=1e-5)
    assert abs(w.std() - np.sqrt(2.0 / (9 * 2))) < 0.25   # Paddle's conv init scale


def test_batch_norm_running_stats_and_test_mode():
    x = static.data("x", [None, 3], "float32")
    y = static.nn.batch_norm(x, momentum=0.5)
    main = static.default_main_program()
    test_prog = main.clone(for_test=True)
    exe = static.Executor()
    exe.run(static.default_startup_program())
    a = RNG.randn(8, 3).astype("float32") * 2 + 1
    out, = exe.run(main, feed={"x": a}, fetch_list=[y])
    np.testing.assert_allclose(out, (a - a.mean(0)) / np.sqrt(a.var(0) + 1e-5), rtol=1e-4,
                               atol=1e-5)
    scope = static.global_scope()
    mean = np.array(scope.find_var("batch_norm_0.w_1").get_tensor())
    var = np.array(scope.find_var("batch_norm_0.w_2").get_tensor())
    np.testing.assert_allclose(mean, 0.5 * a.mean(0), rtol=1e-5)
    np.testing.assert_allclose(var, 0.5 + 0.5 * a.var(0), rtol=1e-5)
    test_out, = exe.run(test_prog, feed={"x": a}, fetch_list=[y.name])
    np.testing.assert_allclose(test_out, (a - mean) / np.sqrt(var + 1e-5), rtol=1e-4,
                               atol=1e-5)


def test_dropout_semantics():
    x = static.data("x", [100, 100], "float32")
    train = fluid.layers.dropout(x, 0.3, seed=5)
    infer = fluid.layers.dropout(x, 0.3, is_test=True)
    up = F.dropout(x, 0.3, training=True)
    ones = np.ones((100, 100), "float32")
    t, i, u = _run([train, infer, up], {"x": ones})
    assert set(np.unique(t)) <= {0.0, 1.0} and abs((t == 0).mean() - 0.3) < 0.03
    np.testing.assert_allclose(i, 0.7 * ones)
    assert np.all(np.isclose(u, 0) | np.isclose(u, 1 / 0.7))
    t2, = _run([train], {"x": ones})
    np.testing.assert_array_equal(t, t2)   # a fixed seed replays the mask


def test_losses_embedding_metrics():
    logits = static.data("logits", [4, 3], "float32")
    label = static.data("label", [4, 1], "int64")
    ids = static.data("ids", [4, 1], "int64")
    emb = fluid.layers.embedding(ids, [5, 2], param_attr=paddle.ParamAttr(
        name="emb", initializer=paddle.nn.initializer.Assign(np.arange(10).reshape(5, 2)
                                                            .astype("float32"))))
    probs = F.softmax(logits)
    outs = [F.cross_entropy(logits, label), fluid.layers.cross_entropy(probs, label),
            fluid.layers.accuracy(probs, label), emb, F.one_hot(paddle.reshape(label, [4]), 3),
            F.mse_loss(logits, logits * 0.0)]
    lg = RNG.randn(4, 3).astype("float32")
    lb = np.array([[0], [2], [1], [2]], "int64")
    idv = np.array([[4], [0], [2], [2]], "int64")
    ce, ce2, acc, e, oh, mse = _run(outs, {"logits": lg, "label": lb, "ids": idv})
    p = np.exp(lg) / np.exp(lg).sum(1, keepdims=True)
    nll = -np.log(p[np.arange(4), lb[:, 0]])
    np.testing.assert_allclose(ce, nll.mean(), rtol=1e-5)
    np.testing.assert_allclose(ce2[:, 0], nll, rtol=1e-5)
    np.testing.assert_allclose(acc, [(p.argmax(1) == lb[:, 0]).mean()])
    np.testing.assert_array_equal(e, np.arange(10).reshape(5, 2)[idv[:, 0]])
    np.testing.assert_array_equal(oh, np.eye(3)[lb[:, 0]])
    np.testing.assert_allclose(mse, (lg ** 2).mean(), rtol=1e-5)


def test_layer_errors_name_the_problem():
    x = static.data("x", [None, 3], "float32")
    with pytest.raises(TypeError, match="must be a static Variable"):
        paddle.exp(np.ones(3))
    with pytest.raises(ValueError, match="cannot reshape X 'z'"):
        paddle.reshape(static.data("z", [2, 3], "float32"), [4, 2])
    with pytest.raises(ValueError, match="axis=3 does not fit"):
        fluid.layers.elementwise_add(x, static.data("b", [3], "float32"), axis=3)
