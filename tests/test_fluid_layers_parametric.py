"""Paddle 1.8's fluid.layers functions built on fluid.dygraph's Layer classes (conv3d,
conv2d_transpose, conv3d_transpose, instance_norm, prelu, spectral_norm), group_norm and
bilinear_tensor_product: parameter names, output and gradient values against Paddle 1.8.5
on one program with fixed parameters and inputs."""
import numpy as np
import pytest

from refimpl import fluid
from refimpl.framework.program import Program, program_guard

L = fluid.layers

# Recorded with Paddle 1.8.5 (CPU) on the program below, parameters set to
# (arange(n) % 7 - 3) / 10 + 0.05 and inputs to sin(arange(n)): (sum, sum of squares).
PADDLE_1_8_5 = {
    "conv3d": (6.68946, 4.0719), "conv2d_transpose": (-64.78211, 15.01989),
    "conv3d_transpose": (-99.76823, 339.74276), "group_norm": (-0.0, 149.997),
    "instance_norm": (-22.5, 8.74991), "prelu_channel": (55.1049, 38.7886),
    "prelu_element": (44.63117, 39.28367), "bilinear_tensor_product": (0.56186, 1.41362),
    "spectral_norm": (0.87501, 2.08425),
    "conv3d_0.w_0@GRAD": (-0.95016, 2179.06016), "conv3d_0.b_0@GRAD": (14.0, 100.0),
    "conv2d_transpose_0.w_0@GRAD": (1.26539, 0.26887),
    "conv2d_transpose_0.b_0@GRAD": (324.0, 52488.0),
    "conv3d_transpose_0.w_0@GRAD": (-1.61955, 4.64632),
    "conv3d_transpose_0.b_0@GRAD": (500.0, 125000.0),
    "instance_norm_0.w_0@GRAD": (0.0, 0.0), "instance_norm_0.b_0@GRAD": (150.0, 7500.0),
    "prelu_0.w_0@GRAD": (-47.37169, 748.0271), "prelu_1.w_0@GRAD": (-47.37169, 71.68253),
    "bilinear_tensor_product_0.w_0@GRAD": (6.7808, 37.43371),
    "bilinear_tensor_product_0.b_0@GRAD": (10.58638, 18.75407),
    "x@GRAD": (324.30001, 370.13501), "v@GRAD": (1.02128, 3.05992),
}
PARAMETERS_1_8_5 = [
    "create_parameter_0.w_0", "conv3d_0.w_0", "conv3d_0.b_0", "conv2d_transpose_0.w_0",
    "conv2d_transpose_0.b_0", "conv3d_transpose_0.w_0", "conv3d_transpose_0.b_0",
    "instance_norm_0.w_0", "instance_norm_0.b_0", "prelu_0.w_0", "prelu_1.w_0",
    "bilinear_tensor_product_0.w_0", "bilinear_tensor_product_0.b_0",
    "spectral_norm_0.w_0", "spectral_norm_0.w_1"]


def _sin(*shape):
    return np.sin(np.arange(int(np.prod(shape)))).reshape(shape).astype("float32")


def _run_layers():
    main, start = Program(), Program()
    with program_guard(main, start):
        x = fluid.data("x", [None, 3, 4, 4, 4])
        x2 = fluid.data("x2", [None, 3, 5, 5])
        v = fluid.data("v", [None, 5])
        u = fluid.data("u", [None, 4])
        for d in (x, x2, v, u):
            d.stop_gradient = False
        w = L.create_parameter([6, 4], "float32")
        outs = {"conv3d": L.conv3d(x, 2, 3, act="relu"),
                "conv2d_transpose": L.conv2d_transpose(x2, 2, output_size=9, stride=2),
                "conv3d_transpose": L.conv3d_transpose(x, 2, filter_size=2),
                "group_norm": L.group_norm(x2, 3), "instance_norm": L.instance_norm(x2),
                "prelu_channel": L.prelu(x2, "channel"),
                "prelu_element": L.prelu(x2, "element"),
                "bilinear_tensor_product": L.bilinear_tensor_product(v, u, 6, act="tanh"),
                "spectral_norm": L.spectral_norm(w, dim=1, power_iters=3)}
        loss = L.sum([L.reduce_sum(o) for o in outs.values()])
        fluid.backward.append_backward(loss)
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(start)
        for p in main.all_parameters():
            t = scope.find_var(p.name).get_tensor()
            n = int(np.prod(p.shape))
            t.set(((np.arange(n) % 7 - 3) * 0.1 + 0.05).reshape(p.shape).astype("float32"),
                  fluid.CPUPlace())
        grads = [k for k in PADDLE_1_8_5 if k.endswith("@GRAD")]
        got = exe.run(main, feed={"x": _sin(2, 3, 4, 4, 4), "x2": _sin(2, 3, 5, 5),
                                  "v": _sin(2, 5), "u": _sin(2, 4)},
                      fetch_list=list(outs.values()) + grads)
    return main, dict(zip(list(outs) + grads, got))


