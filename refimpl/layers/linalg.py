"""Linear algebra layers of the Paddle 2.0 API: trace, kron, cross, mv, addmm, inverse,
cholesky, dist, norm (paddle.norm is layers/matrix_norms.py's, which runs this one under
Paddle 2.0's rules). norm's p-norms are composed from existing ops (abs, pow, reduce_*),
so their gradients come from those ops."""
import numpy as np

from . import creation, math
from .common import append_op_out, check_dtype, check_variable, reduce_axes, unary
from .functional_loss import p_norm


def trace(x, offset=0, axis1=0, axis2=1, name=None):
    check_variable(x, "x", "trace")
    return append_op_out("trace", {"Input": [x]}, {"offset": int(offset), "axis1": int(axis1),
                                                   "axis2": int(axis2)}, name)


def kron(x, y, name=None):
    return append_op_out("kron", {"X": [x], "Y": [y]}, {}, name)


def cross(x, y, axis=None, name=None):
    """axis None: the op's default, the first dim of size 3."""
    return append_op_out("cross", {"X": [x], "Y": [y]},
                         {} if axis is None else {"dim": int(axis)}, name)


def mv(x, vec, name=None):
    return append_op_out("mv", {"X": [x], "Vec": [vec]}, {}, name)


def addmm(input, x, y, beta=1.0, alpha=1.0, name=None):
    """beta * input + alpha * (x @ y)."""
    return append_op_out("addmm", {"Input": [input], "X": [x], "Y": [y]},
                         {"Alpha": float(alpha), "Beta": float(beta)}, name)


def inverse(x, name=None):
    """Paddle 2.0 checks x: float32 / float64 (TypeError), at least 2-D (ValueError)."""
    check_dtype(x, "x", "inverse", ("float32", "float64"))
    if len(x.shape) < 2:
        raise ValueError("inverse: x %r must have at least 2 dims, got shape %s"
                         % (x.name, list(x.shape)))
    return append_op_out("inverse", {"Input": [x]}, {}, name, out_slot="Output")


def cholesky(x, upper=False, name=None):
    return unary("cholesky", x, {"upper": bool(upper)}, name)


def dist(x, y, p=2):
    return append_op_out("dist", {"X": [x], "Y": [y]}, {"p": float(p)})


def norm(x, p="fro", axis=None, keepdim=False, name=None):
    """'fro': sqrt of the sum of squares (the frobenius_norm op) over `axis` (None: all).
    A number p: the vector p-norm over `axis` (None: all elements): (sum |x|^p)^(1/p);
    inf / -inf: max / min |x|; 0: the count of nonzeros."""
    if axis is not None and (isinstance(axis, bool) or not isinstance(axis, (int, list, tuple))):
        # checked before x, as Paddle 2.0 does
        raise ValueError("norm: axis must be an int or a list / tuple of ints, got %r" % (axis,))
    check_variable(x, "x", "norm")
    if isinstance(p, bool) or not isinstance(p, (str, int, float)):
        raise ValueError("norm: p must be a str ('fro') or a number, got %r" % (p,))
    axes = reduce_axes(x, axis)
    if p == "fro":
        if axis is not None and len(axes) > 2:
            raise ValueError("norm: p='fro' takes at most 2 axes, got %s" % list(axis))
        return unary("frobenius_norm", x, {"dim": axes, "keep_dim": keepdim,
                                           "reduce_all": axis is None}, name)
    if isinstance(p, str):
        raise ValueError("norm: p must be 'fro' or a number, got %r" % p)
    p = float(p)
    if axis is None or len(axes) == 1:
        # a vector norm: Paddle 2.0's and 3.3.1's one p_norm op (its float32 root, its
        # gradient's epsilon), over all elements (asvector) or the one axis
        return p_norm(x, p, -1 if axis is None else axes[0], keepdim, 1e-12, axis is None,
                      name)
    if p == 0:
        nonzero = math._paddle_compare("not_equal")(x, creation.zeros_like(x))
        return math._reduce("reduce_sum", math.cast(nonzero, x.dtype), axes, keepdim, name)
    magnitude = _abs(x)
    if np.isinf(p):
        return math._reduce("reduce_max" if p > 0 else "reduce_min", magnitude, axes,
                            keepdim, name)
    total = math._reduce("reduce_sum", math.pow(magnitude, p), axes, keepdim, None)
    return math.pow(total, 1.0 / p, name)


_abs = math._paddle_unary("abs")


EXPORTS = {
    "paddle": {"trace": trace, "kron": kron, "cross": cross, "mv": mv, "addmm": addmm,
               "inverse": inverse, "cholesky": cholesky, "dist": dist},
}
