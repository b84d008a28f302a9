"""The compiled softmax_with_cross_entropy (hard labels; float32 a row at a time through
the vectorized exp, float64 a block of rows at a time so that each block stays in cache
between its passes) against the numpy reference, with blocks of one row, a few rows and
all rows, rows split over the team, logits spread wide enough that exp underflows, and
rows whose label is ignore_index."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from refimpl.dispatch import select_kernel
from refimpl.ops.registry import get_op_def

try:
    from refimpl._kernels import softmax_ce as softmax_ce_kernels
except ImportError:   # not built
    softmax_ce_kernels = None


@settings(max_examples=100, deadline=None)
@given(rows=st.integers(1, 9), classes=st.integers(1, 40),
       block_bytes=st.sampled_from([None, 1, 100]), ignored=st.booleans(),
       spread=st.sampled_from([5.0, 60.0]), split=st.booleans(),
       dtype=st.sampled_from(["float32", "float64"]), seed=st.integers(0, 2 ** 31 - 1))
def test_softmax_ce_kernel_matches_reference(rows, classes, block_bytes, ignored, spread,
                                             split, dtype, seed):
    op = get_op_def("softmax_with_cross_entropy")
    fast_fwd, fast_bwd = (select_kernel("softmax_with_cross_entropy", which)
                          for which in ("forward", "backward"))
    if not fast_fwd.compiled:
        pytest.skip("compiled kernels disabled or not built")
    rng = np.random.RandomState(seed)
    logits = (rng.randn(rows, classes) * spread).astype(dtype)
    label = rng.randint(0, classes, (rows, 1)).astype("int64")
    if ignored:
        label[rng.randint(0, rows)] = -100
    with pytest.MonkeyPatch.context() as patch:
        if block_bytes is not None:
            patch.setattr(softmax_ce_kernels, "_BLOCK_BYTES", block_bytes)
        if split:
            from refimpl._kernels import blas
            patch.setattr(blas, "MIN_SPLIT_ITEMS", 0)
        prob, loss = fast_fwd.fn(logits, label)
        dloss = rng.randn(rows, 1).astype(dtype)
        dx = fast_bwd.fn(label, prob, dloss)
    want_prob, want_loss = op.forward(logits, label)
    rtol, atol = op.tolerances[dtype]
    for got, want in ((prob, want_prob), (loss, want_loss)):
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol, atol)
    np.testing.assert_allclose(dx, op.backward(label, want_prob, dloss), rtol, atol)


def test_a_fed_label_declared_float_is_checked_when_it_arrives():
    """A fluid.layers.data Label takes the fed dtype, as in Paddle 1.8.5 (its own ptb tests
    declare the label float32 and feed int64): the build accepts the declaration and the
    kernel (numpy or compiled, whichever runs) refuses float labels, as 1.8.5 does."""
    from refimpl import fluid
    from refimpl.framework.errors import OpError
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.layers.data(name="x", shape=[-1, 3], dtype="float32",
                              append_batch_size=False)
        y = fluid.layers.data(name="y", shape=[-1, 1], dtype="float32",
                              append_batch_size=False)
        loss = fluid.layers.softmax_with_cross_entropy(x, y)
    logits = np.array([[1.0, 2.0, 3.0]], "float32")
    exe = fluid.Executor(fluid.CPUPlace())
    got = exe.run(main, feed={"x": logits, "y": np.array([[2]], "int64")},
                  fetch_list=[loss])[0]
    np.testing.assert_allclose(got, [[np.log(np.exp(logits).sum()) - 3.0]], rtol=1e-6)
    with pytest.raises(OpError, match="Label must be int64"):
        exe.run(main, feed={"x": logits, "y": np.array([[2.0]], "float32")}, fetch_list=[loss])
    for kernel in ([softmax_ce_kernels.softmax_ce_forward] if softmax_ce_kernels else []):
        with pytest.raises(TypeError, match="Label must be int64"):
            kernel(logits, np.array([[2.0]], "float32"))
