"""Matrix decompositions of Paddle 3's paddle.linalg: qr, svd, eigh, eigvalsh, eig,
eigvals, lstsq, matrix_rank. Batches of matrices [..., M, N]; the gradients of qr, svd
and eigh / eigvalsh are the standard adjoints of the reduced factorizations (real
inputs)."""
import numpy as np

from ..framework.dtypes import COMPLEX_OF, REAL_OF
from ._common import COMPLEX, broadcast_shape, rand
from .linalg_ops import _mT, _square_batches
from .matrix_solve import REAL, _batch_and_matrix
from .registry import OpDef, Sample, register


def _mH(a):
    """The conjugate transposes of a batch of matrices."""
    return np.conj(_mT(a))


def _diag(v):
    """Batched diagonal matrices of the vectors v [..., k]."""
    return v[..., :, None] * np.eye(v.shape[-1], dtype=v.dtype)


def _off_diagonal_reciprocal(values):
    """F[..., i, j] = 1 / (values_j - values_i) off the diagonal, 0 on it."""
    diff = values[..., None, :] - values[..., :, None]
    eye = np.eye(values.shape[-1], dtype=bool)
    return np.where(eye, 0, 1 / np.where(eye, 1, diff))


@register
class Qr(OpDef):
    """X = Q R: mode "reduced" (Q [.., m, k], R [.., k, n], k = min(m, n)), "complete"
    (Q [.., m, m], R [.., m, n]) or "r" (R only; Q empty, [0])."""
    type = "qr"
    inputs = ("X",)
    outputs = ("Q", "R")
    attrs = {"mode": "reduced"}
    grad_inputs = ("X", "Q", "R", "Q@GRAD", "R@GRAD")

    def infer_shape(self, ctx):
        batch, (m, n) = _batch_and_matrix(ctx, "X")
        mode = ctx.attr("mode")
        ctx.expect(mode in ("reduced", "complete", "r"), "attr mode must be 'reduced', "
                   "'complete' or 'r', got %r" % (mode,))
        ctx.check_dtype("X", REAL)
        k = m if mode == "complete" else min(m, n) if min(m, n) >= 0 else -1
        ctx.set_output("Q", [0] if mode == "r" else list(batch) + [m, k], ctx.input_dtype("X"))
        ctx.set_output("R", list(batch) + [k, n], ctx.input_dtype("X"))

    @staticmethod
    def forward(x, mode="reduced"):
        q, r = np.linalg.qr(x, mode="complete" if mode == "complete" else "reduced")
        return (np.zeros((0,), x.dtype) if mode == "r" else q.astype(x.dtype)), r.astype(x.dtype)

    @staticmethod
    def backward(x, q, r, dq, dr, mode="reduced"):
        m, n = x.shape[-2:]
        if mode == "complete" and m > n:
            raise ValueError("qr_grad: mode 'complete' of a tall X (%d x %d) has no "
                             "gradient, as in Paddle" % (m, n))
        if mode == "r":
            q, dq = np.linalg.qr(x)[0], None
        dq = np.zeros_like(q) if dq is None else dq
        dr = np.zeros_like(r) if dr is None else dr
        if m >= n:
            return _qr_square_grad(q, r, dq, dr)
        # wide X = Q [R1 R2]: X1 = Q R1 square, X2 = Q R2
        y, dr2 = x[..., m:], dr[..., m:]
        dx1 = _qr_square_grad(q, r[..., :m], dq + y @ _mT(dr2), dr[..., :m])
        return np.concatenate([dx1, q @ dr2], axis=-1)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 4, 3)})
        yield Sample({"X": rand(rng, 2, 3, 3)})
        yield Sample({"X": rand(rng, 2, 4)})
        yield Sample({"X": rand(rng, 3, 2)}, {"mode": "r"})
        yield Sample({"X": rand(rng, 2, 3)}, {"mode": "complete"})


def _qr_square_grad(q, r, dq, dr):
    """dX of X = Q R with Q [.., m, n], R [.., n, n] (m >= n)."""
    m = r @ _mT(dr) - _mT(dq) @ q
    lower = np.tril(m, -1)
    copyltu = lower + _mT(lower) + _diag(np.diagonal(m, axis1=-2, axis2=-1))
    b = dq + q @ copyltu
    # b R^-T, as the solve of R X^T = b^T
    return _mT(np.linalg.solve(r, _mT(b)))


