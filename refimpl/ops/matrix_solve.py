"""Determinants, linear solves and matrix products of Paddle 3's paddle.linalg:
determinant, slogdeterminant, solve, triangular_solve, cholesky_solve, matrix_power,
multi_dot, lu, lu_unpack. Every op takes a batch of matrices [..., M, N]; gradients are
the adjoint formulas (d(A^-1) = -A^-1 dA A^-1 and its consequences)."""
import functools

import numpy as np

from ..broadcasting import sum_to_shape
from ._common import broadcast_shape, rand
from .linalg_ops import _dims_match, _mT, _square_batches, _well_conditioned
from .registry import OpDef, Sample, register

REAL = ("float32", "float64")


def _batch_and_matrix(ctx, slot):
    shape = ctx.input_shape(slot)
    ctx.expect(len(shape) >= 2, "%s %r must be a (batch of) matrices, got shape %s"
               % (slot, ctx.input_var(slot).name, list(shape)))
    return tuple(shape[:-2]), tuple(shape[-2:])


class _Determinants(OpDef):
    """One value per matrix of the square batch Input: Out is `lead` + Input.shape[:-2]."""
    inputs = ("Input",)
    outputs = ("Out",)
    lead = []

    def infer_shape(self, ctx):
        _square_batches(ctx, "Input")
        ctx.check_dtype("Input", REAL)
        ctx.set_output("Out", self.lead + list(ctx.input_shape("Input")[:-2]),
                       ctx.input_dtype("Input"))


@register
class Determinant(_Determinants):
    """Out = det(Input) per matrix: shape Input.shape[:-2]."""
    type = "determinant"
    grad_inputs = ("Input", "Out", "Out@GRAD")

    @staticmethod
    def forward(x):
        return np.asarray(np.linalg.det(x), x.dtype)

    @staticmethod
    def backward(x, out, dout):
        # d det(A) = det(A) tr(A^-1 dA); 0 for a singular A (as 3.3.1's kernel)
        singular = out == 0
        inverse = np.linalg.inv(np.where(singular[..., None, None], np.eye(x.shape[-1]), x))
        return np.where(singular, 0, dout * out)[..., None, None] * _mT(inverse)

    def samples(self, rng):
        yield Sample({"Input": _well_conditioned(rng, 3)})
        yield Sample({"Input": _well_conditioned(rng, 2, (2, 3))})


@register
class Slogdeterminant(_Determinants):
    """Out = [sign, log|det|] of each matrix: shape [2] + Input.shape[:-2]."""
    type = "slogdeterminant"
    grad_inputs = ("Input", "Out@GRAD")
    lead = [2]

    @staticmethod
    def forward(x):
        return np.stack(np.linalg.slogdet(x)).astype(x.dtype)

    @staticmethod
    def backward(x, dout):
        # only log|det| has a gradient: d log|det A| = tr(A^-1 dA)
        return dout[1][..., None, None] * _mT(np.linalg.inv(x))

    def samples(self, rng):
        yield Sample({"Input": _well_conditioned(rng, 3)})
        yield Sample({"Input": _well_conditioned(rng, 2, (2,)) - 3 * np.eye(2)})


def _as_matrix(b, vector):
    """b (Y, or an array of Out's shape) as a batch of column blocks: with a vector Y [n],
    one column [..., n, 1]."""
    return b[..., None] if vector else b


