"""Linear-algebra ops of the Paddle 2.0 API: addmm, mv, inverse, cholesky, dist,
frobenius_norm, allclose."""
import numpy as np

from .. import versions
from ..broadcasting import sum_to_shape
from ._common import broadcast_shape, float32_root, rand
from .reduce import _DifferentiableReduce
from .registry import OpDef, Sample, register


def _expect_matrix(ctx, slot, rank=2):
    v = ctx.input_var(slot)
    ctx.expect(len(v.shape) == rank, "%s %r must be %d-D, got shape %s"
               % (slot, v.name, rank, list(v.shape)))
    return v.shape


def _dims_match(a, b):
    return a < 0 or b < 0 or a == b


@register
class Addmm(OpDef):
    """Out = Beta * Input + Alpha * (X @ Y); Input broadcasts to [M, N]."""
    type = "addmm"
    inputs = ("Input", "X", "Y")
    outputs = ("Out",)
    attrs = {"Alpha": 1.0, "Beta": 1.0}
    grad_inputs = ("Input", "X", "Y", "Out@GRAD")

    def infer_shape(self, ctx):
        (m, k), (k2, n) = _expect_matrix(ctx, "X"), _expect_matrix(ctx, "Y")
        ctx.expect(_dims_match(k, k2), "X %r is [%d, %d] but Y %r is [%d, %d]: inner dims "
                   "differ" % (ctx.input_var("X").name, m, k, ctx.input_var("Y").name, k2, n))
        shape = broadcast_shape(ctx.input_shape("Input"), (m, n), ctx)
        ctx.expect(len(shape) == 2, "Input %r of shape %s does not broadcast to [%d, %d]"
                   % (ctx.input_var("Input").name, list(ctx.input_shape("Input")), m, n))
        # after the shapes, as Paddle 2.0's paddle.addmm checks (its test_addmm_op: int32
        # operands of matching shapes are a TypeError, mismatched ones a ValueError)
        for slot in ("Input", "X", "Y"):
            ctx.check_dtype(slot, ("float32", "float64"))
        ctx.set_output("Out", [m, n], ctx.input_dtype("X"))

    @staticmethod
    def forward(inp, x, y, Alpha=1.0, Beta=1.0):
        return (Beta * inp + Alpha * (x @ y)).astype(x.dtype)

    @staticmethod
    def backward(inp, x, y, dout, Alpha=1.0, Beta=1.0):
        return (Beta * sum_to_shape(dout, inp.shape), Alpha * (dout @ y.T),
                Alpha * (x.T @ dout))

    def samples(self, rng):
        yield Sample({"Input": rand(rng, 3, 4), "X": rand(rng, 3, 2), "Y": rand(rng, 2, 4)},
                     {"Alpha": 0.5, "Beta": 2.0})
        yield Sample({"Input": rand(rng, 4), "X": rand(rng, 3, 2), "Y": rand(rng, 2, 4)})


@register
class Mv(OpDef):
    """Out = X @ Vec for a matrix X [M, N] and a vector Vec [N]."""
    type = "mv"
    inputs = ("X", "Vec")
    outputs = ("Out",)
    grad_inputs = ("X", "Vec", "Out@GRAD")

    def infer_shape(self, ctx):
        (m, n), (n2,) = _expect_matrix(ctx, "X"), _expect_matrix(ctx, "Vec", 1)
        ctx.expect(_dims_match(n, n2), "X %r has %d columns but Vec %r has %d elements"
                   % (ctx.input_var("X").name, n, ctx.input_var("Vec").name, n2))
        ctx.set_output("Out", [m], ctx.input_dtype("X"))

    @staticmethod
    def forward(x, vec):
        return x @ vec

    @staticmethod
    def backward(x, vec, dout):
        return np.outer(dout, vec), x.T @ dout

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 4), "Vec": rand(rng, 4)})


def _square_batches(ctx, slot):
    v = ctx.input_var(slot)
    ctx.expect(len(v.shape) >= 2 and _dims_match(v.shape[-1], v.shape[-2]),
               "%s %r must be a (batch of) square matrices, got shape %s"
               % (slot, v.name, list(v.shape)))