@register
class Svd(OpDef):
    """X = U diag(S) VH; full_matrices: U [.., m, m], VH [.., n, n], else k = min(m, n)
    columns / rows."""
    type = "svd"
    inputs = ("X",)
    outputs = ("U", "S", "VH")
    attrs = {"full_matrices": False}
    grad_inputs = ("X", "U", "S", "VH", "U@GRAD", "S@GRAD", "VH@GRAD")
    tolerances = {"float32": (1e-3, 1e-4), "float64": (1e-7, 1e-9)}

    def infer_shape(self, ctx):
        batch, (m, n) = _batch_and_matrix(ctx, "X")
        ctx.check_dtype("X", REAL)
        k = min(m, n) if min(m, n) >= 0 else -1
        full = ctx.attr("full_matrices")
        ctx.set_output("U", list(batch) + [m, m if full else k], ctx.input_dtype("X"))
        ctx.set_output("S", list(batch) + [k], ctx.input_dtype("X"))
        ctx.set_output("VH", list(batch) + [n if full else k, n], ctx.input_dtype("X"))

    @staticmethod
    def forward(x, full_matrices=False):
        u, s, vh = np.linalg.svd(x, full_matrices=full_matrices)
        return u.astype(x.dtype), s.astype(x.dtype), vh.astype(x.dtype)

    @staticmethod
    def backward(x, u, s, vh, du, ds, dvh, full_matrices=False):
        k = s.shape[-1]
        # the reduced factors: a full U / VH's extra columns / rows carry no gradient here
        u, vh = u[..., :k], vh[..., :k, :]
        v = _mT(vh)
        f = _off_diagonal_reciprocal(s * s)
        inner = _diag(np.zeros_like(s) if ds is None else ds)
        dx = np.zeros_like(x)
        if du is not None:
            du = du[..., :k]
            utdu = _mT(u) @ du
            inner = inner + f * (utdu - _mT(utdu)) * s[..., None, :]
            dx = dx + (du - u @ utdu) / s[..., None, :] @ vh
        if dvh is not None:
            dv = _mT(dvh[..., :k, :])
            vtdv = _mT(v) @ dv
            inner = inner + s[..., :, None] * (f * (vtdv - _mT(vtdv)))
            dx = dx + u @ _mT((dv - v @ vtdv) / s[..., None, :])
        return dx + u @ inner @ vh

    def samples(self, rng):
        yield Sample({"X": rand(rng, 4, 3)})
        yield Sample({"X": rand(rng, 2, 2, 3)})
        yield Sample({"X": rand(rng, 3, 3)}, {"full_matrices": True})


def _symmetric_samples(rng):
    """eigh's inputs: symmetric, so each triangle holds the matrix. The generic
    finite-difference check perturbs one element, which moves one triangle only:
    tests/test_linalg.py checks these gradients with symmetric perturbations."""
    a = rand(rng, 3, 3)
    yield Sample({"X": a + a.T}, grad=False)
    b = rand(rng, 2, 4, 4)
    yield Sample({"X": b + _mT(b)}, {"UPLO": "U"}, grad=False)


