"""Matrix decompositions of Paddle 3's paddle.linalg (3.3.1's names and signatures): qr,
svd, svdvals, eig, eigvals, eigh, eigvalsh, lstsq, matrix_rank (one op each,
ops/decompositions.py), and what 3.3.1 composes from them in Python: pinv,
householder_product, ormqr, svd_lowrank, pca_lowrank."""

from ..framework.dtypes import COMPLEX_OF
from ..framework.errors import LayerAssertionError
from ..framework.program import Variable
from . import creation, math
from .common import append_op_out, append_op_outputs, check_variable
from .introspection import conj
from .manipulation import eye, tril
from .reshaping import matrix_transpose
from .tensor import unsqueeze, where


_math = math.EXPORTS["paddle"]


def _outputs(op_type, x, slots, attrs, layer=None):
    check_variable(x, "x", layer or op_type)
    return append_op_outputs(op_type, {"X": x}, [(s, x.dtype, False) for s in slots], attrs)


def qr(x, mode="reduced", name=None):
    """(Q, R) of x = Q R (mode "reduced" or "complete"); R alone for mode "r"."""
    q, r = _outputs("qr", x, ("Q", "R"), {"mode": mode})
    return r if mode == "r" else (q, r)


def svd(x, full_matrices=False, name=None):
    """(U, S, VH) of x = U diag(S) VH."""
    return tuple(_outputs("svd", x, ("U", "S", "VH"), {"full_matrices": bool(full_matrices)}))


def svdvals(x, name=None):
    """The singular values of each matrix, descending."""
    return svd(x)[1]


def eigh(x, UPLO="L", name=None):
    """(eigenvalues ascending, eigenvectors as columns) of the symmetric matrices whose
    UPLO triangle x holds."""
    if UPLO not in ("L", "U"):
        raise ValueError("eigh: UPLO must be 'L' or 'U', got %r" % (UPLO,))
    return tuple(_outputs("eigh", x, ("Eigenvalues", "Eigenvectors"), {"UPLO": UPLO}))


def eigvalsh(x, UPLO="L", name=None):
    """The eigenvalues (ascending) of symmetric matrices (x's UPLO triangle)."""
    if UPLO not in ("L", "U"):
        raise ValueError("eigvalsh: UPLO must be 'L' or 'U', got %r" % (UPLO,))
    values, vectors = _outputs("eigvalsh", x, ("Eigenvalues", "Eigenvectors"),
                               {"UPLO": UPLO, "is_test": False})
    vectors.stop_gradient = True
    return values


def eig(x, name=None):
    """(eigenvalues, eigenvectors) of general square matrices, complex."""
    check_variable(x, "x", "eig")
    dtype = COMPLEX_OF.get(x.dtype.name, x.dtype.name)
    return tuple(append_op_outputs("eig", {"X": x}, [("Eigenvalues", dtype, True),
                                                     ("Eigenvectors", dtype, True)]))


def eigvals(x, name=None):
    """The eigenvalues of general square matrices, complex."""
    check_variable(x, "x", "eigvals")
    return append_op_out("eigvals", {"X": [x]}, {}, name, out_dtype=COMPLEX_OF.get(x.dtype.name, x.dtype.name),
                         stop_gradient=True)


def lstsq(x, y, rcond=None, driver=None, name=None):
    """(solution, residuals, rank, singular_values) of the least-squares x @ solution = y;
    driver (CPU: gels, gelsy (default), gelsd, gelss) decides which of the last three are
    given (the others are empty)."""
    check_variable(x, "x", "lstsq")
    check_variable(y, "y", "lstsq")
    if driver is None:
        driver = "gelsy"
    if driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise ValueError("lstsq: only 'gels', 'gelsy', 'gelsd' and 'gelss' are valid drivers "
                         "on the CPU, got %r" % (driver,))
    return tuple(append_op_outputs(
        "lstsq", {"X": x, "Y": y},
        [("Solution", x.dtype, False), ("Residuals", x.dtype, True), ("Rank", "int32", True),
         ("SingularValues", x.dtype, True)],
        {"rcond": -1.0 if rcond is None else float(rcond), "driver": driver}))


def matrix_rank(x, tol=None, hermitian=False, atol=None, rtol=None, name=None):
    """The number of singular values (|eigenvalues| with hermitian) above the tolerance:
    tol (a number or a tensor), else max(atol, rtol * the largest) (atol alone: rtol 0),
    else eps * max(m, n) * the largest. int64, shape x.shape[:-2]."""
    check_variable(x, "x", "matrix_rank")
    attrs = {"hermitian": bool(hermitian), "use_default_tol": False, "tol": 0.0}
    inputs = {"X": [x]}
    if tol is not None and (atol is not None or rtol is not None):
        raise ValueError("matrix_rank: give tol, or atol / rtol, not both")
    if atol is not None or rtol is not None:
        values = _math["abs"](eigvalsh(x)) if hermitian else svdvals(x)
        top = _math["max"](values, axis=-1)
        scaled = top * (0.0 if rtol is None else rtol)
        tol = (_math["maximum"](atol, scaled) if isinstance(atol, Variable) else
               _math["clip"](scaled, min=float(atol or 0.0)))
    if tol is None:
        attrs["use_default_tol"] = True
    elif isinstance(tol, (int, float)):
        attrs["tol"] = float(tol)
    else:
        inputs["TolTensor"] = [tol]
    return append_op_out("matrix_rank", inputs, attrs, name, out_dtype="int64",
                         stop_gradient=True)


