"""Norms of Paddle 3's paddle.linalg (3.3.1's names and signatures): vector_norm,
matrix_norm, norm (3.3.1's linalg.norm: a vector norm over one axis or all elements, a
matrix norm over two axes), cond, and paddle.renorm. Composed from the 2.0 norm's ops
(p_norm, frobenius_norm, reductions) and svd, as 3.3.1 composes them; renorm is its op."""
import numpy as np

from .. import versions
from ..framework import mode
from . import math
from .common import append_op_out, check_variable, in_place
from .decompositions import svdvals
from .linalg import inverse, norm as _paddle20_norm
from .tensor import transpose, unsqueeze


_math = math.EXPORTS["paddle"]


def vector_norm(x, p=2.0, axis=None, keepdim=False, name=None):
    """The p-norm of x's elements over `axis` (an int, a list, None: all): p = 0 counts the
    nonzeros, inf / -inf take the largest / smallest magnitude."""
    check_variable(x, "x", "vector_norm")
    if isinstance(p, (bool, str)) or not isinstance(p, (int, float)):
        raise ValueError("vector_norm: p must be a number, got %r" % (p,))
    return _paddle20_norm(x, float(p), axis, keepdim, name)


_SINGULAR = {"nuc": _math["sum"], 2: _math["max"], -2: _math["min"]}
_ABSOLUTE_SUMS = {1: (0, _math["max"]), -1: (0, _math["min"]), np.inf: (1, _math["max"]),
                  -np.inf: (1, _math["min"])}


def matrix_norm(x, p="fro", axis=(-2, -1), keepdim=False, name=None):
    """The matrix norm over the two dims `axis`: 'fro', 'nuc' (the sum of the singular
    values), 2 / -2 (the largest / smallest singular value), 1 / -1 (the largest /
    smallest column sum of |x|), inf / -inf (the same of the row sums)."""
    check_variable(x, "x", "matrix_norm")
    axes = [int(a) % len(x.shape) for a in axis] if len(x.shape) else []
    if len(axes) != 2 or axes[0] == axes[1]:
        raise ValueError("matrix_norm: axis must be two different dims of x, got %r for x "
                         "of shape %s" % (axis, list(x.shape)))
    if p == "fro":
        return _paddle20_norm(x, "fro", axes, keepdim, name)
    if p in _SINGULAR:
        rest = [d for d in range(len(x.shape)) if d not in axes]
        values = svdvals(transpose(x, rest + axes))
        out = _SINGULAR[p](values, axis=-1)
        return unsqueeze(out, sorted(axes)) if keepdim else out
    if p in _ABSOLUTE_SUMS:
        summed, reduce = _ABSOLUTE_SUMS[p]
        sums = _math["sum"](_math["abs"](x), axis=axes[summed], keepdim=True)
        out = reduce(sums, axis=axes[1 - summed], keepdim=True)
        return out if keepdim else _math["sum"](out, axis=sorted(axes))
    raise ValueError("matrix_norm: p must be 'fro', 'nuc', 1, -1, 2, -2, inf or -inf, got %r"
                     % (p,))


def norm(x, p=None, axis=None, keepdim=False, name=None):
    """3.3.1's paddle.linalg.norm: over one axis (an int, or None with a number p: all
    elements) the vector norm (p None: 2); over two axes (or None with 'fro' / 'nuc')
    the matrix norm (p None: 'fro')."""
    check_variable(x, "x", "norm")
    axes = None if axis is None else [axis] if isinstance(axis, int) else list(axis)
    if axes is not None and len(axes) == 2:
        return matrix_norm(x, "fro" if p is None else p, axes, keepdim, name)
    if p in ("fro", "nuc"):
        if axes is None and p == "fro":
            return _paddle20_norm(x, "fro", None, keepdim, name)
        if axes is not None:
            raise ValueError("norm: p=%r needs two axes, got %r" % (p, axis))
        return matrix_norm(x, p, (-2, -1), keepdim, name)
    return vector_norm(x, 2.0 if p is None else p, axes, keepdim, name)


def paddle_norm(x, p=None, axis=None, keepdim=False, name=None):
    """paddle.norm: Paddle 2.0's (p None: 'fro'; a number p a vector norm over any axes)
    or, under 3 (switch `paddle_norm`), 3.3.1's, which is paddle.linalg.norm (a number p
    over two axes a matrix norm: 2 the spectral norm; 'nuc')."""
    if versions.switch("paddle_norm") == "linalg":
        return norm(x, p, axis, keepdim, name)
    return _paddle20_norm(x, "fro" if p is None else p, axis, keepdim, name)


def cond(x, p=None, name=None):
    """The condition number of square matrices in the norm p: None / 2 / -2 the ratio of
    the largest and smallest singular values (-2: its inverse), else 'fro', 'nuc', inf,
    -inf, 1, -1: matrix_norm(x, p) * matrix_norm(inv(x), p). An empty static x is a
    ValueError (3.3.1's; an eager one gives an empty result)."""
    check_variable(x, "x", "cond")
    if not mode.dynamic and 0 in x.shape:
        raise ValueError("cond: only a nonempty x is supported in a static graph, got shape %s"
                         % list(x.shape))
    if p is None or p in (2, -2):
        values = svdvals(x)
        largest, smallest = _math["max"](values, axis=-1), _math["min"](values, axis=-1)
        return _math["divide"](smallest, largest) if p == -2 else _math["divide"](largest, smallest)
    if p not in ("fro", "nuc", np.inf, -np.inf, 1, -1):
        raise ValueError("cond: p must be one of None, 2, -2, 'fro', 'nuc', inf, -inf, 1, -1, "
                         "got %r" % (p,))
    return _math["multiply"](matrix_norm(x, p), matrix_norm(inverse(x), p), name=name)


def renorm(x, p, axis, max_norm):
    """x with each slice along `axis` whose p-norm exceeds max_norm scaled to
    max_norm / norm (no epsilon: 3.3.1's kernel, ops/renorm.py)."""
    check_variable(x, "x", "renorm")
    return append_op_out("renorm", {"X": [x]}, {"p": float(p), "axis": int(axis),
                                                "max_norm": float(max_norm)})


renorm_ = in_place(renorm, "renorm_")

EXPORTS = {
    "linalg": {"vector_norm": vector_norm, "matrix_norm": matrix_norm, "norm": norm,
               "cond": cond},
    "paddle": {"renorm": renorm, "renorm_": renorm_, "norm": paddle_norm},
}
