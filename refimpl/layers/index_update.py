"""Indexed reads and writes of Paddle 3 (3.3.1's names and arguments): take_along_axis
(take_along_dim), put_along_axis and its torch-style forms scatter_add / scatter_reduce,
take, index_add, index_fill, index_put, masked_fill, masked_scatter, and the scatters of a
region into a copy (select_scatter, slice_scatter, diagonal_scatter). 3.3.1 runs
take_along_axis, put_along_axis, index_add, index_put and masked_fill as ops of their own
(ops/along_axis.py, ops/index_update.py); the rest it composes, as here. In-place forms
(x.<name>_) change an eager tensor (layers.common.in_place). specs/paddle3_index.md."""
import numpy as np

from ..framework import mode
from ..framework.errors import LayerAssertionError
from ..framework.program import Variable
from . import creation, indexing, manipulation, math, tensor
from .common import append_op_out, check_variable, in_place

INTS = ("int32", "int64")
PUT_REDUCES = ("assign", "add", "mul", "multiply", "mean", "amin", "amax")


def _check_index(index, arg, api):
    check_variable(index, arg, api)
    if index.dtype.name not in INTS:
        raise TypeError("%s: %s must have dtype in %s, got %s"
                        % (api, arg, list(INTS), index.dtype.name))


def _check_rank(arr, indices, axis, api):
    if len(arr.shape) != len(indices.shape):
        raise ValueError("%s: `indices` and `arr` must have the same number of dimensions, "
                         "got shapes %s and %s" % (api, list(indices.shape), list(arr.shape)))
    rank = len(arr.shape)
    if not -rank <= axis < rank:
        raise ValueError("%s: axis %d is out of range for arr of rank %d" % (api, axis, rank))


def _along_axis_shapes(arr, indices, axis, api):
    """arr's and indices' shapes broadcast together outside `axis` (3.3.1's broadcast=True:
    each keeps its own size at `axis`); None when a dim is known only at run time."""
    axis %= len(arr.shape)
    if min(list(arr.shape) + list(indices.shape), default=0) < 0:
        return None
    try:
        common = list(np.broadcast_shapes(*(tuple(1 if i == axis else d for i, d in
                                                  enumerate(s))
                                            for s in (arr.shape, indices.shape))))
    except ValueError:
        raise ValueError("%s: arr of shape %s and indices of shape %s do not broadcast "
                         "outside axis %d" % (api, list(arr.shape), list(indices.shape),
                                              axis))
    return ([d if i != axis else arr.shape[axis] for i, d in enumerate(common)],
            [d if i != axis else indices.shape[axis] for i, d in enumerate(common)])


def _check_fits(arr, indices, axis, api):
    """Without broadcasting, indices may not be larger than arr outside axis (3.3.1: a
    RuntimeError of these words)."""
    axis %= len(arr.shape)
    for i, (n, d) in enumerate(zip(indices.shape, arr.shape)):
        if i != axis and n > d >= 0:
            raise RuntimeError("%s: Size does not match at dimension %d expected index %s to "
                               "be smaller than self %s apart from dimension %d"
                               % (api, i, list(indices.shape), list(arr.shape), axis))


def _broadcast(x, shape):
    return x if shape is None or list(x.shape) == shape else manipulation.broadcast_to(x, shape)


def take_along_axis(arr, indices, axis, broadcast=True):
    """arr's elements at `indices` along `axis` (3.3.1: `broadcast` first broadcasts the
    two to one shape outside axis)."""
    check_variable(arr, "arr", "take_along_axis")
    _check_index(indices, "indices", "take_along_axis")
    _check_rank(arr, indices, axis, "take_along_axis")
    shapes = _along_axis_shapes(arr, indices, axis, "take_along_axis") if broadcast else None
    if shapes:
        arr, indices = _broadcast(arr, shapes[0]), _broadcast(indices, shapes[1])
    _check_fits(arr, indices, axis, "take_along_axis")
    return append_op_out("take_along_axis", {"Input": [arr], "Index": [indices]},
                         {"Axis": int(axis)}, out_slot="Result")


def _values(values, indices, dtype, broadcast):
    """`values` (a number or tensor) as a tensor of `dtype`: a number fills indices'
    shape, a tensor is broadcast to it (without `broadcast` it must cover it)."""
    if not isinstance(values, Variable):
        return creation.fill_constant(list(indices.shape), dtype, values)
    if values.dtype != dtype:
        values = math.cast(values, dtype)
    return _broadcast(values, list(indices.shape)) if broadcast else values