def test_parameters_are_named_and_shaped_as_paddle_1_8_names_them():
    main, _ = _run_layers()
    assert [p.name for p in main.all_parameters()] == PARAMETERS_1_8_5
    shapes = {p.name: list(p.shape) for p in main.all_parameters()}
    assert shapes["conv3d_0.w_0"] == [2, 3, 3, 3, 3]
    # filter_size from output_size: (9 - (5 - 1) * 2 - 1) // 1 + 1 = 1
    assert shapes["conv2d_transpose_0.w_0"] == [3, 2, 1, 1]
    assert shapes["prelu_0.w_0"] == [1, 3, 1, 1] and shapes["prelu_1.w_0"] == [1, 3, 5, 5]
    assert shapes["bilinear_tensor_product_0.w_0"] == [6, 5, 4]
    assert shapes["bilinear_tensor_product_0.b_0"] == [1, 6]


def test_outputs_and_gradients_match_paddle_1_8_5():
    _, got = _run_layers()
    for key, (total, squares) in PADDLE_1_8_5.items():
        a = np.asarray(got[key], "float64")
        np.testing.assert_allclose([a.sum(), (a * a).sum()], [total, squares], rtol=2e-5,
                                   atol=2e-4, err_msg=key)


def test_group_norm_by_default_has_no_scale_or_bias_and_its_input_gradient_is_exact():
    """Paddle 1.8.5 makes Scale / Bias only for a truthy param_attr / bias_attr. The sum of
    a group-normalized tensor is constant, so d sum / dx = 0; Paddle 1.8.5's kernel gives
    212.27 in sum here without a Scale (its bug), refimpl 0 (as 1.8.5 with o * o)."""
    main, start = Program(), Program()
    with program_guard(main, start):
        x = fluid.data("x", [None, 3, 5, 5])
        x.stop_gradient = False
        y = L.group_norm(x, 3)
        scaled = L.group_norm(x, 3, param_attr=fluid.ParamAttr(), bias_attr=fluid.ParamAttr())
        fluid.backward.append_backward(L.reduce_sum(y))
    assert [p.name for p in main.all_parameters()] == ["group_norm_1.w_0", "group_norm_1.b_0"]
    assert set(main.global_block().ops[0].inputs) == {"X"}
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        exe.run(start)
        out, dx, s = exe.run(main, feed={"x": _sin(2, 3, 5, 5)},
                             fetch_list=[y, "x@GRAD", scaled])
    a = _sin(2, 3, 5, 5).reshape(2, 3, 25)
    want = (a - a.mean(-1, keepdims=True)) / np.sqrt(a.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(out, want.reshape(2, 3, 5, 5), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(s, out, rtol=1e-6, atol=1e-6)   # scale 1, bias 0
    np.testing.assert_allclose(dx, 0.0, atol=1e-4)


def test_group_norm_layer_takes_nhwc_where_1_8s_dygraph_class_does_not():
    # Paddle 1.8.5's test_group_norm_op: fluid.layers.group_norm(..., data_layout="NHWC")
    # groups the last axis; its dygraph GroupNorm refuses any layout but NCHW
    main = Program()
    with program_guard(main, Program()):
        x = fluid.data("x", [None, 3, 3, 4], "float64")
        y = L.group_norm(x, 2, data_layout="NHWC")
        with pytest.raises(ValueError, match="data_layout must be 'NCHW' or 'NHWC'"):
            L.group_norm(x, 2, data_layout="NDHW")
    with pytest.raises(ValueError, match="data_layout must be 'NCHW'"):
        fluid.dygraph.GroupNorm(4, 2, data_layout="NHWC")
    a = _sin(2, 3, 3, 4).astype("float64")
    out, = fluid.Executor(fluid.CPUPlace()).run(main, feed={"x": a}, fetch_list=[y])
    groups = a.reshape(2, 9, 2, 2)                    # [N, H W, groups, channels per group]
    mean = groups.mean(axis=(1, 3), keepdims=True)
    var = groups.var(axis=(1, 3), keepdims=True)
    np.testing.assert_allclose(out, ((groups - mean) / np.sqrt(var + 1e-5)).reshape(a.shape),
                               rtol=1e-10)


def test_bad_arguments_name_the_layer():
    main, start = Program(), Program()
    with program_guard(main, start):
        x = fluid.data("x", [None, 3, 5, 5])
        with pytest.raises(ValueError, match="conv2d_transpose: output_size must be set"):
            L.conv2d_transpose(x, 2)
        with pytest.raises(ValueError, match="conv2d_transpose: data_format must be one of"):
            L.conv2d_transpose(x, 2, filter_size=3, data_format="NCDHW")
        with pytest.raises(ValueError, match="conv3d: input 'x' must be 5-D"):
            L.conv3d(x, 2, 3)
        with pytest.raises(ValueError, match="PRelu: mode must be"):
            L.prelu(x, "row")
