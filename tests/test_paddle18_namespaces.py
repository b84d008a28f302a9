"""Paddle 1.8's small namespaces its API examples use: paddle.complex (layers over complex
tensors), paddle.sysconfig, fluid.unique_name.switch's (generator, checker) pair. Expected
values are numpy's or were printed by Paddle 1.8.5 for the same inputs."""
import os

import numpy as np
import pytest

import refimpl
from refimpl import complex as cpx
from refimpl.fluid import dygraph, unique_name

A = np.array([[1.0 + 1.0j, 2.0 + 1.0j], [3.0 + 1.0j, 4.0 + 1.0j]])
B = np.array([[5.0 + 2.0j, 6.0 + 2.0j], [7.0 + 2.0j, 8.0 + 2.0j]])


def _run(fn, *arrays):
    with dygraph.guard():
        return fn(*[dygraph.to_variable(a) for a in arrays]).numpy()


@pytest.mark.parametrize("layer, expected", [
    (cpx.elementwise_add, [[6 + 3j, 8 + 3j], [10 + 3j, 12 + 3j]]),      # Paddle 1.8.5
    (cpx.elementwise_sub, [[-4 - 1j] * 2] * 2),
    (cpx.elementwise_mul, [[3 + 7j, 10 + 10j], [19 + 13j, 30 + 16j]]),
    (cpx.elementwise_div, A / B),
    (cpx.kron, np.kron(A, B)),
])
def test_binary_layers_of_complex_tensors(layer, expected):
    np.testing.assert_allclose(_run(layer, A, B), expected)


def test_a_real_operand_is_complex_with_zero_imaginary_part():
    real = np.array([[1.0, 2.0], [3.0, 4.0]])
    out = _run(cpx.elementwise_add, A, real)
    assert out.dtype == np.complex128
    np.testing.assert_allclose(out, A + real)


def test_no_complex_input_is_refused_by_name():
    with pytest.raises(ValueError, match=r"complex.elementwise_add\(\).*x float64, y float64"):
        _run(cpx.elementwise_add, A.real, B.real)


def test_reductions_and_shapes():
    y = np.array([[[1, 2], [3, 4]], [[5, 6], [7, 8]]]) + 1j * np.array(
        [[[4, 3], [2, 1]], [[8, 7], [6, 5]]])
    np.testing.assert_allclose(_run(lambda t: cpx.sum(t, dim=[1, 2]), y), [10 + 10j, 26 + 26j])
    np.testing.assert_allclose(_run(lambda t: cpx.sum(t, dim=1, keep_dim=True), A),
                               [[3 + 2j], [7 + 2j]])
    np.testing.assert_allclose(_run(cpx.sum, A), [10 + 4j])
    np.testing.assert_allclose(_run(cpx.trace, A), [5 + 2j])
    np.testing.assert_allclose(_run(lambda t: cpx.transpose(t, [1, 0]), A), A.T)
    assert _run(lambda t: cpx.reshape(t, (4, -1)), A).shape == (4, 1)
    v = np.array([1.0 + 1j, 1.0 + 1j])
    np.testing.assert_allclose(_run(cpx.matmul, A, v), [1 + 5j, 5 + 9j])   # Paddle 1.8.5


def test_sysconfig_names_existing_folders():
    assert os.path.isdir(refimpl.sysconfig.get_include())
    assert os.path.isdir(refimpl.sysconfig.get_lib())


def test_unique_name_switch_returns_the_previous_generator_and_checker():
    with unique_name.guard():
        assert unique_name.generate("fc") == "fc_0"
        assert unique_name.generate("fc") == "fc_1"
        generator, checker = unique_name.switch()
        assert unique_name.generate("fc") == "fc_0"
        unique_name.switch(generator, checker)
        assert unique_name.generate("fc") == "fc_2"
        assert checker("w") is False and checker("w") is True


def test_incubate_hapi_vision_modules_are_refimpl_vision():
    # 1.8.5's docstrings import from paddle.incubate.hapi.vision.transforms (2.0's
    # paddle.vision): the same modules, not a second run of their files
    from refimpl.incubate.hapi.vision.transforms import BrightnessTransform
    from refimpl.incubate.hapi.vision.transforms import transforms
    assert BrightnessTransform is refimpl.vision.transforms.BrightnessTransform
    assert transforms is refimpl.vision.transforms.transforms
    image = np.full((2, 2, 3), 100, np.uint8)
    assert np.array_equal(BrightnessTransform(0.0)(image), image)