def put_along_axis(arr, indices, values, axis, reduce="assign", include_self=True,
                   broadcast=True):
    """A copy of arr with `values` combined in at `indices` along `axis` by `reduce`."""
    check_variable(arr, "arr", "put_along_axis")
    _check_index(indices, "indices", "put_along_axis")
    if reduce not in PUT_REDUCES:
        raise ValueError("put_along_axis: reduce must be one of %s, got %r"
                         % (list(PUT_REDUCES), reduce))
    _check_rank(arr, indices, axis, "put_along_axis")
    shapes = _along_axis_shapes(arr, indices, axis, "put_along_axis") if broadcast else None
    if shapes:
        indices = _broadcast(indices, shapes[1])
    _check_fits(arr, indices, axis, "put_along_axis")
    values = _values(values, indices, arr.dtype, broadcast)
    return append_op_out("put_along_axis", {"Input": [arr], "Index": [indices],
                                            "Value": [values]},
                         {"Axis": int(axis), "Reduce": reduce,
                          "Include_self": bool(include_self)}, out_slot="Result")


def scatter_add(input, dim, index, src):
    """torch's scatter_add: put_along_axis(input, index, src, dim, "add") without
    broadcasting."""
    return put_along_axis(input, index, src, dim, "add", True, broadcast=False)


_SCATTER_REDUCES = {"sum": "add", "prod": "multiply", "mean": "mean", "amin": "amin",
                    "amax": "amax"}


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    if reduce not in _SCATTER_REDUCES:
        raise ValueError("scatter_reduce: reduce must be one of %s, got %r"
                         % (list(_SCATTER_REDUCES), reduce))
    return put_along_axis(input, index, src, dim, _SCATTER_REDUCES[reduce], include_self,
                          broadcast=False)


_TAKE_MODES = ("raise", "wrap", "clip")


def take(x, index, mode="raise", name=None):
    """x read flat at `index` (index's shape). mode raise: negative indices count from the
    end, others are errors; wrap: taken modulo x's size; clip: clipped to [0, size)."""
    if mode not in _TAKE_MODES:
        raise ValueError("'mode' in 'take' should be 'raise', 'wrap', 'clip', but received "
                         "%s." % mode)
    check_variable(x, "x", "take")
    _check_index(index, "index", "take")
    flat, where = tensor.flatten(x), tensor.flatten(index)
    size = flat.shape[0]
    if mode == "raise":
        where = tensor.where(where < 0, where + size, where)
    elif mode == "wrap":
        where = where % size      # a floor modulo: negative indices wrap too
    elif size > 0:
        where = math.clip(where, 0, size - 1)
    return tensor.reshape(indexing.index_select(flat, where), list(index.shape))


def index_add(x, index, axis, value, alpha=1, name=None):
    """x with value's slices (times alpha) added to x's slices `index` along axis."""
    check_variable(x, "x", "index_add")
    check_variable(value, "value", "index_add")
    _check_index(index, "index", "index_add")
    if alpha != 1:
        value = math.scale(value, float(alpha))
    return append_op_out("index_add", {"X": [x], "Index": [index], "AddValue": [value]},
                         {"axis": int(axis)}, name)


def index_put(x, indices, value, accumulate=False, name=None):
    """x with x[indices] = value (broadcast), or += when accumulate; `indices` a tuple of
    int or bool tensors, one per leading dim."""
    check_variable(x, "x", "index_put")
    indices = list(indices)
    for i, index in enumerate(indices):
        check_variable(index, "indices[%d]" % i, "index_put")
        if index.dtype.name not in INTS + ("bool",):
            raise TypeError("index_put: indices[%d] must have dtype in %s, got %s"
                            % (i, list(INTS + ("bool",)), index.dtype.name))
    value = value if isinstance(value, Variable) else \
        creation.fill_constant([], x.dtype, value)
    if value.dtype != x.dtype:
        raise TypeError("index_put: value must have x's dtype %s, got %s"
                        % (x.dtype.name, value.dtype.name))
    return append_op_out("index_put", {"x": [x], "indices": indices, "value": [value]},
                         {"accumulate": bool(accumulate)}, name, out_slot="out")


