"""Paddle 3's fills of a tensor (3.3.1's names, all profiles): `x.fill_(v)`, `x.zero_()`,
`x.fill_diagonal_(v, offset, wrap)`, `x.fill_diagonal_tensor(y, offset, dim1, dim2)` and
its in-place `_`, and `x.repeat(repeats)` (paddle.tile). 3.3.1 runs fill_diagonal and
fill_diagonal_tensor as kernels; here they are a `where` between x and the fill over a
constant mask of the diagonal (the positions follow from the static shape), so static
programs and gradients come from where / gather: none to the filled positions of x, y's
to its own."""
import numpy as np

from ..framework.dtypes import convert_dtype
from . import creation
from .common import check_variable, in_place
from .tensor import gather, reshape, tile, where


def _known_shape(x, layer):
    check_variable(x, "x", layer)
    shape = list(x.shape)
    if any(d < 0 for d in shape):
        raise ValueError("%s: x's shape %s must be known when the layer is built (the "
                         "diagonal's positions come from it)" % (layer, shape))
    return shape


def _filled(x, value):
    """full_like(x, value): x's shape and dtype (an int x truncates a float value)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError("The type of 'value'  must be int or float, but received %s."
                        % type(value))
    return creation.full_like(x, value)


def fill_diagonal(x, value, offset=0, wrap=False, name=None):
    """x with `value` on its diagonal, at 3.3.1's kernel's positions: i + offset for the
    flat i = 0, s, 2 s, ... (s the sum of x's strides: cols + 1 for a matrix) below
    min(numel, cols^2) for a matrix without wrap (wrap: the diagonal of a tall matrix
    starts again every cols + 1 rows), below numel for more dims (whose sizes 3.3.1 does
    not check), where i's column plus offset stays within the last dim. A 1-D x is refused
    (3.3.1's kernel dies on SIGFPE)."""
    shape = _known_shape(x, "fill_diagonal_")
    if len(shape) < 2:
        raise ValueError("fill_diagonal_: x must be at least 2-D, got shape %s" % shape)
    numel, cols = int(np.prod(shape)), shape[-1]
    step = int(np.cumprod([1] + shape[:0:-1]).sum())
    size = min(numel, cols * cols) if len(shape) == 2 and not wrap else numel
    flat = np.arange(0, size, step)
    column = flat % cols + offset
    mask = np.zeros(numel, bool)
    mask[flat[(column >= 0) & (column < cols)] + offset] = True
    return where(creation.assign(mask.reshape(shape)), _filled(x, value), x)


def _diagonal_index(shape, offset, dim1, dim2):
    """(mask of x's diagonal between dims dim1 and dim2, flat index into y per position,
    y's shape): y holds x's other dims, then the diagonal."""
    grid = np.indices(shape)
    i, j = grid[dim1], grid[dim2]
    mask = j - i == offset
    others = [k for k in range(len(shape)) if k not in (dim1, dim2)]
    length = int(mask.any(axis=tuple(others)).sum()) if others else int(mask.sum())
    along = i if offset >= 0 else j
    y_shape = [shape[k] for k in others] + [length]
    index = np.ravel_multi_index([grid[k] for k in others] + [np.minimum(along, length - 1)],
                                 y_shape) if length else np.zeros(shape, np.int64)
    return mask, np.where(mask, index, 0).astype(np.int64), y_shape


def fill_diagonal_tensor(x, y, offset=0, dim1=0, dim2=1, name=None):
    """x with the diagonal (offset) between its dims dim1 and dim2 set to y, whose shape
    is x's other dims then the diagonal's length (3.3.1's AssertionError otherwise)."""
    shape = _known_shape(x, "fill_diagonal_tensor")
    check_variable(y, "y", "fill_diagonal_tensor")
    rank = len(shape)
    dim1, dim2 = dim1 % rank, dim2 % rank
    if dim1 == dim2:
        raise ValueError("fill_diagonal_tensor: dim1 and dim2 must differ, got %d and %d"
                         % (dim1, dim2))
    mask, index, y_shape = _diagonal_index(shape, offset, dim1, dim2)
    if list(y.shape) != y_shape:
        raise AssertionError("the y shape should be %s (fill_diagonal_tensor: y's shape "
                             "is %s)" % (y_shape, list(y.shape)))
    if convert_dtype(y.dtype) != convert_dtype(x.dtype):
        raise TypeError("fill_diagonal_tensor: y's dtype %s must be x's, %s"
                        % (convert_dtype(y.dtype), convert_dtype(x.dtype)))
    spread = reshape(gather(reshape(y, [-1]), creation.assign(index.reshape(-1))), shape)
    return where(creation.assign(mask), spread, x)


def replacing(fill):
    """fill(x, ...) standing in for x: where x needs a gradient, in the graph as a `where`
    that passes x none (3.3.1's fills and random fills give x a zero gradient), else the
    fill itself."""
    def replaced(x, *args, **kwargs):
        value = fill(x, *args, **kwargs)
        if x.stop_gradient:
            return value
        return where(creation.full_like(x, True, "bool"), value, x)
    replaced.__name__ = fill.__name__
    return replaced


@replacing
def fill(x, value):
    """x.fill_(value) out of place: full_like(x, value)."""
    return _filled(x, value)


@replacing
def zero(x):
    return _filled(x, 0)


def repeat(x, repeats):
    """x.repeat(repeats): paddle.tile (an int repeats tiles the last dim)."""
    return tile(x, [repeats] if isinstance(repeats, int) else repeats)


EXPORTS = {
    "Tensor": {"fill_": in_place(fill, "fill_"), "zero_": in_place(zero, "zero_"),
               "fill_diagonal_": in_place(fill_diagonal, "fill_diagonal_"),
               "fill_diagonal_tensor": fill_diagonal_tensor,
               "fill_diagonal_tensor_": in_place(fill_diagonal_tensor,
                                                 "fill_diagonal_tensor_"),
               "repeat": repeat},
}
