"""Paddle 3's fills of a tensor (3.3.1's names, all profiles): `x.fill_(v)`, `x.zero_()`,
`x.fill_diagonal_(v, offset, wrap)`, `x.fill_diagonal_tensor(y, offset, dim1, dim2)` and
its in-place `_`, and `x.repeat(repeats)` (paddle.tile). fill_diagonal_tensor is its op
(as 3.3.1's kernel); fill_diagonal_ (a kernel in 3.3.1 too) is a `where` between x and the
fill over a constant mask of 3.3.1's positions (they follow from the static shape), so its
static programs and gradients come from where: none to the filled positions of x."""
import numpy as np

from . import creation
from .common import append_op_out, check_variable, in_place
from .tensor import tile, where


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


def fill_diagonal_tensor(x, y, offset=0, dim1=0, dim2=1, name=None):
    """The fill_diagonal_tensor op: x with the diagonal (offset) between its dims dim1 and
    dim2 set to y, whose shape must be x's other dims then the diagonal's length (the op's
    error names the shape wanted; 3.3.1's is an AssertionError)."""
    check_variable(y, "y", "fill_diagonal_tensor")
    return append_op_out("fill_diagonal_tensor", {"X": [x], "Y": [y]},
                         {"offset": int(offset), "dim1": int(dim1), "dim2": int(dim2)}, name)


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


_FILLS = {"fill_": in_place(fill, "fill_"), "zero_": in_place(zero, "zero_"),
          "fill_diagonal_": in_place(fill_diagonal, "fill_diagonal_"),
          "fill_diagonal_tensor": fill_diagonal_tensor,
          "fill_diagonal_tensor_": in_place(fill_diagonal_tensor, "fill_diagonal_tensor_")}

# paddle.tensor.manipulation holds the fills in 3.3.1 (the paddle namespace does not)
EXPORTS = {"Tensor": dict(_FILLS, repeat=repeat), "tensor": _FILLS}
