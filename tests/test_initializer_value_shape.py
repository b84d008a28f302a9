"""NumpyArrayInitializer / nn.initializer.Assign with a value whose shape is not the
parameter's: Paddle (1.8.5 and 3.3.1 measured) gives the parameter the value's shape, in
both modes; refimpl does too, and warns."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl import fluid
from refimpl.framework.program import Program, program_guard


def test_an_eager_parameter_takes_the_values_shape_with_a_warning():
    value = np.arange(8, dtype="float32").reshape(4, 2)
    with fluid.dygraph.guard(), pytest.warns(
            UserWarning, match=r"has shape \[4, 2\], the parameter \[5, 2\]"):
        p = paddle.create_parameter([5, 2], "float32",
                                    default_initializer=paddle.nn.initializer.Assign(value))
        assert list(p.shape) == [4, 2]
        np.testing.assert_array_equal(p.numpy(), value)


def test_a_static_parameter_takes_the_values_shape_with_a_warning():
    value = np.arange(8, dtype="float32").reshape(4, 2)
    main, start = Program(), Program()
    with program_guard(main, start):
        with pytest.warns(UserWarning, match="takes the value's shape"):
            q = fluid.layers.create_parameter(
                [5, 2], "float32",
                default_initializer=fluid.initializer.NumpyArrayInitializer(value))
        total = fluid.layers.reduce_sum(q)
    assert list(q.shape) == [4, 2]
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        exe.run(start)
        got, = exe.run(main, fetch_list=[total])
    assert float(np.asarray(got).ravel()[0]) == 28.0
