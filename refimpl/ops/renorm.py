"""renorm: each slice of X along `axis` whose p-norm exceeds max_norm scaled down to
max_norm (Paddle 3's paddle.renorm; 3.3.1 measured: max_norm / norm, no epsilon)."""
import numpy as np

from ._common import rand
from .registry import OpDef, Sample, register

def _scales(x, p, axis, max_norm):
    """(the p-norms of x's slices along axis, kept as dims, the dims summed, whether each
    exceeds max_norm, the factor it is scaled by)."""
    others = tuple(d for d in range(x.ndim) if d != axis % x.ndim)
    norms = np.sum(np.abs(x) ** p, axis=others, keepdims=True) ** (1.0 / p)
    over = norms > max_norm
    return norms, others, over, np.where(over, max_norm / np.where(over, norms, 1), 1.0)


@register
class Renorm(OpDef):
    type = "renorm"
    inputs = ("X",)
    outputs = ("Out",)
    attrs = {"p": 2.0, "axis": -1, "max_norm": 1.0}
    grad_inputs = ("X", "Out@GRAD")

    def infer_shape(self, ctx):
        ctx.check_dtype("X", ("float32", "float64"))
        ctx.check_axis("X", ctx.attr("axis"))
        ctx.same_as("X", "Out")

    @staticmethod
    def forward(x, p=2.0, axis=-1, max_norm=1.0):
        return (x * _scales(x, p, axis, max_norm)[3]).astype(x.dtype)

    @staticmethod
    def backward(x, dout, p=2.0, axis=-1, max_norm=1.0):
        norms, others, over, scale = _scales(x, p, axis, max_norm)
        # d(x c / n) = (c / n) (dx - x (sum dx x) / n^p ...): over a slice scaled by
        # s = c / n, dX = s (dOut - (sum dOut X) / n^p sign(X) |X|^(p-1)); in this order
        # a constant dOut on a p = 1 slice cancels to 0 exactly (Paddle's test_renorm_op)
        weight = np.sum(dout * x, axis=others, keepdims=True) / np.where(over, norms, 1) ** p
        shrink = np.where(over, weight * np.sign(x) * np.abs(x) ** (p - 1), 0)
        return (scale * (dout - shrink)).astype(x.dtype)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 4, low=0.2, high=2.0)}, {"p": 2.0, "axis": 1, "max_norm": 1.5})
        yield Sample({"X": rand(rng, 2, 3, 2)}, {"p": 3.0, "axis": 0, "max_norm": 0.8})
