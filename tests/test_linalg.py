"""paddle.linalg (Paddle 3) and its neighbours (einsum, tensordot, inner, outer, renorm,
complex views, polar, angle): values, shapes, dtypes and gradients against Paddle 3.3.1's
(recorded: tests/fixtures/linalg_paddle331.json, made by running this file's CASES under
3.3.1, `/opt/paddle311/bin/python tests/test_linalg.py OUT.json`), finite differences,
static == dynamic, and the errors of bad input."""
import json
import os
import sys

import numpy as np
import pytest

A = np.array([[2.0, 0.5, -0.3], [0.4, 1.5, 0.2], [-0.1, 0.3, 1.8]])
S = A + A.T
B = np.array([[0.7, -1.2], [0.3, 0.5], [-0.4, 0.9]])
L = np.linalg.cholesky(S)
pytestmark = [pytest.mark.paddle("3"), pytest.mark.usefixtures("dygraph")]
FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "linalg_paddle331.json")


def weights(shape):
    """The fixed cotangent each output is weighted by in the recorded losses."""
    return np.cos(np.arange(int(np.prod(shape))).reshape(shape) + 0.5)


def cases(paddle):
    """{name: (function of tensors, inputs)}: `paddle` is Paddle 3.3.1 when recording,
    refimpl in the tests."""
    la = paddle.linalg
    return {
        "det": (la.det, [A]),
        "slogdet": (la.slogdet, [A]),
        "inv": (la.inv, [A]),
        "solve": (la.solve, [A, B]),
        "solve_right": (lambda a, b: la.solve(a, b, left=False), [A, B.T]),
        "triangular_solve": (lambda a, b: la.triangular_solve(a, b, upper=False, transpose=True),
                             [A, B]),
        "cholesky_solve": (la.cholesky_solve, [B, L]),
        "cholesky_inverse": (la.cholesky_inverse, [L]),
        "qr": (la.qr, [A[:, :2]]),
        "qr_wide": (la.qr, [A[:2]]),
        "svd": (la.svd, [A[:, :2]]),
        "svdvals": (la.svdvals, [A]),
        "eigh": (la.eigh, [S]),
        "eigvalsh": (lambda a: la.eigvalsh(a, "U"), [S]),
        "pinv": (la.pinv, [A[:, :2]]),
        "matrix_power": (lambda a: la.matrix_power(a, 3), [A]),
        "matrix_power_neg": (lambda a: la.matrix_power(a, -2), [A]),
        "multi_dot": (lambda a, b, c: la.multi_dot([a, b, c]), [A[0], A, B]),
        "norm": (la.norm, [A]),
        "norm_nuc": (lambda a: la.norm(a, "nuc"), [A]),
        "norm_2": (lambda a: la.norm(a, 2, axis=[0, 1]), [A]),
        "norm_inf": (lambda a: la.matrix_norm(a, float("inf")), [A]),
        "norm_m1": (lambda a: la.matrix_norm(a, -1, keepdim=True), [A]),
        "norm_m1_untied": (lambda a: la.matrix_norm(a, -1, keepdim=True),
                           [A + np.diag([0, 0, 0.1])]),
        "vector_norm": (lambda a: la.vector_norm(a, 3, axis=[0, 1]), [A]),
        "vector_norm_axis": (lambda a: la.vector_norm(a, 1, axis=-1, keepdim=True), [A]),
        "cond": (la.cond, [A]),
        "cond_fro": (lambda a: la.cond(a, "fro"), [A]),
        "einsum": (lambda a, b: paddle.einsum("ij,jk->ik", a, b), [A, B]),
        "einsum_trace": (lambda a: paddle.einsum("ii", a), [A]),
        "einsum_batch": (lambda a, b: paddle.einsum("...ij,...j->...i", a, b),
                         [np.stack([A, S]), B.T]),
        "tensordot": (lambda a, b: paddle.tensordot(a, b, axes=[[0], [0]]), [A, B]),
        "inner": (paddle.inner, [A, B.T]),
        "outer": (paddle.outer, [A[0], B[:, 0]]),
        "lu": (lambda a: la.lu(a)[0], [A]),
        "lu_unpack": (lambda a: la.lu_unpack(*la.lu(a))[1:], [A]),
        "renorm": (lambda a: paddle.renorm(a, 2.0, 1, 1.5), [A]),
        "matrix_exp": (la.matrix_exp, [A]),
        "householder_product": (la.householder_product, [A, np.array([1.2, 0.4])]),
        "matrix_rank": (la.matrix_rank, [A]),
        "lstsq": (lambda a, b: la.lstsq(a, b, driver="gelsd"),
                  [np.vstack([A, A[:1] * 0.5]), np.vstack([B, B[:1]])]),
        "eig": (la.eig, [A]),
        "polar": (lambda a, b: paddle.as_real(paddle.polar(a, b)), [A, B[:, :1] * np.ones((3, 3))]),
        "angle": (paddle.angle, [A - 1]),
        "as_complex": (lambda a: paddle.as_real(paddle.as_complex(a) * paddle.as_complex(a)),
                       [B[:, :2]]),
    }


