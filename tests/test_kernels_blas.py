"""The kernels' thread team (refimpl._kernels.blas): its GEMM against numpy, its split, and
the rule that a kernel leaves numpy's BLAS thread count as it found it, also when several
Python threads run kernels at once."""
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from refimpl._kernels import backend, load_kernel

pytestmark = pytest.mark.skipif(backend() == "numpy", reason="numpy references only")
blas = pytest.importorskip("refimpl._kernels.blas")


@settings(max_examples=120, deadline=None)
@given(m=st.integers(0, 40), n=st.integers(0, 40), k=st.integers(0, 40),
       trans_a=st.booleans(), trans_b=st.booleans(),
       dtype=st.sampled_from(["float32", "float64"]),
       path=st.sampled_from(["default", "blas", "split"]), seed=st.integers(0, 2 ** 31 - 1))
def test_gemm_into_matches_numpy(m, n, k, trans_a, trans_b, dtype, path, seed):
    """Every shape, empty ones included, both transposes. Products this small go to numpy's
    matmul by default; `blas`: our BLAS call instead, `split`: that call split over the
    team by rows (m >= n) or columns. Only large products take those by default."""
    rng = np.random.RandomState(seed)
    a = rng.randn(*((k, m) if trans_a else (m, k))).astype(dtype)
    b = rng.randn(*((n, k) if trans_b else (k, n))).astype(dtype)
    want = (a.T if trans_a else a) @ (b.T if trans_b else b)
    out = np.full((m, n), np.nan, dtype)
    with pytest.MonkeyPatch.context() as patch:
        if path != "default":
            patch.setattr(blas, "NUMPY_GEMM_WORK", 0)
        if path == "split":
            patch.setattr(blas, "MIN_SPLIT_WORK", 0)
        got = blas.gemm_into(a, b, out, trans_a=trans_a, trans_b=trans_b)
    assert got is out
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(out, want, rtol=tol, atol=tol * max(k, 1))


@settings(max_examples=80, deadline=None)
@given(m=st.integers(0, 40), n=st.integers(0, 40), k=st.integers(0, 40),
       trans_a=st.booleans(), alpha=st.sampled_from([1.0, -0.37, 2.5]),
       beta=st.sampled_from([0.0, 1.0, -0.5]), dtype=st.sampled_from(["float32", "float64"]),
       split=st.booleans(), seed=st.integers(0, 2 ** 31 - 1))
def test_gemm_into_scales_and_accumulates(m, n, k, trans_a, alpha, beta, dtype, split, seed):
    """out = alpha * op(a) @ b + beta * out (the folded sgd update: alpha -lr, beta 1), k = 0
    included; beta 0 ignores out's NaNs, as BLAS does."""
    rng = np.random.RandomState(seed)
    a = rng.randn(*((k, m) if trans_a else (m, k))).astype(dtype)
    b = rng.randn(k, n).astype(dtype)
    start = rng.randn(m, n).astype(dtype) if beta else np.full((m, n), np.nan, dtype)
    want = alpha * ((a.T if trans_a else a) @ b) + (beta * start if beta else 0)
    out = start.copy()
    with pytest.MonkeyPatch.context() as patch:
        if split:
            patch.setattr(blas, "MIN_SPLIT_WORK", 0)
        got = blas.gemm_into(a, b, out, trans_a=trans_a, alpha=alpha, beta=beta)
    assert got is out
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(out, want, rtol=tol, atol=tol * max(k, 1) * 3)


@settings(max_examples=80, deadline=None)
@given(m=st.integers(1, 30), n=st.integers(1, 30), k=st.integers(1, 30),
       layouts=st.tuples(*[st.sampled_from(["c", "transposed", "strided"])] * 2),
       dtype=st.sampled_from(["float32", "float64"]), seed=st.integers(0, 2 ** 31 - 1))
def test_team_matmul_matches_numpy(m, n, k, layouts, dtype, seed):
    """blas.matmul, numpy's @ for the kernels that run numpy code: any layout of its two
    operands (a transposed one read in place, a strided one copied), through the BLAS call
    split over the team (the thresholds put to 0, so small shapes take that path too)."""
    rng = np.random.RandomState(seed)

    def operand(rows, cols, layout):
        if layout == "transposed":
            return rng.randn(cols, rows).astype(dtype).T
        if layout == "strided":
            return rng.randn(rows, 2 * cols).astype(dtype)[:, ::2]
        return rng.randn(rows, cols).astype(dtype)
    a, b = operand(m, k, layouts[0]), operand(k, n, layouts[1])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(blas, "NUMPY_GEMM_WORK", 0)
        patch.setattr(blas, "MIN_SPLIT_WORK", 0)
        got = blas.matmul(a, b)
    tol = 1e-5 if dtype == "float32" else 1e-12
    assert got.dtype == dtype
    np.testing.assert_allclose(got, a @ b, rtol=tol, atol=tol * k)


