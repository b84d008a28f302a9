"""append_backward / gradients: naming, accumulation, stop_gradient, values."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl import static
from refimpl.backward import append_backward, gradients
from refimpl.framework.program import OpRole
from helpers import central_differences


def _param(name, value):
    return static.create_parameter(list(value.shape), "float32", name=name,
                                   default_initializer=paddle.nn.initializer.Assign(value))


def _run(fetch, feed=None):
    exe = static.Executor()
    exe.run(static.default_startup_program())
    return exe.run(feed=feed or {}, fetch_list=fetch)


def test_variable_used_twice_gets_renamed_parts_and_sum():
    x = static.data("x", [2, 2], "float32")
    _param("w", np.array([[1.0, 2.0], [3.0, 4.0]], "float32"))
    a = paddle.mean(paddle.static.nn.fc(x, 2, bias_attr=False,
                                        weight_attr=paddle.ParamAttr(name="w")))
    b = paddle.mean(paddle.static.nn.fc(x, 2, bias_attr=False,
                                        weight_attr=paddle.ParamAttr(name="w")))
    loss = a + b  # elementwise_add of two [1] tensors
    params_grads = append_backward(loss)
    block = static.default_main_program().global_block()
    names = set(block.vars)
    assert "w@GRAD@RENAME@block0@0" in names and "w@GRAD@RENAME@block0@1" in names
    sums = [op for op in block.ops if op.type == "sum"]
    assert len(sums) == 1 and sums[0].output("Out") == ["w@GRAD"]
    assert sums[0].attr("op_role_var") == ["w", "w@GRAD"]
    assert [(p.name, g.name) for p, g in params_grads] == [("w", "w@GRAD")]
    data = np.arange(4, dtype="float32").reshape(2, 2)
    g, = _run(["w@GRAD"], {"x": data})
    # loss = 2 * mean(x @ w); d/dw = 2 * colmean(x) (per output) / 2 outputs
    expected = np.repeat(data.mean(0, keepdims=True).T, 2, axis=1)
    np.testing.assert_allclose(g, expected, rtol=1e-6)


def test_loss_grad_is_filled_by_fill_constant():
    x = static.data("x", [None, 3], "float32")
    loss = paddle.mean(static.nn.fc(x, 1))
    append_backward(loss)
    op = [op for op in static.default_main_program().global_block().ops
          if op.output_arg_names == [loss.name + "@GRAD"]][0]
    assert op.type == "fill_constant" and op.attr("value") == 1.0
    assert op.attr("op_role") == OpRole.Backward | OpRole.Loss


def test_stop_gradient_and_no_grad_set_prune():
    x = static.data("x", [None, 3], "float32")
    h1 = static.nn.fc(x, 3)
    h2 = static.nn.fc(h1, 1)
    loss = paddle.mean(h2)
    pg = append_backward(loss, no_grad_set={"fc_0.w_0", "fc_0.b_0"})
    assert sorted(p.name for p, _ in pg) == ["fc_1.b_0", "fc_1.w_0"]
    block = static.default_main_program().global_block()
    assert not block.has_var("x@GRAD") and not block.has_var("fc_0.w_0@GRAD")


def test_parameter_list_restricts_result():
    x = static.data("x", [None, 3], "float32")
    loss = paddle.mean(static.nn.fc(x, 1))
    pg = append_backward(loss, parameter_list=["fc_0.w_0"])
    assert [p.name for p, _ in pg] == ["fc_0.w_0"]


def test_parameter_list_may_name_any_variable():
    """Paddle takes any variable in parameter_list (1.8's OpTest asks for the gradients of
    an op's inputs so), and the pairs come in the list's order (Paddle 1.8.5: ['x', 'w3'])."""
    x = static.data("x", [2, 3], "float32")
    x.stop_gradient = False
    h = static.nn.fc(x, 1, bias_attr=False,
                     weight_attr=paddle.ParamAttr(name="w3", initializer=paddle.nn.initializer
                                                  .Constant(0.5)))
    loss = paddle.mean(h * h)
    pg = append_backward(loss, parameter_list=["x", "w3", "missing"])
    assert [p.name for p, _ in pg] == ["x", "w3"]
    x_value = np.arange(6, dtype="float32").reshape(2, 3)
    gx, gw = _run([g for _, g in pg], {"x": x_value})
    h_value = x_value.sum(1, keepdims=True) * 0.5
    np.testing.assert_allclose(gx, np.broadcast_to(h_value * 0.5, (2, 3)), rtol=1e-6)
    np.testing.assert_allclose(gw, (x_value * h_value).sum(0)[:, None], rtol=1e-6)


def test_gradients_wrt_data_input_matches_finite_difference():
    x = static.data("x", [2, 3], "float32")
    w = np.random.RandomState(0).randn(3, 2).astype("float32")
    _param("w2", w)
    h = static.nn.fc(x, 2, bias_attr=False, weight_attr=paddle.ParamAttr(name="w2"))
    y = paddle.mean(h)
    gx = gradients([y], [x])[0]
    assert gx.name == "x@GRAD"
    data = np.random.RandomState(1).randn(2, 3).astype("float32")
    g, = _run([gx], {"x": data})
    np.testing.assert_allclose(g, np.tile(w.sum(1) / 4.0, (2, 1)), rtol=1e-6)


def test_append_backward_rejects_non_variable():
    with pytest.raises(TypeError, match="loss must be a Variable"):
        append_backward("loss")


# -- gradients of gradients (static): recorded Paddle 1.8.5 values, finite differences

def test_gradient_of_an_expression_of_a_gradient_matches_paddle_1_8():
    """Paddle 1.8.5's test_calc_gradient: y = x*x at x = 1, dx1 = 2x, z = dx1^2 + y^2,
    dz/dx = 8x + 4x^3 = 12; and (x - 2x)^2 at x = 3 has gradient 2x = 6. Paddle names the
    second pass's clashing gradients 'grad/grad/...': the result is 'grad/grad/x@GRAD'."""
    x = static.create_parameter([1], "float32", name="x",
                                default_initializer=paddle.nn.initializer.Constant(1.0))
    y = x * x
    dx1, = gradients(y, x)
    dx2, = gradients(dx1 * dx1 + y * y, x)
    assert dx2.name == "grad/grad/x@GRAD" and dx1.name == "x@GRAD"
    first, second = _run([dx1, dx2])
    assert first[0] == 2 and second[0] == 12

    u = static.create_parameter([1], "float32", name="u",
                                default_initializer=paddle.nn.initializer.Constant(3.0))
    g1, = gradients(u * u, u)
    g2, = gradients((u - g1) * (u - g1), u)
    assert [v[0] for v in _run([g1, g2])] == [6, 6]


@pytest.mark.parametrize("build", [
    lambda x: paddle.tanh(x),
    lambda x: paddle.nn.functional.sigmoid(x) * x,
    lambda x: paddle.matmul(x, x),
    lambda x: paddle.exp(x) / (1 + x * x),
], ids=["tanh", "sigmoid_mul", "matmul", "exp_div"])
def test_gradient_penalty_against_finite_differences(build, rng):
    """d/dx sum(w * (d sum(f(x)) / dx)^2): the static second-order gradient equals central
    differences of the static first-order one (float64)."""
    x0 = rng.uniform(-1, 1, (3, 3))
    w = rng.uniform(0.5, 1.5, (3, 3))
    x = static.data("x", [3, 3], "float64")
    x.stop_gradient = False
    g, = gradients(paddle.sum(build(x)), x)
    penalty = paddle.sum(static.create_global_var([3, 3], 0.0, "float64", name="w") * g * g)
    h, = gradients(penalty, x)
    exe = static.Executor()
    exe.run(static.default_startup_program())
    static.global_scope().find_var("w").get_tensor().set(w, paddle.CPUPlace())
    got, = exe.run(feed={"x": x0}, fetch_list=[h])

    def penalty_at(value):
        return exe.run(feed={"x": value}, fetch_list=[penalty])[0].item()
    np.testing.assert_allclose(got, central_differences(penalty_at, x0), rtol=1e-5, atol=1e-7)


F = paddle.nn.functional


@pytest.mark.parametrize("build, x_shape, w_shape, op_type", [
    (lambda x, w: F.conv2d(x, w, stride=2, padding=[[0, 0], [1, 0], [0, 1], [0, 0]],
                           groups=2, data_format="NHWC"), [1, 4, 4, 4], [4, 2, 2, 3],
     "conv2d"),
    (lambda x, w: F.conv3d(x, w, padding=1), [1, 2, 2, 3, 2], [2, 2, 2, 2, 1], "conv3d"),
    (lambda x, w: F.conv2d_transpose(x, w, stride=2, padding=1, groups=2), [1, 4, 3, 3],
     [4, 1, 3, 3], "conv2d_transpose"),
    (lambda x, w: paddle.slice(x, axes=[0, 2], starts=[1, -3], ends=[3, 100]) * w,
     [3, 2, 4], [2, 2, 3], "slice"),
    (lambda x, w: F.instance_norm(x, weight=w), [2, 2, 3, 2], [2], "instance_norm"),
    (lambda x, w: F.layer_norm(x, [3, 2], weight=w), [2, 3, 2], [6], "layer_norm"),
    (lambda x, w: paddle.reshape(x, [4, 3]) * w, [2, 3, 2], [4, 3], "reshape2"),
    (lambda x, w: paddle.transpose(x, [1, 2, 0]) * w, [2, 3, 2], [3, 2, 2], "transpose2"),
    (lambda x, w: paddle.concat([x, w * x], axis=1), [2, 3], [2, 3], "concat"),
    (lambda x, w: paddle.fluid.layers.pad(x, [1, 0, 0, 2]) * w, [2, 3], [3, 5], "pad"),
    (lambda x, w: F.pad(x, [1, 2, 0, 1], mode="reflect") * w, [1, 2, 2, 3], [1, 2, 3, 6],
     "pad3d"),
    (lambda x, w: paddle.static.nn.batch_norm(x) * w, [3, 2, 2], [3, 2, 2], "batch_norm"),
    (lambda x, w: paddle.static.nn.batch_norm(x, data_layout="NHWC", use_global_stats=True)
     * w, [2, 2, 3], [2, 2, 3], "batch_norm"),
], ids=["conv2d_nhwc_groups", "conv3d", "conv2d_transpose", "slice", "instance_norm",
        "layer_norm", "reshape2", "transpose2", "concat", "pad", "pad3d_reflect",
        "batch_norm", "batch_norm_global_stats"])
def test_gradient_of_gradient_against_finite_differences(build, x_shape, w_shape, op_type,
                                                         rng):
    """d/d(x, w) of sum(gx^3) + sum(gw^3), (gx, gw) = d sum(f(x, w)^2) / d(x, w): the grad
    op's gradient through its inputs and its Out@GRAD (2f, itself depending on x and w),
    against central differences of the first-order gradients (float64). conv is bilinear
    (its grad op's gradient is the op and its grad op again); slice's gradient pads
    dOut; instance_norm's, layer_norm's and batch_norm's grad ops read the statistics they
    saved, whose dependence on x is recomputed (batch_norm's running statistics, with
    use_global_stats, are constants; reshape2's XShape, which holds no values, is left as
    it is); concat's grad op splits dOut into a list of gradients; pad's gradient sums dOut
    into the input's elements (bincount)."""
    x = static.data("x", x_shape, "float64")
    w = static.data("w", w_shape, "float64")
    x.stop_gradient = w.stop_gradient = False
    y = build(x, w)
    assert op_type in [op.type for op in static.default_main_program().global_block().ops]
    gx, gw = gradients(paddle.sum(y * y), [x, w])
    penalty = paddle.sum(gx * gx * gx) + paddle.sum(gw * gw * gw)
    hx, hw = gradients(penalty, [x, w])
    exe = static.Executor()
    exe.run(static.default_startup_program())      # batch_norm's parameters
    values = {"x": rng.uniform(-1, 1, x_shape), "w": rng.uniform(-1, 1, w_shape)}
    got = exe.run(feed=values, fetch_list=[hx, hw])
    eps = 1e-4
    for name, grad in zip(("x", "w"), got):
        want = np.zeros_like(values[name])
        for i in np.ndindex(*want.shape):
            moved = [dict(values), dict(values)]
            for feed, sign in zip(moved, (1, -1)):
                feed[name] = values[name].copy()
                feed[name][i] += sign * eps
            plus, minus = [exe.run(feed=feed, fetch_list=[penalty])[0].item()
                           for feed in moved]
            want[i] = (plus - minus) / (2 * eps)
        np.testing.assert_allclose(grad, want, rtol=1e-5, atol=1e-6, err_msg=name)


def test_computed_variable_gets_its_gradient_when_nothing_before_needs_one():
    """Paddle 1.8.5 (same program): a = 2 * data gets a@GRAD although neither the data
    nor any parameter needs a gradient; scale passes none back (no scale_grad op). Ops
    ['scale', 'elementwise_mul', 'mean', 'fill_constant', 'mean_grad',
    'elementwise_mul_grad', 'sum'], a@GRAD = [1.3333334, 2.6666667, 4.]."""
    i = static.data("i", [3], "float32")
    a = 2.0 * i
    loss = paddle.fluid.layers.mean(a * a)     # 1.8.5 had no paddle.mean
    append_backward(loss)
    block = static.default_main_program().global_block()
    assert [op.type for op in block.ops] == ["scale", "elementwise_mul", "mean",
                                             "fill_constant", "mean_grad",
                                             "elementwise_mul_grad", "sum"]
    assert not block.has_var("i@GRAD")
    g, = _run([a.name + "@GRAD"], {"i": np.array([1.0, 2.0, 3.0], "float32")})
    np.testing.assert_allclose(g, [1.3333334, 2.6666667, 4.0], rtol=1e-6)


def test_a_gradient_that_never_arrives_makes_no_grad_op():
    """A soft label computed from x is read only through cross_entropy's no-grad Label
    slot: it receives no gradient, so the softmax that made it gets no grad op (it
    would wait for a gradient that never comes); x's gradient is the prediction's."""
    x = static.data("x", [4, 3], "float32")
    x.stop_gradient = False
    label = paddle.nn.functional.softmax(x * 2.0)
    soft = paddle.nn.functional.softmax(x * 3.0)
    loss = paddle.mean(paddle.fluid.layers.cross_entropy(soft, label, soft_label=True))
    dx, = gradients([loss], [x])
    value = np.random.RandomState(0).rand(4, 3).astype("float32")
    got, = _run([dx], {"x": value})
    p = np.exp(3 * value) / np.exp(3 * value).sum(1, keepdims=True)
    q = np.exp(2 * value) / np.exp(2 * value).sum(1, keepdims=True)
    # d/dx of -mean(sum q log p) with p = softmax(3x), sum q = 1: -3 (q - p) / 4
    np.testing.assert_allclose(got, -3 * (q - p) / 4, rtol=1e-5, atol=1e-6)
