"""Determinants, solves, factor-based inverses and matrix products of Paddle 3's
paddle.linalg (3.3.1's names and signatures): det, slogdet, inv, solve,
triangular_solve, cholesky_solve, cholesky_inverse, lu, lu_unpack, lu_solve,
matrix_power, multi_dot, matrix_exp. One op each where 3.3.1 runs one kernel
(ops/matrix_solve.py); cholesky_inverse and lu_solve are composed from them."""
from .common import append_op_out, append_op_outputs, check_variable
from .linalg import inverse
from .math import matmul
from .reshaping import matrix_transpose


def _one(op_type, x, attrs=None, name=None, slot="Input"):
    check_variable(x, "x", op_type)
    return append_op_out(op_type, {slot: [x]}, attrs or {}, name)


def det(x, name=None):
    """The determinant of each matrix of x [..., n, n]: shape x.shape[:-2]."""
    return _one("determinant", x, name=name)


def slogdet(x, name=None):
    """[sign, log|det|] of each matrix of x: shape [2] + x.shape[:-2]."""
    return _one("slogdeterminant", x, name=name)


def solve(x, y, left=True, name=None):
    """The solution of x @ out = y (left) or out @ x = y; y a batch of matrices or (left)
    a vector; batch dims broadcast."""
    check_variable(x, "x", "solve")
    check_variable(y, "y", "solve")
    if not left:
        return matrix_transpose(solve(matrix_transpose(x), matrix_transpose(y)))
    return append_op_out("solve", {"X": [x], "Y": [y]}, {}, name)


def triangular_solve(x, y, upper=True, transpose=False, unitriangular=False, name=None):
    """The solution of op(A) @ out = y for the upper / lower triangle A of x (unit
    diagonal with unitriangular), op(A) = A^T with transpose."""
    check_variable(x, "x", "triangular_solve")
    check_variable(y, "y", "triangular_solve")
    return append_op_out("triangular_solve", {"X": [x], "Y": [y]},
                         {"upper": bool(upper), "transpose": bool(transpose),
                          "unitriangular": bool(unitriangular)}, name)


def cholesky_solve(x, y, upper=False, name=None):
    """The solution of A @ out = x where y is A's Cholesky factor (lower: A = y y^T,
    upper: A = y^T y)."""
    check_variable(x, "x", "cholesky_solve")
    check_variable(y, "y", "cholesky_solve")
    return append_op_out("cholesky_solve", {"X": [x], "Y": [y]}, {"upper": bool(upper)}, name)


def cholesky_inverse(x, upper=False, name=None):
    """The inverse of A from its Cholesky factor x (3.3.1 composes it the same way:
    the product of the factors, then inverse)."""
    check_variable(x, "x", "cholesky_inverse")
    a = matmul(matrix_transpose(x), x) if upper else matmul(x, matrix_transpose(x))
    return inverse(a, name)


def lu(x, pivot=True, get_infos=False, name=None):
    """(LU, pivots) of x = P L U, L and U packed in one matrix, pivots getrf's 1-based
    int32 row interchanges; with get_infos also the int32 infos (0, or where U's diagonal
    is 0)."""
    check_variable(x, "x", "lu")
    out, pivots, infos = append_op_outputs(
        "lu", {"X": x}, [("Out", x.dtype, False), ("Pivots", "int32", True),
                         ("Infos", "int32", True)], {"pivots": bool(pivot)})
    return (out, pivots, infos) if get_infos else (out, pivots)


def lu_unpack(x, y, unpack_ludata=True, unpack_pivots=True, name=None):
    """(P, L, U) of x = P L U from lu's packed result x and pivots y."""
    check_variable(x, "x", "lu_unpack")
    check_variable(y, "y", "lu_unpack")
    return tuple(append_op_outputs(
        "lu_unpack", {"X": x, "Pivots": y},
        [("Pmat", x.dtype, True), ("L", x.dtype, False), ("U", x.dtype, False)],
        {"unpack_ludata": bool(unpack_ludata), "unpack_pivots": bool(unpack_pivots)}))


def lu_solve(b, lu, pivots, trans="N", name=None):
    """The solution of A @ out = b ('N') or A^T @ out = b ('T', 'C': real A) from A's
    lu(A) result, as the triangular solves of P L U."""
    if trans not in ("N", "T", "C"):
        raise ValueError("lu_solve: trans must be 'N', 'T' or 'C', got %r" % (trans,))
    p, lower, upper = lu_unpack(lu, pivots)
    if trans == "N":
        y = triangular_solve(lower, matmul(matrix_transpose(p), b), upper=False,
                             unitriangular=True)
        return triangular_solve(upper, y, upper=True, name=name)
    y = triangular_solve(upper, b, upper=True, transpose=True)
    y = triangular_solve(lower, y, upper=False, transpose=True, unitriangular=True)
    return matmul(p, y, name=name)


def matrix_power(x, n, name=None):
    """x^n of each square matrix (n < 0: of the inverse; 0: the identity)."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError("matrix_power: n must be an int, got %s %r" % (type(n).__name__, n))
    return _one("matrix_power", x, {"n": n}, name, slot="X")


def multi_dot(x, name=None):
    """x[0] @ x[1] @ ... of 2-D tensors (the first / last may be 1-D vectors)."""
    if not isinstance(x, (list, tuple)):
        raise TypeError("multi_dot: x must be a list or tuple of tensors, got %s"
                        % type(x).__name__)
    for i, v in enumerate(x):
        check_variable(v, "x[%d]" % i, "multi_dot")
    return append_op_out("multi_dot", {"X": list(x)}, {}, name)


def matrix_exp(x, name=None):
    """The matrix exponential of each square matrix of x."""
    return _one("matrix_exp", x, name=name, slot="X")


EXPORTS = {
    "linalg": {"det": det, "slogdet": slogdet, "inv": inverse, "solve": solve,
               "triangular_solve": triangular_solve, "cholesky_solve": cholesky_solve,
               "cholesky_inverse": cholesky_inverse, "lu": lu, "lu_unpack": lu_unpack,
               "lu_solve": lu_solve, "matrix_power": matrix_power, "multi_dot": multi_dot,
               "matrix_exp": matrix_exp}
}
