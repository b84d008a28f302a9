"""The compiled layer_norm (rows normalized while in cache, rows split over the kernels'
team, the backward's column sums per part) against the numpy reference: every
begin_norm_axis, with and without Scale and Bias, rows far from zero mean, and the team
split forced on small inputs."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from refimpl.dispatch import select_kernel
from refimpl.ops.registry import get_op_def


@settings(max_examples=80, deadline=None)
@given(shape=st.lists(st.integers(1, 6), min_size=2, max_size=4), data=st.data(),
       with_scale=st.booleans(), with_bias=st.booleans(), offset=st.sampled_from([0.0, 50.0]),
       split=st.booleans(), dtype=st.sampled_from(["float32", "float64"]),
       seed=st.integers(0, 2 ** 31 - 1))
def test_layer_norm_kernel_matches_reference(shape, data, with_scale, with_bias, offset,
                                             split, dtype, seed):
    fast_fwd, fast_bwd = (select_kernel("layer_norm", which, {}, dtype)
                          for which in ("forward", "backward"))
    if not fast_fwd.compiled:
        pytest.skip("compiled kernels disabled or not built")
    op = get_op_def("layer_norm")
    axis = data.draw(st.integers(1, len(shape) - 1))
    rng = np.random.RandomState(seed)
    x = (rng.randn(*shape) + offset).astype(dtype)
    n = int(np.prod(shape[axis:]))
    scale = rng.uniform(0.5, 1.5, n).astype(dtype) if with_scale else None
    bias = rng.randn(n).astype(dtype) if with_bias else None
    dy = rng.randn(*shape).astype(dtype)
    rtol, atol = op.tolerances[dtype]
    # a row far from zero mean keeps about eps * offset / (its std) absolute digits after
    # normalization, whichever order the sums take (float32, offset 50: a row of three
    # with a small spread differed by 1.5e-5)
    rows = x.astype(np.float64).reshape(-1, n)
    atol += 8 * np.finfo(dtype).eps * offset / max(rows.std(axis=1).min(), 1e-3)
    with pytest.MonkeyPatch.context() as patch:
        if split:
            from refimpl._kernels import blas
            patch.setattr(blas, "MIN_SPLIT_ITEMS", 0)
        got = fast_fwd.fn(x, scale, bias, begin_norm_axis=axis)
        want = op.forward(x, scale, bias, begin_norm_axis=axis)
        for g, w in zip(got, want):
            assert g.shape == w.shape and g.dtype == w.dtype
            np.testing.assert_allclose(g, w, rtol, atol)
        got = fast_bwd.fn(x, scale, bias, want[1], want[2], dy, begin_norm_axis=axis)
    want = op.backward(x, scale, bias, want[1], want[2], dy, begin_norm_axis=axis)
    for g, w in zip(got, want):
        if w is None:
            assert g is None
        else:
            assert g.shape == w.shape and g.dtype == w.dtype
            np.testing.assert_allclose(g, w, rtol, atol)
