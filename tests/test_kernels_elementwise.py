"""The compiled elementwise_add (bias-shaped Y: one pass forward, Y's gradient summed in
double) against the numpy reference on shapes and axes drawn by hypothesis, including
broadcasts it leaves to the reference (Y with a size-1 dim, X the smaller operand). The
backward reads only X's and Y's shapes: given the executor's buffer-less stand-ins for them
(a broadcast zero) it gives the same grads."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from refimpl.dispatch import select_kernel
from refimpl.ops.registry import get_op_def


@st.composite
def add_cases(draw):
    x_shape = draw(st.lists(st.integers(1, 5), min_size=1, max_size=4))
    start = draw(st.integers(0, len(x_shape) - 1))
    length = draw(st.integers(1, len(x_shape) - start))
    y_shape = list(x_shape[start:start + length])
    if draw(st.booleans()) and length > 1:
        y_shape[draw(st.integers(0, length - 1))] = 1   # a broadcast inside Y: reference
    right_aligned = start + length == len(x_shape)
    axis = draw(st.sampled_from([-1, start])) if right_aligned else start
    swap = draw(st.integers(0, 9)) == 0 and axis == -1   # X the smaller: reference
    return dict(x=tuple(y_shape if swap else x_shape), y=tuple(x_shape if swap else y_shape),
                axis=axis, dtype=draw(st.sampled_from(["float32", "float64"])),
                seed=draw(st.integers(0, 2 ** 31 - 1)), split=draw(st.booleans()),
                stand_ins=draw(st.booleans()))


@settings(max_examples=200, deadline=None)
@given(add_cases())
def test_add_kernel_matches_reference(case):
    op = get_op_def("elementwise_add")
    fast_fwd, fast_bwd = (select_kernel("elementwise_add", which) for which in
                          ("forward", "backward"))
    if not fast_fwd.compiled:
        pytest.skip("compiled kernels disabled or not built")
    fast_fwd, fast_bwd = fast_fwd.fn, fast_bwd.fn
    rng = np.random.RandomState(case["seed"])
    x = rng.randn(*case["x"]).astype(case["dtype"])
    y = rng.randn(*case["y"]).astype(case["dtype"])
    out = op.forward(x, y, case["axis"])
    dout = rng.randn(*out.shape).astype(case["dtype"])
    with pytest.MonkeyPatch.context() as patch:
        if case["split"]:   # the rows cut over the kernels' team, as large arrays are
            from refimpl._kernels import blas
            patch.setattr(blas, "MIN_SPLIT_ITEMS", 0)
        np.testing.assert_array_equal(fast_fwd(x, y, case["axis"]), out)
        got_grads = fast_bwd(*[_stand_in(a) if case["stand_ins"] else a for a in (x, y)],
                             dout, case["axis"])
    rtol, atol = op.tolerances[case["dtype"]]
    for got, want in zip(got_grads, op.backward(x, y, dout, case["axis"])):
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol, atol)


def _stand_in(a):
    return np.broadcast_to(np.zeros((), a.dtype), a.shape)
