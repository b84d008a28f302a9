"""The compiled sum (gradient accumulation: the inputs added in order, in blocks, the
elements split over the team) is bit-identical to the reference; inputs it does not take
(one input, integers, mixed shapes or dtypes, views) run the reference."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from refimpl.dispatch import select_kernel
from refimpl.ops.registry import get_op_def


def _kernel(dtype="float32"):
    fwd = select_kernel("sum", "forward", {}, dtype)
    if not fwd.compiled:
        pytest.skip("compiled kernels disabled or not built")
    return fwd.fn


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 5), size=st.sampled_from([1, 7, 2048, 2049, 5000]),
       dtype=st.sampled_from(["float32", "float64"]), split=st.booleans(),
       seed=st.integers(0, 2 ** 31 - 1))
def test_sum_kernel_is_bit_identical_to_reference(n, size, dtype, split, seed):
    rng = np.random.RandomState(seed)
    xs = [(rng.randn(size) * 10 ** rng.uniform(-3, 3)).astype(dtype).reshape(-1, 1)
          for _ in range(n)]
    fwd = _kernel(dtype)
    with pytest.MonkeyPatch.context() as patch:
        if split:
            patch.setattr(pytest.importorskip("refimpl._kernels.blas"), "MIN_SPLIT_ITEMS", 0)
        got = fwd(xs)
    want = get_op_def("sum").forward(xs)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    assert all(got is not x for x in xs)


def test_sum_kernel_leaves_other_inputs_to_the_reference():
    fwd, ref = _kernel(), get_op_def("sum").forward
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    for xs in ([a], [a.astype(np.int64), a.astype(np.int64)], [a, a.T.copy().T[:, :]],
               [a[:, ::2], a[:, 1::2]]):
        np.testing.assert_array_equal(fwd(xs), ref(xs))