# the cases whose gradient is not compared: integer or complex results, lu's (3.3.1's
# lu_grad is compared through lu_unpack), householder_product (3.3.1's backward fails on
# an in-place version check)
NO_GRAD = ("eig", "matrix_rank", "lstsq", "lu", "householder_product")
# 3.3.1 splits a tied minimum's gradient evenly, refimpl's reduce_min gives it to each
# (column sums 2.3 and 2.3 here): the values agree, the gradient is compared untied
TIED = ("norm_m1",)


def run(paddle, name):
    """(results as arrays, gradients of sum(result * weights) as arrays or None)."""
    f, args = cases(paddle)[name]
    tensors = [paddle.to_tensor(a, stop_gradient=False) for a in args]
    results = f(*tensors)
    results = list(results) if isinstance(results, (list, tuple)) else [results]
    grads = None
    if name not in NO_GRAD:
        loss = 0
        for r in results:
            if r.dtype in (paddle.float32, paddle.float64) and not r.stop_gradient:
                loss = loss + (r * paddle.to_tensor(weights(r.shape))).sum()
        loss.backward()
        grads = [t.gradient() for t in tensors]
    return results, grads


def record(path):
    import paddle
    paddle.set_default_dtype("float64")
    out = {}
    for name in cases(paddle):
        results, grads = run(paddle, name)
        values = [r.numpy() for r in results]
        out[name] = {"values": [[v.real.tolist(), v.imag.tolist()] if v.dtype.kind == "c"
                                else v.tolist() for v in values],
                     "shapes": [list(v.shape) for v in values],
                     "dtypes": [str(r.dtype) for r in results]}
        if grads is not None:
            out[name]["grads"] = [None if g is None else g.tolist() for g in grads]
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"))


@pytest.fixture(scope="module")
def recorded():
    with open(FIXTURE) as f:
        return json.load(f)


@pytest.mark.parametrize("name", sorted(cases(__import__("refimpl"))))
def test_values_and_gradients_are_paddle_331s(name, recorded):
    import refimpl as paddle
    expected = recorded[name]
    results, grads = run(paddle, name)
    assert [list(r.shape) for r in results] == expected["shapes"]
    assert [str(r.dtype) for r in results] == expected["dtypes"]
    for r, want in zip(results, expected["values"]):
        got = r.numpy()
        if got.dtype.kind == "c":
            got = [got.real, got.imag]
        np.testing.assert_allclose(np.asarray(got, float), np.asarray(want, float),
                                   rtol=1e-9, atol=1e-10)
    if name in TIED:
        return
    assert (grads is None) == ("grads" not in expected)
    for g, want in zip(grads or [], expected.get("grads", [])):
        assert (g is None) == (want is None)
        if g is not None:
            np.testing.assert_allclose(g, want, rtol=1e-8, atol=1e-9)


def _finite_difference(f, a, eps=1e-6):
    g = np.zeros_like(a)
    for i in np.ndindex(*a.shape):
        d = np.zeros_like(a)
        d[i] = eps
        g[i] = (f(a + d) - f(a - d)) / (2 * eps)
    return g


@pytest.mark.parametrize("name", ["pinv", "cond", "cond_fro", "norm_nuc", "norm_2",
                                  "householder_product", "matrix_exp", "svdvals", "lu_unpack",
                                  "polar", "einsum_batch", "tensordot", "renorm"])