@register
class Solve(OpDef):
    """Out = X^-1 Y: X [..., n, n], Y [..., n, k] or a vector [n]; the batch dims
    broadcast."""
    type = "solve"
    inputs = ("X", "Y")
    outputs = ("Out",)
    grad_inputs = ("X", "Y", "Out", "Out@GRAD")

    def infer_shape(self, ctx):
        _square_batches(ctx, "X")
        ctx.check_dtype("X", REAL)
        ctx.check_dtype("Y", REAL)
        x, y = ctx.input_shape("X"), ctx.input_shape("Y")
        if len(y) == 1:
            ctx.expect(_dims_match(x[-1], y[0]), "Y %r of %d elements does not match X %r "
                       "of shape %s" % (ctx.input_var("Y").name, y[0], ctx.input_var("X").name,
                                        list(x)))
            shape = list(x[:-1])
        else:
            ctx.expect(_dims_match(x[-1], y[-2]), "X %r of shape %s cannot solve Y %r of "
                       "shape %s: %d rows against %d" % (ctx.input_var("X").name, list(x),
                                                          ctx.input_var("Y").name, list(y),
                                                          x[-1], y[-2]))
            shape = list(broadcast_shape(x[:-2], y[:-2], ctx)) + [x[-1], y[-1]]
        ctx.set_output("Out", shape, ctx.input_dtype("X"))

    @staticmethod
    def forward(x, y):
        out = np.linalg.solve(x, _as_matrix(y, y.ndim == 1))
        return (out[..., 0] if y.ndim == 1 else out).astype(x.dtype)

    @staticmethod
    def backward(x, y, out, dout):
        dy = np.linalg.solve(_mT(x), _as_matrix(dout, y.ndim == 1))
        dx = -dy @ _mT(_as_matrix(out, y.ndim == 1))
        return (sum_to_shape(dx, x.shape),
                sum_to_shape(dy[..., 0] if y.ndim == 1 else dy, y.shape))

    def samples(self, rng):
        yield Sample({"X": _well_conditioned(rng, 3), "Y": rand(rng, 3, 2)})
        yield Sample({"X": _well_conditioned(rng, 3, (2,)), "Y": rand(rng, 3)})
        yield Sample({"X": _well_conditioned(rng, 2, (2, 1)), "Y": rand(rng, 3, 2, 4)})


def _triangle(a, upper, unitriangular=False):
    t = np.triu(a) if upper else np.tril(a)
    if unitriangular:
        t = t - t * np.eye(a.shape[-1], dtype=a.dtype) + np.eye(a.shape[-1], dtype=a.dtype)
    return t


def triangular_solve(t, b, lower):
    """t^-1 b for triangular matrices t [.., n, n] (lower or upper) by substitution, as
    LAPACK's trtrs (a general solve's pivoting loses digits on ill-conditioned factors);
    batch dims broadcast."""
    n = t.shape[-1]
    batch = np.broadcast_shapes(t.shape[:-2], b.shape[:-2])
    x = np.zeros(batch + b.shape[-2:], np.result_type(t, b))
    for i in range(n) if lower else range(n - 1, -1, -1):
        # the rows of x not solved yet are 0
        done = np.einsum("...j,...jk->...k", t[..., i, :], x)
        x[..., i, :] = (b[..., i, :] - done) / t[..., i, i, None]
    return x


def _solve_shape(ctx):
    """[batch..., n, k] of a solve of Y [..., n, k] by the square X [..., n, n]."""
    _square_batches(ctx, "X")
    (xb, (n, _)), (yb, (n2, k)) = (_batch_and_matrix(ctx, "X"), _batch_and_matrix(ctx, "Y"))
    ctx.expect(_dims_match(n, n2), "X %r is [%d, %d] but Y %r has %d rows"
               % (ctx.input_var("X").name, n, n, ctx.input_var("Y").name, n2))
    ctx.check_dtype("X", REAL)
    ctx.check_dtype("Y", REAL)
    return list(broadcast_shape(xb, yb, ctx)) + [n, k]