class _Eigh(OpDef):
    """Eigenvalues (ascending, [.., n]) and Eigenvectors (columns, [.., n, n]) of the
    symmetric matrices whose UPLO triangle ("L" or "U") X holds."""
    inputs = ("X",)
    outputs = ("Eigenvalues", "Eigenvectors")
    attrs = {"UPLO": "L"}
    tolerances = {"float32": (1e-3, 1e-4), "float64": (1e-7, 1e-9)}

    def infer_shape(self, ctx):
        _square_batches(ctx, "X")
        ctx.check_dtype("X", REAL + COMPLEX)
        ctx.expect(ctx.attr("UPLO") in ("L", "U"), "attr UPLO must be 'L' or 'U', got %r"
                   % (ctx.attr("UPLO"),))
        shape, dtype = ctx.input_shape("X"), ctx.input_dtype("X")
        ctx.set_output("Eigenvalues", shape[:-1], REAL_OF.get(dtype, dtype))
        ctx.set_output("Eigenvectors", shape, dtype)

    @staticmethod
    def forward(x, UPLO="L", **_):
        w, v = np.linalg.eigh(x, UPLO=UPLO)
        return w.astype(x.real.dtype), v.astype(x.dtype)

    @staticmethod
    def backward(w, v, dw, dv, UPLO="L", **_):
        # dA = V (diag(dw) + F * skew(V^H dV)) V^H, F_ij = 1 / (w_j - w_i): Hermitian, as
        # 3.3.1's (the gradient with respect to the Hermitian matrix)
        inner = _diag(np.zeros_like(w) if dw is None else dw).astype(v.dtype)
        if dv is not None:
            vhdv = _mH(v) @ dv
            inner = inner + _off_diagonal_reciprocal(w) * (vhdv - _mH(vhdv)) / 2
        return v @ inner @ _mH(v)

    samples = staticmethod(_symmetric_samples)


@register
class Eigh(_Eigh):
    type = "eigh"
    grad_inputs = ("Eigenvalues", "Eigenvectors", "Eigenvalues@GRAD", "Eigenvectors@GRAD")


@register
class Eigvalsh(_Eigh):
    """eigh whose Eigenvectors only serve the gradient (is_test: not wanted)."""
    type = "eigvalsh"
    attrs = {"UPLO": "L", "is_test": False}
    grad_inputs = ("Eigenvalues", "Eigenvectors", "Eigenvalues@GRAD")

    @staticmethod
    def backward(w, v, dw, UPLO="L", is_test=False):
        return _Eigh.backward(w, v, dw, None)


@register
class Eig(OpDef):
    """Eigenvalues and right eigenvectors (unit columns) of general square matrices,
    complex (complex64 of float32)."""
    type = "eig"
    inputs = ("X",)
    outputs = ("Eigenvalues", "Eigenvectors")

    def infer_shape(self, ctx):
        _square_batches(ctx, "X")
        ctx.check_dtype("X", REAL + ("complex64", "complex128"))
        shape, dtype = ctx.input_shape("X"), ctx.input_dtype("X")
        dtype = COMPLEX_OF.get(dtype, dtype)
        ctx.set_output("Eigenvalues", shape[:-1], dtype)
        ctx.set_output("Eigenvectors", shape, dtype)

    @staticmethod
    def forward(x):
        dtype = np.result_type(x.dtype, np.complex64)
        w, v = np.linalg.eig(x)
        return w.astype(dtype), v.astype(dtype)

    def samples(self, rng):
        yield Sample({"X": np.diag([3.0, 1.0, -2.0]) + 0.1 * rand(rng, 3, 3)})


@register
class Eigvals(OpDef):
    """The eigenvalues of general square matrices, complex (eig's order)."""
    type = "eigvals"
    inputs = ("X",)
    outputs = ("Out",)

    def infer_shape(self, ctx):
        _square_batches(ctx, "X")
        ctx.check_dtype("X", REAL + ("complex64", "complex128"))
        dtype = ctx.input_dtype("X")
        ctx.set_output("Out", ctx.input_shape("X")[:-1], COMPLEX_OF.get(dtype, dtype))

    @staticmethod
    def forward(x):
        return np.linalg.eigvals(x).astype(np.result_type(x.dtype, np.complex64))

    samples = Eig.samples


def _rcond(rcond, x):
    """lstsq's and matrix_rank's cut of small singular values relative to the largest:
    rcond, or (a negative rcond) eps of x's dtype times max(m, n)."""
    return rcond if rcond >= 0 else np.finfo(x.dtype).eps * max(x.shape[-2:])


