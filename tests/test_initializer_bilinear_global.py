"""The Bilinear initializer's weights and dtypes, and set_global_initializer's priority
(specs/initializer.md)."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl import fluid

# Paddle 1.8.5's and 3.3.1's weight of shape [1, 1, 4, 4] (measured: the same on both)
PADDLE_4x4 = np.array([[0.0625, 0.28125, 0.375, 0.15625],
                       [0.1875, 0.65625, 0.75, 0.21875],
                       [0.1875, 0.46875, 0.375, 0.09375],
                       [0.0625, 0.09375, 0.0, -0.03125]])


def _startup_value(dtype):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        w = fluid.layers.create_parameter([1, 1, 4, 4], dtype,
                                          default_initializer=fluid.initializer.Bilinear())
    scope = fluid.Scope()
    fluid.Executor(fluid.CPUPlace()).run(startup, scope=scope)
    return startup, np.array(scope.find_var(w.name).get_tensor())


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_bilinear_weights_are_paddles_in_each_float_dtype(dtype):
    startup, value = _startup_value(dtype)
    assert value.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(value[0, 0], PADDLE_4x4.astype(dtype))
    # float16 and float64 are filled in float32 and cast, as Paddle 2.0 / 3.3.1 do
    want = ["assign_value"] if dtype == "float32" else ["assign_value", "cast"]
    assert [op.type for op in startup.global_block().ops] == want


def test_bilinear_refuses_other_dtypes_and_fills_eager_parameters_too():
    with pytest.raises(TypeError, match="Bilinear initializer: unsupported dtype int32"):
        _startup_value("int32")
    with fluid.dygraph.guard():
        w = paddle.create_parameter([1, 1, 4, 4], "float64",
                                    default_initializer=fluid.initializer.Bilinear())
        np.testing.assert_array_equal(w.numpy()[0, 0], PADDLE_4x4)


def test_the_global_initializer_wins_over_the_layer_default_not_over_param_attr():
    main, startup = fluid.Program(), fluid.Program()
    fluid.set_global_initializer(fluid.initializer.Uniform(-0.5, 0.5),
                                 bias_init=fluid.initializer.Normal(0.0, 2.0))
    try:
        with fluid.program_guard(main, startup):
            x = fluid.data("x", [1, 3, 8, 8], "float32")
            fluid.layers.conv2d(x, 5, 3)     # its default weight initializer is Normal
            fluid.layers.fc(fluid.layers.flatten(x), 2, param_attr=fluid.ParamAttr(
                initializer=fluid.initializer.Constant(0.25)))
    finally:
        fluid.set_global_initializer(None)
    inits = {op.output("Out")[0]: op for op in startup.global_block().ops}
    conv_w, conv_b = inits["conv2d_0.w_0"], inits["conv2d_0.b_0"]
    assert (conv_w.type, conv_w.attr("min"), conv_w.attr("max")) == ("uniform_random", -0.5, 0.5)
    assert (conv_b.type, conv_b.attr("mean"), conv_b.attr("std")) == ("gaussian_random", 0.0, 2.0)
    fc_w = inits["fc_0.w_0"]
    assert (fc_w.type, fc_w.attr("value")) == ("fill_constant", 0.25)
    assert inits["fc_0.b_0"].type == "gaussian_random"