def test_gradients_match_finite_differences(name):
    """The composed functions' (and a few ops') gradients of sum(result * weights) with
    respect to the first input, against central differences of refimpl's values."""
    import refimpl as paddle
    f, args = cases(paddle)[name]

    def loss(a):
        with paddle.no_grad():
            results = f(*[paddle.to_tensor(v) for v in [a] + args[1:]])
        results = results if isinstance(results, (list, tuple)) else [results]
        return sum(float(np.sum(r.numpy() * weights(r.shape))) for r in results
                   if r.dtype == paddle.float64)
    x = paddle.to_tensor(args[0], stop_gradient=False)
    results = f(x, *[paddle.to_tensor(v) for v in args[1:]])
    results = results if isinstance(results, (list, tuple)) else [results]
    sum((r * paddle.to_tensor(weights(r.shape))).sum() for r in results
        if r.dtype == paddle.float64).backward()
    np.testing.assert_allclose(x.gradient(), _finite_difference(loss, args[0]),
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_gradient_is_the_symmetric_one(uplo):
    """eigh reads one triangle; its gradient (3.3.1's) is the one with respect to the
    symmetric matrix: perturbing a_ij and a_ji together moves the loss by 2 g_ij."""
    import refimpl as paddle
    x = paddle.to_tensor(S, stop_gradient=False)
    w, v = paddle.linalg.eigh(x, uplo)
    ((w * paddle.to_tensor(weights(3))).sum() + (v * paddle.to_tensor(weights((3, 3)))).sum()
     ).backward()

    def loss(a):    # refimpl's eigenvectors are numpy's (LAPACK's), signs included
        w, v = np.linalg.eigh(a, uplo)
        return np.sum(w * weights(3)) + np.sum(v * weights((3, 3)))
    fd = np.zeros_like(S)
    for i in range(3):
        for j in range(3):
            d = np.zeros_like(S)
            d[i, j] = d[j, i] = 1e-6
            fd[i, j] = (loss(S + d) - loss(S - d)) / 2e-6 / (1 if i == j else 2)
    np.testing.assert_allclose(x.gradient(), fd, rtol=1e-5, atol=1e-6)


def test_static_program_equals_dynamic():
    import refimpl as paddle
    la = paddle.linalg

    def build(x):
        return [la.det(x), la.slogdet(x), la.solve(x, x), la.qr(x)[1], la.svd(x)[1],
                la.eigh(x + paddle.t(x))[0], la.pinv(x), la.cond(x), la.norm(x, "nuc"),
                la.matrix_power(x, -2), la.multi_dot([x, x, x]), paddle.einsum("ij,jk", x, x),
                paddle.tensordot(x, x, 1), la.lu(x)[0], la.matrix_exp(x), la.matrix_rank(x),
                la.lstsq(x, x)[0], paddle.renorm(x, 2.0, 0, 1.0), la.vector_norm(x, 3),
                la.cholesky_inverse(x), la.eigvals(x)]

    def loss(outs, x):
        return paddle.add_n([paddle.sum(o) for o in outs if o.dtype == x.dtype
                             and not o.stop_gradient])
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [3, 3], "float64")
            x.stop_gradient = False
            outs = build(x)
            grad, = paddle.static.gradients([loss(outs, x)], [x])
        fetched = paddle.static.Executor(paddle.CPUPlace()).run(
            main, feed={"x": A}, fetch_list=outs + [grad])
    finally:
        paddle.disable_static()
    x = paddle.to_tensor(A, stop_gradient=False)
    outs = build(x)
    loss(outs, x).backward()
    for got, want in zip(fetched, [o.numpy() for o in outs] + [x.gradient()]):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_linalg_namespace_has_paddle_331s_names():
    import refimpl as paddle
    names = {"cholesky", "cholesky_inverse", "cholesky_solve", "cond", "cross", "det", "eig",
             "eigh", "eigvals", "eigvalsh", "householder_product", "inv", "lstsq", "lu",
             "lu_solve", "lu_unpack", "matmul", "matrix_exp", "matrix_norm", "matrix_power",
             "matrix_rank", "multi_dot", "norm", "ormqr", "pca_lowrank", "pinv", "qr",
             "slogdet", "solve", "svd", "svd_lowrank", "svdvals", "triangular_solve",
             "vector_norm"}
    assert names <= set(paddle.linalg.__all__)
    assert paddle.linalg.matmul is paddle.matmul and paddle.linalg.eigvalsh is paddle.eigvalsh
    x = paddle.to_tensor(A)
    np.testing.assert_allclose(x.slogdet().numpy(), np.linalg.slogdet(A))
    np.testing.assert_allclose(x.pinv().numpy(), np.linalg.pinv(A), atol=1e-12)
    np.testing.assert_allclose(x.tensordot(x, 1).numpy(), A @ A)