@register
class TriangularSolve(OpDef):
    """Out = op(A)^-1 Y for the triangle A of X (upper or lower; its diagonal taken as ones
    with unitriangular), op(A) = A^T with transpose."""
    type = "triangular_solve"
    inputs = ("X", "Y")
    outputs = ("Out",)
    attrs = {"upper": True, "transpose": False, "unitriangular": False}
    grad_inputs = ("X", "Y", "Out", "Out@GRAD")

    def infer_shape(self, ctx):
        ctx.set_output("Out", _solve_shape(ctx), ctx.input_dtype("X"))

    @staticmethod
    def forward(x, y, upper=True, transpose=False, unitriangular=False):
        a = _triangle(x, upper, unitriangular)
        return triangular_solve(_mT(a) if transpose else a, y, upper == transpose).astype(x.dtype)

    @staticmethod
    def backward(x, y, out, dout, upper=True, transpose=False, unitriangular=False):
        a = _triangle(x, upper, unitriangular)
        dy = triangular_solve(a if transpose else _mT(a), dout, upper != transpose)
        da = -(out @ _mT(dy) if transpose else dy @ _mT(out))
        da = _triangle(da, upper)
        if unitriangular:
            da = da - da * np.eye(x.shape[-1], dtype=x.dtype)
        return sum_to_shape(da, x.shape), sum_to_shape(dy, y.shape)

    def samples(self, rng):
        yield Sample({"X": _well_conditioned(rng, 3), "Y": rand(rng, 3, 2)})
        yield Sample({"X": _well_conditioned(rng, 3, (2,)), "Y": rand(rng, 3, 4)},
                     {"upper": False, "transpose": True})
        yield Sample({"X": rand(rng, 3, 3), "Y": rand(rng, 2, 3, 1)},
                     {"unitriangular": True})


@register
class CholeskySolve(OpDef):
    """Out = A^-1 X for A = Y Y^T (Y lower) or Y^T Y (upper): Y is A's Cholesky factor
    (only its triangle is read)."""
    type = "cholesky_solve"
    inputs = ("X", "Y")
    outputs = ("Out",)
    attrs = {"upper": False}
    grad_inputs = ("X", "Y", "Out", "Out@GRAD")

    def infer_shape(self, ctx):
        # Paddle's slots: X the right-hand sides, Y the factor
        ctx.check_dtype("X", REAL)
        ctx.check_dtype("Y", REAL)
        _square_batches(ctx, "Y")
        (xb, (n, k)), (yb, (n2, _)) = (_batch_and_matrix(ctx, "X"),
                                       _batch_and_matrix(ctx, "Y"))
        ctx.expect(_dims_match(n, n2), "X %r has %d rows but the factor Y %r is [%d, %d]"
                   % (ctx.input_var("X").name, n, ctx.input_var("Y").name, n2, n2))
        ctx.set_output("Out", list(broadcast_shape(xb, yb, ctx)) + [n, k],
                       ctx.input_dtype("X"))

    @staticmethod
    def _solve(y, b, upper):
        """A^-1 b by the two triangular solves of A's factor (LAPACK's potrs)."""
        f = _triangle(y, upper)
        lower = _mT(f) if upper else f
        return triangular_solve(_mT(lower), triangular_solve(lower, b, True), False)

    @staticmethod
    def forward(x, y, upper=False):
        return CholeskySolve._solve(y, x, upper).astype(x.dtype)

    @staticmethod
    def backward(x, y, out, dout, upper=False):
        dx = CholeskySolve._solve(y, dout, upper)
        da = -dx @ _mT(out)
        sym = da + _mT(da)
        f = _triangle(y, upper)
        dy = _triangle(f @ sym if upper else sym @ f, upper)
        return sum_to_shape(dx, x.shape), sum_to_shape(dy, y.shape)

    def samples(self, rng):
        # Y a true factor: Paddle's gradient for Y treats all of Y as the factor, refimpl's
        # only the triangle the forward reads; they agree on a triangular Y
        lower = np.tril(_well_conditioned(rng, 3))
        yield Sample({"X": rand(rng, 3, 2), "Y": lower})
        yield Sample({"X": rand(rng, 2, 3, 1), "Y": lower.T.copy()}, {"upper": True})