def _swap_to_front(x, axis, api):
    rank = len(x.shape)
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)) or \
            not -rank <= axis < rank:
        raise ValueError("%s: the axis should be int, and in range [-rank(x), rank(x)), got "
                         "%r for rank %d" % (api, axis, rank))
    perm = list(range(rank))
    perm[0], perm[axis % rank] = axis % rank, 0
    return perm


def index_fill(x, index, axis, value, name=None):
    """x with its slices `index` along axis set to value (a number or 0-D tensor)."""
    if not isinstance(index, Variable):     # 3.3.1's order of checks
        raise ValueError("index_fill: index must be Tensor, got %s" % type(index).__name__)
    if isinstance(value, Variable) and len(value.shape) > 0:
        raise ValueError("index_fill: value must be a scalar or 0-D tensor, got shape %s"
                         % list(value.shape))
    perm = _swap_to_front(x, axis, "index_fill")
    check_variable(x, "x", "index_fill")
    _check_index(index, "index", "index_fill")
    if isinstance(value, Variable) and value.dtype != x.dtype:
        value = math.cast(value, x.dtype)
    out = index_put(tensor.transpose(x, perm), (index,), value)
    return tensor.transpose(out, perm)


def masked_fill(x, mask, value, name=None):
    """value (a number or tensor, cast to x's dtype) where mask, else x, broadcast."""
    check_variable(x, "x", "masked_fill")
    check_variable(mask, "mask", "masked_fill")
    if mask.dtype.name != "bool":
        raise TypeError("masked_fill: mask must be a bool tensor, got %s" % mask.dtype.name)
    value = value if isinstance(value, Variable) else \
        creation.fill_constant([], x.dtype, value)
    return append_op_out("masked_fill", {"x": [x], "mask": [mask], "value": [value]}, {},
                         name, out_slot="out")


def masked_scatter(x, mask, value, name=None):
    """x with its masked places (x and mask broadcast) filled by value's first elements in
    row-major order."""
    for arg, v in (("x", x), ("mask", mask), ("value", value)):
        check_variable(v, arg, "masked_scatter")
    if mask.dtype.name != "bool":
        raise TypeError("masked_scatter: mask must be a bool tensor, got %s" % mask.dtype.name)
    if value.dtype != x.dtype:
        raise TypeError("masked_scatter: value must have x's dtype %s, got %s"
                        % (x.dtype.name, value.dtype.name))
    x, mask = broadcast_pair(x, mask)
    if mode.dynamic:
        wanted = int(np.asarray(mask.numpy()).sum())
        if wanted > int(np.prod(value.shape)):
            raise LayerAssertionError("masked_scatter: mask true nums must be <= value size, "
                                      "but got mask true nums is %d, value size is %d"
                                      % (wanted, int(np.prod(value.shape))))
    order = manipulation.cumsum(tensor.flatten(math.cast(mask, "int64"))) - 1
    picked = indexing.index_select(tensor.flatten(value), math.clip(order, 0, None))
    return tensor.where(mask, tensor.reshape(picked, list(x.shape)), x)


def broadcast_pair(x, y):
    """x and y broadcast to their common shape (numpy's rule)."""
    shape = list(np.broadcast_shapes(tuple(x.shape), tuple(y.shape)))
    return _broadcast(x, shape), _broadcast(y, shape)


def _set_region(x, value, axes, starts, ends, steps, decrease_axes, api):
    check_variable(x, "x", api)
    check_variable(value, "value", api)
    if value.dtype != x.dtype:
        raise TypeError("%s: the value must have x's dtype %s, got %s"
                        % (api, x.dtype.name, value.dtype.name))
    return append_op_out("set_value", {"Input": [x], "ValueTensor": [value]},
                         {"axes": axes, "starts": starts, "ends": ends, "steps": steps,
                          "decrease_axes": decrease_axes, "values": [], "shape": []},
                         layer_type=api)


