"""spectral_norm: Weight divided by its largest singular value sigma, estimated by
`power_iters` power-iteration steps from the vectors U [h] and V [w], where the weight is
viewed as a matrix [h, w] with h = Weight.shape[dim] (dim moved first, the rest flattened).

Like Paddle, the op reads U and V and leaves them as they were (each run starts the
iteration from the same vectors), so Out is a function of Weight alone. Its gradient is
that function's exact gradient: back through sigma = u^T W v and through every
power-iteration step (finite differences agree to 1e-9; the u, v-as-constants expression
is exact only with power_iters=0, and Paddle's grad kernel is further off: specs/nn_layer.md).
"""
import numpy as np

from ._common import numel, rand
from .registry import OpDef, Sample, register


def _as_matrix(weight, dim):
    """Weight with `dim` moved first, flattened to [h, w]."""
    moved = np.moveaxis(weight, dim, 0)
    return moved.reshape(moved.shape[0], -1)


def _from_matrix(mat, shape, dim):
    moved_shape = (shape[dim],) + tuple(d for i, d in enumerate(shape) if i != dim)
    return np.moveaxis(mat.reshape(moved_shape), 0, dim)


def _normalized(x, eps):
    return x / (np.linalg.norm(x) + eps)


def _normalized_grad(x, gy, eps):
    """Gradient through y = x / (|x| + eps), given dL/dy."""
    n = np.linalg.norm(x)
    if n == 0:
        return gy / eps
    return gy / (n + eps) - x * (x @ gy) / (n * (n + eps) ** 2)


def _power_iteration(mat, u, v, power_iters, eps):
    """(u, v, sigma, steps) after `power_iters` steps; sigma = u^T mat v. `steps` keeps
    each step's (u in, M^T u, M v) for the gradient."""
    steps = []
    for _ in range(power_iters):
        a = mat.T @ u
        v = _normalized(a, eps)
        b = mat @ v
        steps.append((u, a, v, b))
        u = _normalized(b, eps)
    return u, v, u @ mat @ v, steps


def _power_iteration_grad(mat, u, v, steps, g_sigma, eps):
    """dL/dmat through sigma = u^T mat v and back through the iteration steps."""
    g_mat = g_sigma * np.outer(u, v)
    g_u, g_v = g_sigma * (mat @ v), g_sigma * (mat.T @ u)
    for u_in, a, v_k, b in reversed(steps):
        g_b = _normalized_grad(b, g_u, eps)        # u = normalize(b), b = mat v_k
        g_mat += np.outer(g_b, v_k)
        g_v = g_v + mat.T @ g_b
        g_a = _normalized_grad(a, g_v, eps)        # v_k = normalize(a), a = mat^T u_in
        g_mat += np.outer(u_in, g_a)
        g_u, g_v = mat @ g_a, 0.0
    return g_mat


@register
class SpectralNorm(OpDef):
    type = "spectral_norm"
    inputs = ("Weight", "U", "V")
    outputs = ("Out",)
    attrs = {"dim": 0, "power_iters": 1, "eps": 1e-12}
    grad_inputs = ("Weight", "U", "V", "Out@GRAD")
    no_grad = ("U", "V")

    def infer_shape(self, ctx):
        ctx.check_dtype("Weight", ("float32", "float64"))
        weight = ctx.input_var("Weight")
        shape, dim = list(weight.shape), ctx.attr("dim")
        ctx.expect(2 <= len(shape) <= 5, "Weight %r must have rank 2 to 5, got %s"
                   % (weight.name, shape))
        ctx.expect(0 <= dim < len(shape), "dim must be in [0, %d) for Weight %r %s, got %r"
                   % (len(shape), weight.name, shape, dim))
        ctx.expect(ctx.attr("power_iters") >= 0, "power_iters must be >= 0, got %r"
                   % (ctx.attr("power_iters"),))
        ctx.expect(ctx.attr("eps") > 0, "eps must be > 0, got %r" % (ctx.attr("eps"),))
        h = shape[dim]
        rest = [d for i, d in enumerate(shape) if i != dim]
        w = -1 if -1 in rest else numel(rest)
        for slot, expected in (("U", h), ("V", w)):
            var = ctx.input_var(slot)
            got = numel(var.shape) if -1 not in var.shape else -1
            ctx.expect(expected < 0 or got < 0 or got == expected,
                       "%s %r %s must have %d elements (Weight %r %s, dim=%d)"
                       % (slot, var.name, list(var.shape), expected, weight.name, shape, dim))
        ctx.same_as("Weight", "Out")

    @staticmethod
    def forward(weight, u, v, dim=0, power_iters=1, eps=1e-12):
        mat = _as_matrix(weight, dim)
        sigma = _power_iteration(mat, u.reshape(-1), v.reshape(-1), power_iters, eps)[2]
        return (weight / sigma).astype(weight.dtype)

    @staticmethod
    def backward(weight, u, v, dout, dim=0, power_iters=1, eps=1e-12):
        mat = _as_matrix(weight, dim)
        u, v, sigma, steps = _power_iteration(mat, u.reshape(-1), v.reshape(-1),
                                              power_iters, eps)
        dmat = _as_matrix(dout, dim)
        g_sigma = -(dmat * mat).sum() / sigma ** 2
        grad = dmat / sigma + _power_iteration_grad(mat, u, v, steps, g_sigma, eps)
        return _from_matrix(grad, weight.shape, dim).astype(weight.dtype)

    def samples(self, rng):
        # power_iters=0: sigma = U^T W V exactly, so the u, v-as-constants gradient is exact.
        # Positive entries keep sigma away from 0, where W / sigma is ill-conditioned (a
        # random draw near it made the finite-difference check flaky).
        def away(*shape):
            return np.abs(rand(rng, *shape)) + 0.5
        yield Sample({"Weight": away(3, 4), "U": away(3), "V": away(4)},
                     {"dim": 0, "power_iters": 0}, name="no iteration")
        yield Sample({"Weight": away(2, 3, 4), "U": away(3), "V": away(8)},
                     {"dim": 1, "power_iters": 0}, name="dim 1")
        # After iterating, u and v depend on Weight: the gradient goes through the steps
        yield Sample({"Weight": away(4, 3), "U": away(4), "V": away(3)},
                     {"dim": 0, "power_iters": 3}, name="iterated")
        yield Sample({"Weight": away(2, 3, 2), "U": away(3), "V": away(4)},
                     {"dim": 1, "power_iters": 1}, name="iterated, dim 1")