class _SquareMatrices(OpDef):
    """A real square batch X in, Out of its shape."""
    inputs = ("X",)
    outputs = ("Out",)
    grad_inputs = ("X", "Out@GRAD")

    def infer_shape(self, ctx):
        _square_batches(ctx, "X")
        ctx.check_dtype("X", REAL)
        ctx.same_as("X", "Out")


@register
class MatrixPower(_SquareMatrices):
    """Out = X^n per square matrix (n < 0: the inverse's power, n = 0: the identity)."""
    type = "matrix_power"
    attrs = {"n": 1}

    @staticmethod
    def forward(x, n=1):
        return np.linalg.matrix_power(x, n).astype(x.dtype)

    @staticmethod
    def backward(x, dout, n=1):
        base = x if n >= 0 else np.linalg.inv(x)
        powers = [np.broadcast_to(np.eye(x.shape[-1], dtype=x.dtype), x.shape)]
        for _ in range(abs(n) - 1):
            powers.append(powers[-1] @ base)
        # d(B^m) = sum_k B^k dB B^(m-1-k)
        dbase = sum((_mT(powers[k]) @ dout @ _mT(powers[abs(n) - 1 - k])
                     for k in range(abs(n))), np.zeros_like(x))
        return dbase if n >= 0 else -_mT(base) @ dbase @ _mT(base)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 3)}, {"n": 3})
        yield Sample({"X": _well_conditioned(rng, 2, (2,))}, {"n": -2})
        yield Sample({"X": rand(rng, 2, 2)}, {"n": 0})


@register
class MultiDot(OpDef):
    """Out = X[0] @ X[1] @ ... @ X[-1] of 2-D matrices; a first (last) 1-D operand is a row
    (column) vector, dropped from the result's shape."""
    type = "multi_dot"
    inputs = ("X*",)
    outputs = ("Out",)
    grad_inputs = ("X", "Out@GRAD")

    def infer_shape(self, ctx):
        shapes = [list(v.shape) for v in ctx.input_vars("X")]
        ctx.expect(len(shapes) >= 2, "X needs at least 2 tensors, got %d" % len(shapes))
        ctx.check_dtype("X", REAL)
        first, last = shapes[0], shapes[-1]
        matrices = ([[1] + first] if len(first) == 1 else [first]) + shapes[1:-1] + \
            ([last + [1]] if len(last) == 1 else [last])
        for i, m in enumerate(matrices):
            ctx.expect(len(m) == 2, "X[%d] must be 2-D (the first and last may be 1-D), "
                       "got shape %s" % (i, shapes[i]))
        for i in range(1, len(matrices)):
            ctx.expect(_dims_match(matrices[i - 1][1], matrices[i][0]),
                       "X[%d] of shape %s does not multiply X[%d] of shape %s"
                       % (i - 1, shapes[i - 1], i, shapes[i]))
        out = ([matrices[0][0]] if len(first) == 2 else []) + \
            ([matrices[-1][1]] if len(last) == 2 else [])
        ctx.set_output("Out", out, ctx.input_dtype("X"))

    @staticmethod
    def _matrices(xs):
        return [xs[0].reshape(1, -1) if xs[0].ndim == 1 else xs[0]] + list(xs[1:-1]) + \
            [xs[-1].reshape(-1, 1) if xs[-1].ndim == 1 else xs[-1]]

    @staticmethod
    def forward(xs):
        out = np.linalg.multi_dot(MultiDot._matrices(xs))
        return out.reshape([d for d, x in ((out.shape[0], xs[0]), (out.shape[1], xs[-1]))
                            if x.ndim == 2]).astype(xs[0].dtype)

    @staticmethod
    def backward(xs, dout):
        ms = MultiDot._matrices(xs)
        g = dout.reshape(ms[0].shape[0], ms[-1].shape[1])
        grads = []
        for i, x in enumerate(xs):
            left = functools.reduce(np.matmul, ms[:i], np.eye(g.shape[0], dtype=g.dtype))
            right = functools.reduce(np.matmul, ms[i + 1:], np.eye(ms[i].shape[1], dtype=g.dtype))
            grads.append((_mT(left) @ g @ _mT(right)).reshape(x.shape))
        return grads

    def samples(self, rng):
        yield Sample({"X": [rand(rng, 2, 3), rand(rng, 3, 4), rand(rng, 4, 2)]})
        yield Sample({"X": [rand(rng, 3), rand(rng, 3, 4), rand(rng, 4)]})
        yield Sample({"X": [rand(rng, 3, 2), rand(rng, 2)]})