def _mT(a):
    return np.swapaxes(a, -1, -2)


def _well_conditioned(rng, n, batch=()):
    """Random matrices away from singular: a random part plus n on the diagonal."""
    return rand(rng, *batch, n, n) + n * np.eye(n)


@register
class Inverse(OpDef):
    type = "inverse"
    inputs = ("Input",)
    outputs = ("Output",)
    grad_inputs = ("Output", "Output@GRAD")

    def infer_shape(self, ctx):
        _square_batches(ctx, "Input")
        ctx.set_output("Output", ctx.input_shape("Input"), ctx.input_dtype("Input"))

    @staticmethod
    def forward(x):
        return np.linalg.inv(x).astype(x.dtype)

    @staticmethod
    def backward(inv, dout):
        # d(A^-1) = -A^-1 dA A^-1
        return -_mT(inv) @ dout @ _mT(inv)

    def samples(self, rng):
        yield Sample({"Input": _well_conditioned(rng, 3)})
        yield Sample({"Input": _well_conditioned(rng, 2, (2,))})


@register
class Cholesky(OpDef):
    """Out = L with X = L L^T (lower), or L^T (upper). X must be symmetric positive definite;
    its symmetric part (X + X^T) / 2 is factored, so the gradient is symmetric."""
    type = "cholesky"
    inputs = ("X",)
    outputs = ("Out",)
    attrs = {"upper": False}
    grad_inputs = ("Out", "Out@GRAD")

    def infer_shape(self, ctx):
        _square_batches(ctx, "X")
        ctx.same_as("X", "Out")

    @staticmethod
    def forward(x, upper=False):
        try:
            lower = np.linalg.cholesky((x + _mT(x)) / 2)
        except np.linalg.LinAlgError:
            raise ValueError("cholesky: X is not positive definite") from None
        return np.ascontiguousarray(_mT(lower) if upper else lower).astype(x.dtype)

    @staticmethod
    def backward(out, dout, upper=False):
        # Murray (2016): A_bar = sym(L^-T Phi(L^T L_bar) L^-1), Phi = lower part with the
        # diagonal halved.
        lower, dlower = (_mT(out), _mT(dout)) if upper else (out, dout)
        phi = np.tril(_mT(lower) @ dlower)
        phi -= np.tril(np.triu(phi)) / 2
        inv = np.linalg.inv(lower)
        s = _mT(inv) @ phi @ inv
        return (s + _mT(s)) / 2

    def samples(self, rng):
        a = rand(rng, 3, 3)
        yield Sample({"X": a @ a.T + 3 * np.eye(3)})
        b = rand(rng, 2, 3, 3)
        yield Sample({"X": b @ _mT(b) + 3 * np.eye(3)}, {"upper": True})


def _p_norm_of(d, p):
    a = np.abs(d)
    if p == 0:
        return d.dtype.type(np.count_nonzero(a))   # numpy 1.x returns a Python int
    if p == np.inf:
        return a.max()
    if p == -np.inf:
        return a.min()
    # 3.3.1's dist runs its p_norm kernel: the root in float32 (switch dist_kernel)
    root = float32_root(p) if versions.switch("dist_kernel") == "p_norm" else 1.0 / p
    return np.sum(a ** p) ** root