def test_lu_solve_ormqr_and_low_rank_against_numpy():
    import refimpl as paddle
    la = paddle.linalg
    x, b = paddle.to_tensor(A), paddle.to_tensor(B)
    lu, pivots = la.lu(x)
    np.testing.assert_allclose(la.lu_solve(b, lu, pivots).numpy(), np.linalg.solve(A, B))
    np.testing.assert_allclose(la.lu_solve(b, lu, pivots, "T").numpy(), np.linalg.solve(A.T, B))
    tau = paddle.to_tensor(np.array([1.2, 0.4]))
    q = la.householder_product(x, tau).numpy()
    full = np.eye(3)
    for i, t in enumerate([1.2, 0.4]):
        v = np.concatenate([np.zeros(i), [1.0], A[i + 1:, i]])
        full = full @ (np.eye(3) - t * np.outer(v, v))
    np.testing.assert_allclose(q, full)
    np.testing.assert_allclose(la.ormqr(x, tau, b, transpose=True).numpy(), full.T @ B)
    np.testing.assert_allclose(la.ormqr(x, tau, b.T, left=False).numpy(), B.T @ full)
    u, s, v = la.svd_lowrank(x, q=3)
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(A, compute_uv=False))
    np.testing.assert_allclose(u.numpy() @ np.diag(s.numpy()) @ v.numpy().T, A, atol=1e-12)
    u, s, v = la.pca_lowrank(x, q=3)
    centered = A - A.mean(0)
    np.testing.assert_allclose(u.numpy() @ np.diag(s.numpy()) @ v.numpy().T, centered,
                               atol=1e-12)


@pytest.mark.parametrize("driver, parts", [("gels", (1,)), ("gelsy", (2,)),
                                           ("gelss", (1, 2, 3))])
def test_lstsq_drivers_give_what_lapacks_do(driver, parts):
    """Which of residuals (1), rank (2), singular values (3) a driver gives (3.3.1
    measured, gels residuals only, gelsy rank only, gelsd / gelss all); the rest empty."""
    import refimpl as paddle
    x = paddle.to_tensor(np.vstack([A, A[:1] * 0.5]))
    y = paddle.to_tensor(np.vstack([B, B[:1]]))
    solution, residuals, rank, values = paddle.linalg.lstsq(x, y, driver=driver)
    want = np.linalg.lstsq(x.numpy(), y.numpy(), rcond=None)
    np.testing.assert_allclose(solution.numpy(), want[0])
    for i, part in ((1, residuals), (2, rank), (3, values)):
        assert (part.numpy().size > 0) == (i in parts)


def test_matrix_rank_tolerances():
    import refimpl as paddle
    x = paddle.to_tensor(np.diag([3.0, 1.0, 0.01]))
    rank = paddle.linalg.matrix_rank
    assert [int(rank(x).numpy()), int(rank(x, tol=0.5).numpy()),
            int(rank(x, atol=0.05).numpy()), int(rank(x, rtol=0.5).numpy()),
            int(rank(x, hermitian=True, tol=0.001).numpy())] == [3, 2, 2, 1, 3]
    assert rank(x).dtype == paddle.int64


def test_bad_input_gets_refimpls_errors():
    import refimpl as paddle
    la = paddle.linalg
    with pytest.raises(Exception, match=r"determinant.*square"):
        la.det(paddle.to_tensor(np.ones((2, 3))))
    with pytest.raises(Exception, match=r"solve.*3 rows against 2|solve.*rows"):
        la.solve(paddle.to_tensor(A), paddle.to_tensor(np.ones((2, 2))))
    with pytest.raises(TypeError, match="matrix_power: n must be an int"):
        la.matrix_power(paddle.to_tensor(A), 1.5)
    with pytest.raises(ValueError, match="lstsq: only"):
        la.lstsq(paddle.to_tensor(A), paddle.to_tensor(B), driver="gesv")
    with pytest.raises(ValueError, match=r"einsum.*Same label have different shapes"):
        paddle.einsum("ij,jk->ik", paddle.to_tensor(A), paddle.to_tensor(np.ones((2, 2))))
    with pytest.raises(ValueError, match="tensordot"):
        paddle.tensordot(paddle.to_tensor(A), paddle.to_tensor(B), [[0], [1]])
    with pytest.raises(ValueError, match="cond: p must be"):
        la.cond(paddle.to_tensor(A), 3)
    with pytest.raises(Exception, match="as_complex.*last dim of 2"):
        paddle.as_complex(paddle.to_tensor(A))


@pytest.mark.parametrize("version, spectral", [("2.0", False), ("3", True)])
def test_paddle_norm_by_profile(paddle_version, recorded, version, spectral):
    """paddle.norm of a number p over two axes: Paddle 2.0's vector norm of the elements,
    3.3.1's matrix norm (paddle.linalg.norm, which 3.3.1's paddle.norm is: 2 is the
    largest singular value, its recorded norm_2 case); p None is the Frobenius norm in
    both."""
    import refimpl as paddle
    with paddle_version(version):
        x = paddle.to_tensor(A)
        two = float(paddle.norm(x, 2, axis=[0, 1]).numpy())
        assert float(x.norm().numpy()) == pytest.approx(np.linalg.norm(A))
    assert two == pytest.approx(np.linalg.norm(A, 2) if spectral else np.linalg.norm(A))
    assert (two == pytest.approx(recorded["norm_2"]["values"][0])) == spectral


if __name__ == "__main__":
    record(sys.argv[1])