def test_team_matmul_leaves_other_operands_to_numpy():
    """Integers, mixed dtypes, batches and vectors are numpy's @ (its errors too)."""
    ints = np.arange(6).reshape(2, 3)
    np.testing.assert_array_equal(blas.matmul(ints, ints.T), ints @ ints.T)
    mixed = blas.matmul(np.ones((2, 3), np.float32), np.ones((3, 2)))
    assert mixed.dtype == np.float64 and (mixed == 3).all()
    np.testing.assert_array_equal(blas.matmul(np.ones((2, 2, 3)), np.ones(3)),
                                  np.full((2, 2), 3.0))
    with pytest.raises(ValueError, match="mismatch"):
        blas.matmul(np.ones((2, 3), np.float32), np.ones((2, 3), np.float32))


def _conv_and_mul(seed):
    """One conv2d forward + backward and one mul forward + backward, large enough to split."""
    conv_f, conv_b = load_kernel("im2col:conv2d_forward"), load_kernel("im2col:conv2d_backward")
    mul_f, mul_b = load_kernel("matmul:mul_forward"), load_kernel("matmul:mul_backward")
    rng = np.random.RandomState(seed)
    x, f = rng.randn(8, 6, 14, 14).astype("float32"), rng.randn(16, 6, 5, 5).astype("float32")
    y = conv_f(x, f)
    dx, df = conv_b(x, f, np.ones_like(y))
    a, w = rng.randn(64, 300).astype("float32"), rng.randn(300, 200).astype("float32")
    out = mul_f(a, w)
    da, dw = mul_b(a, w, np.ones_like(out))
    return y, dx, df, out, da, dw


def test_kernels_restore_blas_threads_and_agree_when_run_concurrently():
    """Kernels hold numpy's OpenBLAS at one thread while they run and restore it after;
    run from several Python threads at once (one holds the team, the others run on their
    own thread), each result is bit-identical to the one computed alone, because the work
    is split by shape, not by which threads are free."""
    before = blas.blas_threads()
    alone = [_conv_and_mul(seed) for seed in range(6)]
    assert blas.blas_threads() == before
    with ThreadPoolExecutor(3) as pool:
        together = list(pool.map(_conv_and_mul, range(6)))
    assert blas.blas_threads() == before
    for want, got in zip(alone, together):
        for w, g in zip(want, got):
            np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("need", [(True, True), (False, True), (True, False)])
@pytest.mark.parametrize("trans_x,trans_y", [(False, False), (False, True), (True, False)])
def test_matmul_v2_backward_makes_only_the_gradients_asked_for(need, trans_x, trans_y):
    """matmul_v2's compiled backward takes `need` (the kernel table's partial_grads): a
    Linear over a batch that needs no gradient skips the dX GEMM; what it makes equals
    the reference's."""
    from refimpl.dispatch import select_kernel
    from refimpl.ops.registry import get_op_def
    kernel = select_kernel("matmul_v2", "backward", {"trans_x": trans_x, "trans_y": trans_y},
                           "float64")
    assert kernel.compiled and "need" in kernel.keywords
    rng = np.random.RandomState(0)
    x = rng.randn(*((7, 5) if trans_x else (5, 7)))
    y = rng.randn(*((3, 7) if trans_y else (7, 3)))
    dout = rng.randn(5, 3)
    want = get_op_def("matmul_v2").backward(x, y, dout, trans_x=trans_x, trans_y=trans_y)
    got = kernel.fn(x, y, dout, trans_x=trans_x, trans_y=trans_y, need=need)
    for asked, g, w in zip(need, got, want):
        if asked:
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
        else:
            assert g is None


