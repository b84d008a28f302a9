"""append_backward / gradients: naming, accumulation, stop_gradient, values."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl import static
from refimpl.backward import append_backward, gradients
from refimpl.framework.program import OpRole


def _param(name, value):
    return static.create_parameter(list(value.shape), "float32", name=name,
                                   default_initializer=paddle.nn.initializer.Assign(value))


def _run(fetch, feed=None):
    exe = static.Executor()
    exe.run(static.default_startup_program())
    return exe.run(feed=feed or {}, fetch_list=fetch)


def test_variable_used_twice_gets_renamed_parts_and_sum():
    x = static.data("x", [2, 2], "float32")
    w = _param("w", np.array([[1.0, 2.0], [3.0, 4.0]], "float32"))
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
