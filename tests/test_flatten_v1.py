"""The flatten op (v1, Paddle 2.0's flatten_op.cc; specs/ops/tensor.md): flatten2's Out
[prod(dims[:axis]), prod(dims[axis:])] without XShape, its gradient dOut reshaped to X's
shape (read from X)."""
import numpy as np
import pytest

from refimpl import static
from refimpl.framework.program import Program, program_guard


def _flatten(x, axis):
    main = Program()
    with program_guard(main, Program()):
        xv = static.data("x", list(x.shape), "float64")
        xv.stop_gradient = False
        out = main.global_block().create_var(name="out", dtype="float64")
        main.global_block().append_op(type="flatten", inputs={"X": [xv]},
                                      outputs={"Out": [out]}, attrs={"axis": axis})
        g = static.data("g", list(out.shape), "float64")
        (gx,) = static.gradients([out], [xv], target_gradients=[g])
    dout = np.arange(x.size, dtype="float64").reshape(out.shape) * 0.5
    got, got_gx = static.Executor().run(main, feed={"x": x, "g": dout},
                                        fetch_list=[out, gx])
    return tuple(out.shape), got, got_gx, dout


@pytest.mark.parametrize("axis, shape", [(0, (1, 120)), (1, (3, 40)), (2, (6, 20)),
                                         (4, (120, 1))])
def test_flatten_v1_shape_values_and_gradient(axis, shape):
    x = np.random.RandomState(0).rand(3, 2, 2, 10)
    built, got, got_gx, dout = _flatten(x, axis)
    assert built == shape and got.shape == shape
    np.testing.assert_array_equal(got, x.reshape(shape))
    np.testing.assert_array_equal(got_gx, dout.reshape(x.shape))


def test_flatten_v1_axis_past_the_rank_is_refused():
    with pytest.raises(Exception, match="axis 5 is out of range"):
        _flatten(np.zeros((3, 2, 2, 10)), 5)