def select_scatter(x, values, axis, index, name=None):
    """x with its slice `index` along `axis` replaced by values (x's shape without axis)."""
    rank = len(x.shape)
    if not -rank <= axis < rank:
        raise ValueError("select_scatter: axis %d is out of range for x of rank %d"
                         % (axis, rank))
    axis %= rank
    n = x.shape[axis]
    if n >= 0 and not -n <= index < n:
        raise IndexError("select_scatter: index %d is out of range for dim %d of size %d"
                         % (index, axis, n))
    index = index % n if n > 0 else index
    want = [d for i, d in enumerate(x.shape) if i != axis]
    if list(values.shape) != want:     # 3.3.1: a RuntimeError of these words
        raise RuntimeError("select_scatter: expected values to have a size equal to the "
                           "slice of x. value size = %s slice size = %s"
                           % (list(values.shape), want))
    return _set_region(x, values, [axis], [index], [index + 1], [1], [axis],
                       "select_scatter")


def slice_scatter(x, value, axes, starts, ends, strides, name=None):
    """x with its slice starts:ends:strides on axes replaced by value (the slice's
    shape)."""
    lists = [list(v) for v in (axes, starts, ends, strides)]
    if len({len(v) for v in lists}) != 1:
        raise ValueError("slice_scatter: axes, starts, ends and strides must have the same "
                         "length, got %s" % lists)
    rank = len(x.shape)
    return _set_region(x, value, [a % rank for a in lists[0]], *lists[1:], [],
                       "slice_scatter")


def diagonal_scatter(x, y, offset=0, axis1=0, axis2=1, name=None):
    """x with the `offset`-th diagonal of its (axis1, axis2) planes replaced by y (the
    shape paddle.diagonal gives): a put_along_axis into each flattened plane. Bad
    arguments are AssertionErrors, as 3.3.1's fill_diagonal_tensor asserts them."""
    check_variable(x, "x", "diagonal_scatter")
    check_variable(y, "y", "diagonal_scatter")
    rank = len(x.shape)
    for arg, axis in (("axis1", axis1), ("axis2", axis2)):
        if not -rank <= axis < rank:
            raise LayerAssertionError("diagonal_scatter: %s should be in [-rank, rank) = "
                                      "[%d, %d), got %d" % (arg, -rank, rank, axis))
    a1, a2 = axis1 % rank, axis2 % rank
    if a1 == a2:
        raise LayerAssertionError("diagonal_scatter: axis1 and axis2 should not be identical, "
                                  "both are %d" % a1)
    rest = [i for i in range(rank) if i not in (a1, a2)]
    rows, cols = x.shape[a1], x.shape[a2]
    k = np.arange(max(0, min(rows, cols - offset) if offset >= 0 else min(rows + offset, cols)))
    places = (k + max(-offset, 0)) * cols + k + max(offset, 0)
    want = [x.shape[i] for i in rest] + [len(k)]
    if list(y.shape) != want:
        raise LayerAssertionError("diagonal_scatter: the y shape should be %s (the "
                                  "diagonal's), got %s" % (want, list(y.shape)))
    planes = tensor.transpose(x, rest + [a1, a2])
    flat = tensor.reshape(planes, want[:-1] + [rows * cols])
    index = _broadcast(creation.assign(places.astype(np.int64).reshape(
        [1] * len(rest) + [len(k)])), want)
    out = put_along_axis(flat, index, y, -1, broadcast=False)
    return tensor.transpose(tensor.reshape(out, list(planes.shape)),
                            list(np.argsort(rest + [a1, a2])))


_FUNCTIONS = {
    "take_along_axis": take_along_axis, "take_along_dim": take_along_axis,
    "put_along_axis": put_along_axis, "scatter_add": scatter_add,
    "scatter_reduce": scatter_reduce, "take": take, "index_add": index_add,
    "index_fill": index_fill, "index_put": index_put, "masked_fill": masked_fill,
    "masked_scatter": masked_scatter, "select_scatter": select_scatter,
    "slice_scatter": slice_scatter, "diagonal_scatter": diagonal_scatter,
}
# 3.3.1 has paddle.<name>_ for these, and Tensor.put_along_axis_ (no paddle.put_along_axis_)
_IN_PLACE = {n + "_": in_place(_FUNCTIONS[n], n + "_") for n in
             ("index_add", "index_fill", "index_put", "masked_fill", "masked_scatter",
              "scatter_add")}
_PUT_ALONG_AXIS_ = in_place(put_along_axis, "put_along_axis_")

EXPORTS = {
    "paddle": dict(_FUNCTIONS, **_IN_PLACE),
    "Tensor": dict(_FUNCTIONS, **_IN_PLACE, put_along_axis_=_PUT_ALONG_AXIS_),
}