@register
class Lstsq(OpDef):
    """The least-squares Solution of X Solution = Y ([.., m, n] and [.., m, k]). The
    driver decides what else it gives, as LAPACK's: Rank (int32) for all but "gels";
    SingularValues for "gelsd" / "gelss"; Residuals (the squared residual norms) where
    m > n and X has full rank, for all but "gelsy". What a driver does not give is empty."""
    type = "lstsq"
    inputs = ("X", "Y")
    outputs = ("Solution", "Residuals", "Rank", "SingularValues")
    attrs = {"rcond": -1.0, "driver": "gelsy"}

    def infer_shape(self, ctx):
        (xb, (m, n)), (yb, (m2, k)) = (_batch_and_matrix(ctx, "X"), _batch_and_matrix(ctx, "Y"))
        ctx.check_dtype("X", REAL)
        ctx.check_same_dtype("X", "Y")
        ctx.expect(m < 0 or m2 < 0 or m == m2, "X %r has %d rows but Y %r has %d"
                   % (ctx.input_var("X").name, m, ctx.input_var("Y").name, m2))
        ctx.expect(ctx.attr("driver") in ("gels", "gelsy", "gelsd", "gelss"),
                   "attr driver must be one of gels, gelsy, gelsd, gelss, got %r"
                   % (ctx.attr("driver"),))
        dtype = ctx.input_dtype("X")
        ctx.set_output("Solution", list(xb) + [n, k], dtype)
        ctx.set_output("Residuals", [-1], dtype)
        ctx.set_output("Rank", [0] if ctx.attr("driver") == "gels" else list(xb), "int32")
        ctx.set_output("SingularValues", [-1], dtype)

    @staticmethod
    def forward(x, y, rcond=-1.0, driver="gelsy"):
        batch, (m, n), k = x.shape[:-2], x.shape[-2:], y.shape[-1]
        solution = np.empty(batch + (n, k), x.dtype)
        residuals = np.empty(batch + (k,), x.dtype)
        ranks = np.empty(batch, np.int32)
        values = np.empty(batch + (min(m, n),), x.dtype)
        full = True
        for i in np.ndindex(*batch):
            solution[i], res, ranks[i], values[i] = np.linalg.lstsq(
                x[i], y[i], rcond=_rcond(rcond, x))
            full = full and ranks[i] == n
            residuals[i] = res if res.size else 0
        empty = np.zeros((0,), x.dtype)
        return (solution,
                residuals if driver != "gelsy" and m > n and full else empty,
                ranks if driver != "gels" else np.zeros((0,), np.int32),
                values if driver in ("gelsd", "gelss") else empty)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 4, 3), "Y": rand(rng, 4, 2)}, {"driver": "gelsd"})
        yield Sample({"X": rand(rng, 2, 3, 3), "Y": rand(rng, 2, 3, 1)})


@register
class MatrixRank(OpDef):
    """The number of singular values (eigenvalues' magnitudes with hermitian) above the
    tolerance: TolTensor (broadcast with the batch: Out's shape is theirs) or tol, else
    (use_default_tol) eps times max(m, n) times the largest. int64, shape X.shape[:-2]."""
    type = "matrix_rank"
    inputs = ("X", "TolTensor?")
    outputs = ("Out",)
    attrs = {"tol": 0.0, "use_default_tol": True, "hermitian": False}

    def infer_shape(self, ctx):
        batch, _ = _batch_and_matrix(ctx, "X")
        ctx.check_dtype("X", REAL)
        if ctx.has_input("TolTensor"):
            batch = broadcast_shape(batch, ctx.input_shape("TolTensor"), ctx)
        ctx.set_output("Out", list(batch), "int64")

    @staticmethod
    def forward(x, tol_tensor=None, tol=0.0, use_default_tol=True, hermitian=False):
        s = np.abs(np.linalg.eigvalsh(x)) if hermitian else np.linalg.svd(x, compute_uv=False)
        top = s.max(-1, initial=0)
        if tol_tensor is not None:
            cut = tol_tensor
        elif use_default_tol:
            cut = _rcond(-1, x) * top
        else:
            cut = np.full_like(top, tol)
        return np.sum(s > cut[..., None], axis=-1).astype(np.int64)

    def samples(self, rng):
        a = rand(rng, 4, 2)
        yield Sample({"X": a @ rand(rng, 2, 3)})
        yield Sample({"X": rand(rng, 2, 3, 3)}, {"tol": 0.5, "use_default_tol": False})
        b = rand(rng, 3, 3)
        yield Sample({"X": b + b.T, "TolTensor": np.array([0.1])}, {"hermitian": True})