def _lu_factor(a):
    """(LU packed in one matrix, 1-based int32 pivots) of one [m, n] matrix by Gaussian
    elimination with partial pivoting, as LAPACK's getrf."""
    lu = a.astype(a.dtype, copy=True)
    m, n = lu.shape
    k = min(m, n)
    pivots = np.zeros(k, np.int32)
    for j in range(k):
        p = j + int(np.argmax(np.abs(lu[j:, j])))
        pivots[j] = p + 1
        if p != j:
            lu[[j, p]] = lu[[p, j]]
        if lu[j, j] != 0:
            lu[j + 1:, j] /= lu[j, j]
            lu[j + 1:, j + 1:] -= np.outer(lu[j + 1:, j], lu[j, j + 1:])
    return lu, pivots


def _unpack(lu):
    m, n = lu.shape[-2:]
    k = min(m, n)
    lower = np.tril(lu[..., :, :k], -1) + np.eye(m, k, dtype=lu.dtype)
    return lower, np.triu(lu[..., :k, :])


def _permutation(pivots, m, dtype):
    """P with A = P L U from getrf's 1-based row interchanges."""
    perm = np.arange(m)
    for i, p in enumerate(pivots):
        perm[[i, p - 1]] = perm[[p - 1, i]]
    return np.eye(m, dtype=dtype)[perm].T


@register
class Lu(OpDef):
    """Out: L and U of X = P L U packed in one matrix (L's unit diagonal implied), Pivots:
    getrf's 1-based row interchanges (int32), Infos: 0, or i where U[i-1, i-1] is 0."""
    type = "lu"
    inputs = ("X",)
    outputs = ("Out", "Pivots", "Infos")
    attrs = {"pivots": True}
    grad_inputs = ("X", "Out", "Pivots", "Out@GRAD")

    def infer_shape(self, ctx):
        batch, (m, n) = _batch_and_matrix(ctx, "X")
        ctx.check_dtype("X", REAL)
        ctx.expect(ctx.attr("pivots"), "lu without pivoting is not implemented on the CPU")
        ctx.same_as("X", "Out")
        ctx.set_output("Pivots", list(batch) + [min(m, n) if min(m, n) >= 0 else -1], "int32")
        ctx.set_output("Infos", list(batch), "int32")

    @staticmethod
    def forward(x, pivots=True):
        out = np.empty_like(x)
        pivots = np.empty(x.shape[:-2] + (min(x.shape[-2:]),), np.int32)
        for i in np.ndindex(*x.shape[:-2]):
            out[i], pivots[i] = _lu_factor(x[i])
        k = min(x.shape[-2:])
        diag = np.diagonal(out, axis1=-2, axis2=-1)[..., :k] == 0
        infos = np.where(diag.any(-1), diag.argmax(-1) + 1, 0).astype(np.int32)
        return out, pivots, infos

    @staticmethod
    def backward(x, out, pivot_rows, dout, pivots=True):
        # square X = P L U: dX = P L^-T (tril(L^T dL, -1) + triu(dU U^T)) U^-T
        lower, upper = _unpack(out)
        dlower, dupper = np.tril(dout, -1), np.triu(dout)
        inner = np.tril(_mT(lower) @ dlower, -1) + np.triu(dupper @ _mT(upper))
        core = _mT(np.linalg.solve(upper, _mT(np.linalg.solve(_mT(lower), inner))))
        dx = np.empty_like(x)
        for i in np.ndindex(*x.shape[:-2]):
            dx[i] = _permutation(pivot_rows[i], x.shape[-2], x.dtype) @ core[i]
        return dx

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 3)})
        yield Sample({"X": rand(rng, 2, 4, 4)})