@settings(max_examples=60, deadline=None)
@given(batch=st.sampled_from([(1,), (3,), (2, 3)]), m=st.integers(1, 12),
       n=st.integers(1, 12), k=st.integers(0, 12),
       trans=st.tuples(st.booleans(), st.booleans()),
       layouts=st.tuples(*[st.sampled_from(["c", "transposed", "strided", "heads"])] * 2),
       alpha=st.sampled_from([1.0, 0.125, -1.5]), dtype=st.sampled_from(["float32", "float64"]),
       seed=st.integers(0, 2 ** 31 - 1))
def test_batched_matmul_matches_the_reference(batch, m, n, k, trans, layouts, alpha, dtype,
                                              seed):
    """matmul_v2's and matmul's compiled kernels on stacks of one batch shape (attention):
    one GEMM per matrix, the batch split over the team (thresholds put to 0). Operands in
    any layout: C-contiguous, a transposed view and a head-transposed view (read in place
    with their strides), a strided view (copied); forward and both gradients."""
    from refimpl.dispatch import select_kernel
    from refimpl.ops.registry import get_op_def
    rng = np.random.RandomState(seed)

    def operand(rows, cols, layout):
        if layout == "transposed":
            return np.swapaxes(rng.randn(*batch, cols, rows), -1, -2).astype(dtype)[...]
        if layout == "strided":
            return rng.randn(*batch, rows, 2 * cols).astype(dtype)[..., ::2]
        if layout == "heads":   # [..., rows, cols] read out of [..., rows, b_last, cols]
            return np.moveaxis(rng.randn(*batch[:-1], rows, batch[-1], cols).astype(dtype),
                               -2, -3)
        return rng.randn(*batch, rows, cols).astype(dtype)
    tx, ty = trans
    x = operand(*((k, m) if tx else (m, k)), layouts[0])
    y = operand(*((n, k) if ty else (k, n)), layouts[1])
    dout = rng.randn(*batch, m, n).astype(dtype)
    tol = 1e-5 if dtype == "float32" else 1e-12
    cases = [("matmul", {"transpose_X": tx, "transpose_Y": ty, "alpha": alpha,
                         "head_number": 1})]
    if alpha == 1.0:
        cases.append(("matmul_v2", {"trans_x": tx, "trans_y": ty}))
    for op_type, attrs in cases:
        op = get_op_def(op_type)
        want = [op.forward(x, y, **attrs)] + list(op.backward(x, y, dout, **attrs))
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(blas, "NUMPY_GEMM_WORK", 0)
            patch.setattr(blas, "MIN_SPLIT_WORK", 0)
            forward = select_kernel(op_type, "forward", attrs, dtype)
            backward = select_kernel(op_type, "backward", attrs, dtype)
            assert forward.compiled and backward.compiled
            got = [forward.fn(x, y, **attrs)] + list(backward.fn(x, y, dout, **attrs))
        for g, w in zip(got, want):
            assert g.shape == w.shape and g.dtype == w.dtype
            np.testing.assert_allclose(g, w, rtol=tol, atol=tol * max(k, m, n, 1) * 2)


@settings(max_examples=40, deadline=None)
@given(batch=st.lists(st.integers(1, 4), min_size=0, max_size=2), m=st.integers(1, 9),
       k=st.integers(1, 9), n=st.integers(1, 9), trans_y=st.booleans(),
       dtype=st.sampled_from(["float32", "float64"]), seed=st.integers(0, 2 ** 31 - 1))
def test_fluid_matmul_kernel_of_a_linear_equals_the_reference(batch, m, k, n, trans_y, dtype,
                                                              seed):
    """fluid's matmul of x [..., M, K] and a 2-D y (Paddle 2.0's nn.Linear, switch linear_op)
    takes matmul_v2's GEMM: values and both gradients as the op's numpy reference."""
    from refimpl.ops.matmul import Matmul
    rng = np.random.RandomState(seed)
    x = rng.randn(*(batch + [m, k])).astype(dtype)
    y = rng.randn(*((n, k) if trans_y else (k, n))).astype(dtype)
    dout = rng.randn(*(batch + [m, n])).astype(dtype)
    forward = load_kernel("matmul:matmul_forward")(Matmul.forward)
    backward = load_kernel("matmul:matmul_backward")(Matmul.backward)
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == "float32" else dict(rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(forward(x, y, False, trans_y), Matmul.forward(x, y, False, trans_y),
                               **tol)
    for got, want in zip(backward(x, y, dout, False, trans_y),
                         Matmul.backward(x, y, dout, False, trans_y)):
        np.testing.assert_allclose(got, want, **tol)
