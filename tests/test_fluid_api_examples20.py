"""What Paddle 2.0's paddle.fluid docstring examples needed (specs/api_examples.md, ex20st):
each test checks the behaviour one of them relies on against hand-derived values."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl import fluid, static


def _run(build, feed=None):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        fetch = build()
    exe = static.Executor()
    exe.run(startup)
    return exe.run(main, feed=feed or {}, fetch_list=fetch)


def test_fluid_topk_reads_k_from_a_variable():
    x = np.array([[3., 1., 4., 1.5], [9., 2., 6., 5.]], "float32")

    def build():
        k = fluid.data("k", [1], "int32")
        values, indices = fluid.layers.topk(fluid.data("x", [None, 4], "float32"), k=k)
        assert values.shape == (-1, -1)      # k is known only when the op runs
        return [values, indices]
    values, indices = _run(build, {"x": x, "k": np.array([2], "int32")})
    np.testing.assert_array_equal(values, [[4., 3.], [9., 6.]])
    np.testing.assert_array_equal(indices, [[2, 0], [0, 2]])


def test_a_control_flow_op_in_dygraph_names_itself_and_static_mode():
    paddle.disable_static()
    try:
        i = fluid.layers.fill_constant([1], "int64", 0)
        cond = fluid.layers.less_than(i, fluid.layers.fill_constant([1], "int64", 3))
        loop = fluid.layers.While(cond=cond)
        with pytest.raises(ValueError, match=r"operator while\].*enable_static"):
            with loop.block():
                fluid.layers.increment(i, in_place=True)
    finally:
        paddle.enable_static()