@register
class Dist(OpDef):
    """Out = the p-norm of X - Y (broadcast), over all elements, as a [1] tensor: p = 0
    counts the nonzeros, inf / -inf take the largest / smallest |X - Y|. One number
    (scalar_shape())."""
    type = "dist"
    inputs = ("X", "Y")
    outputs = ("Out",)
    scalar_outputs = ("Out",)
    attrs = {"p": 2.0}
    grad_inputs = ("X", "Y", "Out", "Out@GRAD")

    def infer_shape(self, ctx):
        broadcast_shape(ctx.input_shape("X"), ctx.input_shape("Y"), ctx)
        ctx.set_output("Out", [], ctx.input_dtype("X"))

    @staticmethod
    def forward(x, y, p=2.0):
        return np.asarray(_p_norm_of(x - y, p), x.dtype)

    @staticmethod
    def backward(x, y, out, dout, p=2.0):
        d = x - y
        norm = out.reshape(())
        if p == 0 or norm == 0:
            g = np.zeros_like(d)
        elif np.isinf(p):
            g = np.sign(d) * (np.abs(d) == norm)
        else:   # 3.3.1's p_norm kernel adds its epsilon, 1e-12 (switch dist_kernel)
            eps = 1e-12 if versions.switch("dist_kernel") == "p_norm" else 0
            g = np.sign(d) * np.abs(d) ** (p - 1) / (norm ** (p - 1) + d.dtype.type(eps))
        g = g * dout.reshape(())
        return sum_to_shape(g, x.shape), -sum_to_shape(g, y.shape)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 4), "Y": rand(rng, 4)})
        yield Sample({"X": rand(rng, 2, 3), "Y": rand(rng, 2, 3)}, {"p": 3.0})
        yield Sample({"X": rand(rng, 2, 3), "Y": rand(rng, 2, 3)}, {"p": 1.0})
        yield Sample({"X": rand(rng, 2, 3), "Y": rand(rng, 2, 3)}, {"p": float("inf")})
        yield Sample({"X": rand(rng, 2, 3), "Y": rand(rng, 2, 3)}, {"p": 0.0}, grad=False)


@register
class FrobeniusNorm(_DifferentiableReduce):
    """sqrt(sum(X^2)) over `dim` (all dims with reduce_all)."""
    type = "frobenius_norm"

    @staticmethod
    def reduce(x, axis, keepdims):
        return np.sqrt(np.sum(x * x, axis=axis, keepdims=keepdims))

    @staticmethod
    def grad(x, out, dout, axes):
        safe = np.where(out == 0, 1, out)
        return dout * np.where(out == 0, 0, x / safe)


@register
class Allclose(OpDef):
    """Out = all(|X - Y| <= atol + rtol * |Y|) (one bool); NaNs equal only with
    equal_nan. rtol and atol are strings of floats, as in Paddle (which keeps them at
    double precision that way); the dispensable one-element float64 inputs Rtol and Atol
    (Paddle 2.0's op, its test_allclose_op) replace them when given."""
    type = "allclose"
    inputs = ("Input", "Other", "Rtol?", "Atol?")
    outputs = ("Out",)
    scalar_outputs = ("Out",)
    attrs = {"rtol": "1e-5", "atol": "1e-8", "equal_nan": False}

    def infer_shape(self, ctx):
        broadcast_shape(ctx.input_shape("Input"), ctx.input_shape("Other"), ctx)
        for name in ("rtol", "atol"):
            try:
                float(ctx.attr(name))
            except (TypeError, ValueError):
                ctx.fail("attr %s must be a float as a string, got %r"
                         % (name, ctx.attr(name)))
        for name in ("Rtol", "Atol"):
            if ctx.has_input(name):
                ctx.check_dtype(name, ("float64",))
                if int(np.prod(ctx.input_shape(name))) not in (1, -1):
                    ctx.fail("input %s must hold one value, got shape %s"
                             % (name, list(ctx.input_shape(name))))
        ctx.set_output("Out", self.out_shape(ctx), "bool")

    @staticmethod
    def out_shape(ctx):
        return []

    compare = staticmethod(np.allclose)

    def forward(self, x, y, rtol_tensor=None, atol_tensor=None, rtol="1e-5", atol="1e-8",
                equal_nan=False):
        rtol = float(rtol) if rtol_tensor is None else float(np.ravel(rtol_tensor)[0])
        atol = float(atol) if atol_tensor is None else float(np.ravel(atol_tensor)[0])
        return np.array(self.compare(x, y, rtol, atol, equal_nan))

    def samples(self, rng):
        x = rand(rng, 3, 4)
        yield Sample({"Input": x, "Other": x + 1e-9})
        yield Sample({"Input": x, "Other": x + 1e-3}, {"rtol": "1e-05", "atol": "1e-08"})
