"""The compiled softmax (float32, last axis: a row at a time through the vectorized exp,
rows split over the team) against the numpy reference: rows of one element and wider
than the SIMD lanes, logits spread wide enough that exp underflows, masked (-inf)
entries, NaN rows; other axes and float64 run the reference."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from refimpl.dispatch import select_kernel
from refimpl.ops.registry import get_op_def


def _kernels(axis, dtype="float32"):
    fwd, bwd = (select_kernel("softmax", which, {"axis": axis}, dtype)
                for which in ("forward", "backward"))
    if not fwd.compiled:
        pytest.skip("compiled kernels disabled or not built")
    return fwd.fn, bwd.fn


@settings(max_examples=80, deadline=None)
@given(shape=st.sampled_from([(1, 1), (3, 5), (2, 3, 17), (4, 70)]),
       spread=st.sampled_from([1.0, 60.0]), masked=st.booleans(), split=st.booleans(),
       last=st.sampled_from([-1, "index"]), seed=st.integers(0, 2 ** 31 - 1))
def test_softmax_kernel_matches_reference(shape, spread, masked, split, last, seed):
    op = get_op_def("softmax")
    axis = len(shape) - 1 if last == "index" else -1
    fwd, bwd = _kernels(axis)
    rng = np.random.RandomState(seed)
    x = (rng.uniform(-1, 1, shape) * spread).astype("float32")
    if masked and shape[-1] > 1:
        x[..., 0] = -np.inf
    dout = rng.uniform(-1, 1, shape).astype("float32")
    with pytest.MonkeyPatch.context() as patch:
        if split:
            blas = pytest.importorskip("refimpl._kernels.blas")
            patch.setattr(blas, "MIN_SPLIT_ITEMS", 0)
        out = fwd(x, axis=axis)
        dx = bwd(out, dout, axis=axis)
    want = op.forward(x, axis=axis)
    assert out.dtype == np.float32 and out.shape == x.shape
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(dx, op.backward(want, dout, axis=axis), rtol=1e-4, atol=1e-6)


def test_softmax_kernel_keeps_nan_rows_and_leaves_other_cases_to_the_reference():
    op = get_op_def("softmax")
    fwd, bwd = _kernels(-1)
    x = np.array([[1, np.nan, 2], [1, 2, 3]], np.float32)
    got = fwd(x)
    assert np.isnan(got[0]).all()
    np.testing.assert_allclose(got[1], op.forward(x[1:])[0], rtol=1e-6)
    y = np.random.RandomState(0).randn(2, 3, 4).astype("float32")
    np.testing.assert_array_equal(_kernels(1)[0](y, axis=1), op.forward(y, axis=1))
    assert not select_kernel("softmax", "forward", {"axis": -1}, "float64").compiled
