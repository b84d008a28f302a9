"""Matrices built from pieces and positions (Paddle 3, 3.3.1's names and arguments):
diagonal, diag_embed (paddle.diag_embed: nn.functional's), diagflat, block_diag,
tril_indices / triu_indices, vander, combinations, cartesian_prod. diagonal and the
triangle indices are ops (ops/diagonal.py, as in 3.3.1); the rest is composed, as 3.3.1
composes them. specs/paddle3_index.md."""
import itertools

import numpy as np

from ..framework.dtypes import convert_dtype
from . import creation, functional_vision, indexing, manipulation, tensor
from .common import append_op_out, append_op_outputs, check_variable
from .reshaping import atleast_2d


def diagonal(x, offset=0, axis1=0, axis2=1, name=None):
    """The `offset`-th diagonal of x's (axis1, axis2) planes, as x's last dim."""
    check_variable(x, "x", "diagonal")
    if len(x.shape) < 2:
        raise ValueError("diagonal: x must have at least 2 dims, got shape %s" % list(x.shape))
    return append_op_out("diagonal", {"Input": [x]}, {"offset": int(offset),
                                                      "axis1": int(axis1),
                                                      "axis2": int(axis2)}, name)


def diagflat(x, offset=0, name=None):
    """A square matrix with x's elements (read flat) on its `offset`-th diagonal."""
    check_variable(x, "x", "diagflat")
    return manipulation.diag(tensor.flatten(x), offset)


def block_diag(inputs, name=None):
    """The matrices (0-D: 1 x 1, 1-D: one row) along the diagonal of one, zeros elsewhere."""
    blocks = [atleast_2d(v) for v in inputs]
    for i, v in enumerate(blocks):
        check_variable(v, "inputs[%d]" % i, "block_diag")
        if v.dtype != blocks[0].dtype:
            raise ValueError("block_diag: the data_type of input tensor in list isn't "
                            "consistent, the first tensor is %s, but %dth tensor is %s"
                            % (blocks[0].dtype.name, i, v.dtype.name))
    widths = [v.shape[1] for v in blocks]
    rows = []
    for i, v in enumerate(blocks):
        before, after = sum(widths[:i]), sum(widths[i + 1:])
        pieces = [creation.fill_constant([v.shape[0], w], v.dtype, 0) if w else None
                  for w in (before, after)]
        rows.append(tensor.concat([p for p in (pieces[0], v, pieces[1]) if p is not None],
                                  1))
    return tensor.concat(rows, 0)


def _triangle_indices(op, sizes, offset, dtype):
    """`sizes`: {attr: (argument, value)}."""
    for attr, (arg, v) in sizes.items():
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
            raise TypeError("%s: %s should be a non-negative int, got %r" % (op, arg, v))
    if isinstance(offset, bool) or not isinstance(offset, (int, np.integer)):
        raise TypeError("%s: offset should be an int, got %r" % (op, offset))
    dtype = convert_dtype(dtype)
    if dtype not in ("int32", "int64"):
        raise TypeError("%s: dtype must be int32 or int64, got %s" % (op, dtype))
    attrs = dict({k: int(v) for k, (_, v) in sizes.items()}, offset=int(offset), dtype=dtype)
    return append_op_outputs(op, {}, [("out", dtype, True)], attrs)[0]


def tril_indices(row, col, offset=0, dtype="int64"):
    """[2, n]: the row and column of each element on and below the `offset`-th diagonal
    of a row x col matrix (col None: square), row-major."""
    return _triangle_indices("tril_indices", {"rows": ("row", row),
                                              "cols": ("col", row if col is None else col)},
                             offset, dtype)


def triu_indices(row, col=None, offset=0, dtype="int64"):
    """[2, n]: the row and column of each element on and above the `offset`-th diagonal
    of a row x col matrix (col None: square), row-major."""
    return _triangle_indices("triu_indices", {"row": ("row", row),
                                             "col": ("col", row if col is None else col)},
                             offset, dtype)


def vander(x, n=None, increasing=False, name=None):
    """The Vandermonde matrix of 1-D x: column j holds x ** (n - 1 - j), or x ** j when
    increasing."""
    check_variable(x, "x", "vander")
    if len(x.shape) != 1:
        raise ValueError("vander: x must be a 1-D tensor, got shape %s" % list(x.shape))
    n = x.shape[0] if n is None else int(n)
    if n < 0:
        raise ValueError("vander: n must be non-negative, got %d" % n)
    if n == 0:
        return creation.fill_constant([x.shape[0], 0], x.dtype, 0)
    powers = [creation.ones_like(x)]
    for _ in range(n - 1):
        powers.append(powers[-1] * x)
    return tensor.stack(powers if increasing else powers[::-1], 1)


def combinations(x, r=2, with_replacement=False, name=None):
    """[m, r]: the length-r combinations of 1-D x's elements (with repeats when
    with_replacement), in lexicographic order of their positions."""
    if len(x.shape) != 1:      # 3.3.1's order of checks and error types
        raise TypeError("combinations: Expect a 1-D vector, but got x shape %s"
                        % list(x.shape))
    if isinstance(r, bool) or not isinstance(r, (int, np.integer)) or r < 0:
        raise ValueError("combinations: r must be a non-negative int, got %r" % (r,))
    check_variable(x, "x", "combinations")
    if r == 0:
        return creation.fill_constant([0], x.dtype, 0)
    pick = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    places = np.array(list(pick(range(x.shape[0]), r)), np.int64).reshape(-1, r)
    if places.size == 0:
        return creation.fill_constant([0, r], x.dtype, 0)
    picked = indexing.index_select(x, creation.assign(places.reshape(-1)))
    return tensor.reshape(picked, [len(places), r])


def cartesian_prod(x, name=None):
    """[m, len(x)]: every tuple taking one element of each 1-D tensor, the last one
    changing fastest (one tensor: itself)."""
    x = list(x)
    for i, v in enumerate(x):
        check_variable(v, "x[%d]" % i, "cartesian_prod")
        if len(v.shape) != 1:
            raise ValueError("cartesian_prod: each tensor must be 1-D, x[%d] has shape %s"
                             % (i, list(v.shape)))
    if len(x) == 1:
        return x[0]
    grids = manipulation.meshgrid(x)
    return tensor.stack([tensor.flatten(g) for g in grids], 1)


_FUNCTIONS = {"diagonal": diagonal, "diag_embed": functional_vision.diag_embed,
              "diagflat": diagflat, "block_diag": block_diag, "vander": vander,
              "combinations": combinations}

EXPORTS = {
    "paddle": dict(_FUNCTIONS, tril_indices=tril_indices, triu_indices=triu_indices,
                   cartesian_prod=cartesian_prod),
    "Tensor": _FUNCTIONS,
}