def pinv(x, rcond=1e-15, hermitian=False, name=None):
    """The pseudo-inverse: V diag(1/s) U^T over the singular values above rcond times the
    largest (with hermitian from eigh, |eigenvalues|), as 3.3.1 composes it."""
    check_variable(x, "x", "pinv")
    if hermitian:
        values, u = eigh(x)
        v, magnitude = u, _math["abs"](values)
    else:
        u, values, vh = svd(x)
        v, magnitude = matrix_transpose(vh), values
    cutoff = _math["max"](magnitude, axis=-1, keepdim=True) * rcond
    kept = _math["greater_than"](magnitude, cutoff)
    inverted = where(kept, _math["divide"](creation.ones_like(values), values),
                     creation.zeros_like(values))
    return math.matmul(_math["multiply"](v, unsqueeze(inverted, [-2])), _adjoint(u), name=name)


def _reflectors(x, tau):
    """The full Q [.., m, m] = H_0 H_1 ... H_{k-1}, H_i = I - tau_i v_i v_i^H, v_i the
    i-th column of x below the diagonal with a 1 on it (LAPACK's geqrf layout)."""
    m, k = x.shape[-2], tau.shape[-1]
    vectors = _math["add"](tril(x[..., :, :k], -1), eye(m, k, dtype=x.dtype))
    q = None
    for i in range(k):
        v = vectors[..., :, i:i + 1]
        step = _math["subtract"](eye(m, dtype=x.dtype),
                                 _math["multiply"](unsqueeze(tau[..., i:i + 1], [-1]),
                                                   _math["matmul"](v, _adjoint(v))))
        q = step if q is None else _math["matmul"](q, step)
    return q


def _adjoint(v):
    """v's conjugate transpose (its transpose when real)."""
    return matrix_transpose(conj(v) if v.dtype.name in COMPLEX_OF.values() else v)


def _check_reflectors(layer, x, tau):
    """x [*, m, n] (m >= n) and tau [*, k] (k <= n) of one batch *, float or complex:
    3.3.1's checks, its assertions as AssertionError (LayerAssertionError, a ValueError
    in refimpl's terms) and its TypeError."""
    check_variable(x, "x", layer)
    check_variable(tau, "tau", layer)
    for arg, v in (("x", x), ("tau", tau)):
        if v.dtype.name not in ("float32", "float64", "complex64", "complex128"):
            raise TypeError("%s: %s must be float32, float64, complex64 or complex128, got %s"
                            % (layer, arg, v.dtype.name))
    xs, ts = list(x.shape), list(tau.shape)
    if len(xs) < 2 or len(ts) < 1 or len(xs) != len(ts) + 1 or xs[:-2] != ts[:-1] \
            or xs[-2] < xs[-1] or ts[-1] > xs[-1]:
        raise LayerAssertionError(
            "%s: x must be [*, m, n] with m >= n and tau [*, k] with k <= n, the same *; got "
            "x %s and tau %s" % (layer, xs, ts))


def householder_product(x, tau, name=None):
    """The first n columns of the product of the Householder reflectors x and tau hold
    (as geqrf leaves them): x [*, m, n] (m >= n), tau [*, k] (k <= n)."""
    _check_reflectors("householder_product", x, tau)
    return _reflectors(x, tau)[..., :, :x.shape[-1]]


def ormqr(x, tau, y, left=True, transpose=False, name=None):
    """Q @ y (left) or y @ Q, Q^T with transpose, for the Q of the reflectors x and tau
    hold (householder_product's, all m columns)."""
    _check_reflectors("ormqr", x, tau)
    check_variable(y, "y", "ormqr")
    q = _reflectors(x, tau)
    if transpose:
        q = matrix_transpose(q)
    return math.matmul(q, y, name=name) if left else math.matmul(y, q, name=name)


def svd_lowrank(x, q=None, niter=2, M=None, name=None):
    """(U, S, V) of a rank-q approximation of x - M by randomized subspace iteration
    (Halko et al.; q default min(6, m, n)): exact up to the signs of U and V when q is
    x's rank."""
    check_variable(x, "x", "svd_lowrank")
    m, n = x.shape[-2:]
    q = min(6, m, n) if q is None else q
    a = x if M is None else _math["subtract"](x, M)
    probe = creation.randn(list(a.shape[:-2]) + [n, q], a.dtype)
    basis = qr(math.matmul(a, probe))[0]
    for _ in range(niter):
        basis = qr(math.matmul(matrix_transpose(a), basis))[0]
        basis = qr(math.matmul(a, basis))[0]
    u, s, vh = svd(math.matmul(matrix_transpose(basis), a))
    return math.matmul(basis, u), s, matrix_transpose(vh)


def pca_lowrank(x, q=None, center=True, niter=2, name=None):
    """svd_lowrank of x with its column means taken away (center)."""
    check_variable(x, "x", "pca_lowrank")
    if center:
        x = _math["subtract"](x, math.mean(x, axis=-2, keepdim=True))
    return svd_lowrank(x, q, niter)


EXPORTS = {
    "linalg": {"qr": qr, "svd": svd, "svdvals": svdvals, "eig": eig, "eigvals": eigvals,
               "eigh": eigh, "eigvalsh": eigvalsh, "lstsq": lstsq, "matrix_rank": matrix_rank,
               "pinv": pinv, "householder_product": householder_product,
               "ormqr": ormqr, "svd_lowrank": svd_lowrank, "pca_lowrank": pca_lowrank},
    "paddle": {"eigvalsh": eigvalsh},
}
