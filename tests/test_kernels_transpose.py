"""The compiled transpose2 (permutations that keep the last axis: a memcpy per row, rows
split over the team) against the reference, on C-contiguous inputs and on views (strided,
reversed, transposed), every dtype; other permutations and a non-contiguous last axis run
the reference."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from refimpl.dispatch import select_kernel
from refimpl.ops.registry import get_op_def


def _kernels(axis):
    fwd, bwd = (select_kernel("transpose2", which, {"axis": axis}, "float32")
                for which in ("forward", "backward"))
    if not fwd.compiled:
        pytest.skip("compiled kernels disabled or not built")
    return fwd.fn, bwd.fn


@settings(max_examples=80, deadline=None)
@given(shape=st.lists(st.integers(1, 5), min_size=2, max_size=5), data=st.data(),
       layout=st.sampled_from(["c", "strided", "reversed", "swapped"]),
       dtype=st.sampled_from(["float32", "float64", "int64", "bool", "complex128"]),
       split=st.booleans(), seed=st.integers(0, 2 ** 31 - 1))
def test_transpose2_kernel_matches_reference(shape, data, layout, dtype, split, seed):
    n = len(shape)
    axis = data.draw(st.permutations(range(n - 1))) + [n - 1]
    rng = np.random.RandomState(seed)
    base = (rng.randn(*shape[:-1], 2 * shape[-1]) * 10).astype(dtype)
    x = {"c": base[..., :shape[-1]].copy(), "strided": base[..., ::2],
         "reversed": base[::-1, ..., :shape[-1]],
         "swapped": np.swapaxes(base[..., :shape[-1]], 0, n - 2)}[layout]
    fwd, bwd = _kernels(axis)
    op = get_op_def("transpose2")
    with pytest.MonkeyPatch.context() as patch:
        if split:
            patch.setattr(pytest.importorskip("refimpl._kernels.blas"), "MIN_SPLIT_ITEMS", 0)
        out, xshape = fwd(x, axis=axis)
        dx = bwd(xshape, out, axis=axis)
    want, want_xshape = op.forward(x, axis=axis)
    assert out.flags.c_contiguous and out.dtype == x.dtype
    np.testing.assert_array_equal(out, want)
    assert xshape.shape == want_xshape.shape and xshape.dtype == want_xshape.dtype
    np.testing.assert_array_equal(dx, x)
    assert dx.flags.c_contiguous


def test_transpose2_kernel_leaves_other_permutations_to_the_reference():
    x = np.arange(24.0).reshape(2, 3, 4)
    fwd, bwd = _kernels([2, 0, 1])
    out, xshape = fwd(x, axis=[2, 0, 1])
    np.testing.assert_array_equal(out, x.transpose(2, 0, 1))
    np.testing.assert_array_equal(bwd(xshape, out, axis=[2, 0, 1]), x)


def test_transpose2_of_a_0d_x_is_0d():
    """A 0-D X with axis [] (Paddle 3's test_transpose_op ZeroDim cases, 3.3.1: shape
    []): Out stays 0-D in the reference (numpy's ascontiguousarray would make it [1])."""
    out = get_op_def("transpose2").view(np.array(2.5), axis=[])
    assert out.shape == () and out == 2.5
