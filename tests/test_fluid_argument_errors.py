"""Argument errors Paddle raises from Python, with Paddle's exception types: redeclared
variables, reshape's asserted shapes, backward's argument types, 1.8's dtype list
(specs/fluid_core.md, "Argument errors")."""
import numpy as np
import pytest

from refimpl import fluid
from refimpl.framework.errors import LayerAssertionError


def test_redeclaring_a_variable_must_agree_with_it():
    block = fluid.Program().global_block()
    w = block.create_var(name="w", shape=[784, 100], dtype="float64")
    assert block.create_var(name="w") is w
    assert block.create_var(name="w", shape=(784, 100), dtype="float64") is w
    with pytest.raises(ValueError, match="previous shape is \\(784, 100\\).*\\(24, 100\\)"):
        block.create_var(name="w", shape=(24, 100))
    with pytest.raises(ValueError, match="previous data type is float64"):
        block.create_var(name="w", dtype="float32")


@pytest.mark.parametrize("shape, message", [([-1, -1, 5], "Only one dimension"),
                                            ([2, 5, 5, 0], "index of 0"),
                                            ([-1, -2, 5], "must not be negative")])
def test_reshape_shape_asserts(shape, message):
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = fluid.data("x", [2, 25], "float32")
        # Paddle asserts (AssertionError); refimpl's errors are ValueErrors: both
        with pytest.raises(AssertionError, match=message):
            fluid.layers.reshape(x, shape)
        with pytest.raises(ValueError, match=message):
            fluid.layers.reshape(x, shape)
    assert issubclass(LayerAssertionError, ValueError)


def test_backward_argument_types():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = fluid.data("x", [None, 4], "float32")
        x.stop_gradient = False
        y = fluid.layers.fc(x, 2)
        with pytest.raises(TypeError, match="targets"):
            fluid.gradients(y.name, x)
        with pytest.raises(TypeError, match="inputs"):
            fluid.gradients(y, x.name)
        with pytest.raises(TypeError, match="target_gradients"):
            fluid.gradients([y], [x], target_gradients=x.name)
        with pytest.raises(TypeError, match="no_grad_set should be set or list or tuple"):
            fluid.gradients([y], x, no_grad_set=y)
        with pytest.raises(TypeError, match="no_grad_set's member"):
            fluid.backward.append_backward(fluid.layers.mean(y), no_grad_set=[x, "a", 3])
        with pytest.raises(TypeError, match="parameter_list should be"):
            fluid.backward.append_backward(fluid.layers.mean(y), parameter_list="w")


@pytest.mark.paddle("1.8")
def test_fluid18_dtype_arguments_outside_its_list_are_value_errors():
    # Paddle 1.8's convert_dtype knows nine dtypes; complex ones raise ValueError there
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        with pytest.raises(ValueError, match="dtype must be any of"):
            fluid.layers.create_global_var([1, 2, 3], 2.0, np.complex128)
        with pytest.raises(TypeError, match="must be"):
            fluid.layers.create_global_var(1, 2.0, np.float32)


def test_variable_to_string():
    block = fluid.Program().global_block()
    v = block.create_var(name="v", dtype="float64", shape=[1, 1])
    text = v.to_string(True)
    assert text.startswith('name: "v"') and "data_type: FP64" in text
    assert "stop_gradient" in v.to_string(True, True)
    with pytest.raises(TypeError, match="with_details must be a bool"):
        v.to_string(True, 1)