@register
class LuUnpack(OpDef):
    """Pmat, L, U of X = Pmat L U from lu's packed X and Pivots (L [.., m, k] with its
    unit diagonal, U [.., k, n], k = min(m, n)); unpack_ludata / unpack_pivots off leave
    L, U / Pmat empty."""
    type = "lu_unpack"
    inputs = ("X", "Pivots")
    outputs = ("Pmat", "L", "U")
    attrs = {"unpack_ludata": True, "unpack_pivots": True}
    no_grad = ("Pivots",)
    grad_inputs = ("X", "L@GRAD", "U@GRAD")

    def infer_shape(self, ctx):
        batch, (m, n) = _batch_and_matrix(ctx, "X")
        k = min(m, n) if min(m, n) >= 0 else -1
        ctx.set_output("Pmat", list(batch) + [m, m], ctx.input_dtype("X"))
        ctx.set_output("L", list(batch) + [m, k], ctx.input_dtype("X"))
        ctx.set_output("U", list(batch) + [k, n], ctx.input_dtype("X"))

    @staticmethod
    def forward(x, pivots, unpack_ludata=True, unpack_pivots=True):
        m = x.shape[-2]
        pmat = np.empty(x.shape[:-2] + (m, m), x.dtype)
        for i in np.ndindex(*x.shape[:-2]):
            pmat[i] = _permutation(pivots[i], m, x.dtype)
        lower, upper = _unpack(x)
        return pmat, lower, upper

    @staticmethod
    def backward(x, dlower, dupper, unpack_ludata=True, unpack_pivots=True):
        m, n = x.shape[-2:]
        k = min(m, n)
        dx = np.zeros_like(x)
        if dlower is not None:
            dx[..., :, :k] += np.tril(dlower, -1)
        if dupper is not None:
            dx[..., :k, :] += np.triu(dupper)
        return dx

    def samples(self, rng):
        a = rand(rng, 3, 4)
        lu, pivots = _lu_factor(a)
        yield Sample({"X": lu, "Pivots": pivots})
        b = rand(rng, 4, 3)
        lu, pivots = _lu_factor(b)
        yield Sample({"X": lu, "Pivots": pivots})


def _expm(a):
    """exp of each matrix of a: scaled to a 1-norm below 1/2, an 18-term Taylor sum
    (below double precision's unit there), squared back."""
    norm = np.abs(a).sum(-2).max(initial=0)
    squarings = max(0, int(np.ceil(np.log2(norm))) + 1) if norm > 0 else 0
    a = a / 2.0 ** squarings
    term = total = np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape)
    for k in range(1, 19):
        term = term @ a / k
        total = total + term
    for _ in range(squarings):
        total = total @ total
    return total


@register
class MatrixExp(_SquareMatrices):
    """Out = exp(X) of each square matrix. 3.3.1 composes paddle.linalg.matrix_exp from
    its Padé steps (no op of its own); refimpl's one op is that function."""
    type = "matrix_exp"

    @staticmethod
    def forward(x):
        return _expm(x).astype(x.dtype)

    @staticmethod
    def backward(x, dout):
        # the Frechet derivative's adjoint: the top-right block of exp([[X^T, G], [0, X^T]])
        n = x.shape[-1]
        block = np.zeros(x.shape[:-2] + (2 * n, 2 * n), x.dtype)
        block[..., :n, :n] = block[..., n:, n:] = _mT(x)
        block[..., :n, n:] = dout
        return _expm(block)[..., :n, n:]

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 3)})
        yield Sample({"X": 3 * rand(rng, 2, 2, 2)})
