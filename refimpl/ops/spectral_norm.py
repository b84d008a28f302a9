"""spectral_norm: Weight divided by its largest singular value sigma, estimated by
`power_iters` power-iteration steps from the vectors U [h] and V [w], where the weight is
viewed as a matrix [h, w] with h = Weight.shape[dim] (dim moved first, the rest flattened).

Like Paddle, the op reads U and V and leaves them as they were (each run starts the
iteration from the same vectors). The gradient treats the iterated u, v as constants:
dWeight = dOut / sigma - sum(dOut * Weight) / sigma^2 * u v^T (Paddle's own grad kernel
computes a different, inexact expression; see specs/nn_layer.md)."""
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


def _power_iteration(mat, u, v, power_iters, eps):
    """(u, v, sigma) after `power_iters` steps; sigma = u^T mat v."""
    for _ in range(power_iters):
        v = mat.T @ u
        v = v / (np.linalg.norm(v) + eps)
        u = mat @ v
        u = u / (np.linalg.norm(u) + eps)
    return u, v, u @ mat @ v


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
        _, _, sigma = _power_iteration(mat, u.reshape(-1), v.reshape(-1), power_iters, eps)
        return (weight / sigma).astype(weight.dtype)

    @staticmethod
    def backward(weight, u, v, dout, dim=0, power_iters=1, eps=1e-12):
        mat = _as_matrix(weight, dim)
        u, v, sigma = _power_iteration(mat, u.reshape(-1), v.reshape(-1), power_iters, eps)
        dmat = _as_matrix(dout, dim)
        grad = dmat / sigma - (dmat * mat).sum() / sigma ** 2 * np.outer(u, v)
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
        # After iterating, u and v depend on Weight, which the gradient ignores (as Paddle).
        yield Sample({"Weight": rand(rng, 4, 3), "U": rand(rng, 4), "V": rand(rng, 3)},
                     {"dim": 0, "power_iters": 3}, grad=False, name="iterated")
