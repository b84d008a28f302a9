"""Shape manipulation of Paddle 3 (3.3.1's names and arguments), composed from the ops
refimpl has, as 3.3.1 composes them: splits (tensor_split, hsplit / vsplit / dsplit,
split_with_sizes), stacks (hstack, vstack / row_stack, dstack, column_stack, cat /
concatenate), atleast_1d/2d/3d, axis moves (moveaxis, swapaxes / swapdims, permute,
matrix_transpose), views as copies (unflatten, narrow, ravel, view, view_as, unfold,
as_strided), rot90, broadcast_tensors / broadcast_shapes, repeat_interleave, and the
in-place t_, transpose_, flatten_, tril_, triu_, where_. specs/paddle3_index.md."""
import builtins
import functools
import itertools

import numpy as np

from ..framework.dtypes import convert_dtype
from ..framework.program import Variable
from . import creation, indexing, manipulation, math, tensor
from .common import append_op_out, check_variable, in_place


def _axis(x, axis, api):
    rank = max(len(x.shape), 1)
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)) or \
            not -rank <= axis < rank:
        raise ValueError("%s: axis %r is out of range for x of rank %d (expected an int in "
                         "[%d, %d))" % (api, axis, len(x.shape), -rank, rank))
    return int(axis) % rank


def _known_dim(x, axis, api):
    n = x.shape[axis]
    if n < 0:
        raise ValueError("%s: dim %d of x is known only at run time" % (api, axis))
    return n


def _range(x, axis, start, stop):
    """x[start:stop] along axis (Python's slice rule), empty ranges too."""
    start, stop, _ = builtins.slice(start, stop).indices(x.shape[axis])
    return tensor.slice(x, [axis], [start], [builtins.max(start, stop)])


# -- splits

def tensor_split(x, num_or_indices, axis=0, name=None):
    """x cut along axis into num_or_indices pieces (the first size % n one longer), or at
    the indices num_or_indices (Python slice bounds: negative ones count from the end)."""
    check_variable(x, "x", "tensor_split")
    axis = _axis(x, axis, "tensor_split")
    size = _known_dim(x, axis, "tensor_split")
    if isinstance(num_or_indices, (int, np.integer)) and not isinstance(num_or_indices, bool):
        n = int(num_or_indices)
        if n <= 0:
            raise ValueError("tensor_split: num_or_indices must be larger than 0, got %d" % n)
        sizes = [size // n + (i < size % n) for i in range(n)]
        bounds = list(itertools.accumulate([0] + sizes))
    elif isinstance(num_or_indices, (list, tuple)):
        bounds = [0] + [int(i) for i in num_or_indices] + [size]
    else:
        raise TypeError("tensor_split: num_or_indices must be an int, list or tuple, got %s"
                        % type(num_or_indices).__name__)
    return [_range(x, axis, a, b) for a, b in zip(bounds[:-1], bounds[1:])]


def _split_at_least(api, rank, axis_of):
    def split(x, num_or_indices, name=None):
        check_variable(x, "x", api)
        if len(x.shape) < rank:
            raise ValueError("%s: The input tensor's dimension must be greater than %d, but "
                             "got %d" % (api, rank - 1, len(x.shape)))
        return tensor_split(x, num_or_indices, axis_of(len(x.shape)), name)
    split.__name__ = api
    return split


hsplit = _split_at_least("hsplit", 1, lambda rank: 1 if rank > 1 else 0)
vsplit = _split_at_least("vsplit", 2, lambda rank: 0)
dsplit = _split_at_least("dsplit", 3, lambda rank: 2)


def split_with_sizes(self, split_sizes, dim=0):
    """Tensor.split_with_sizes: pieces of the given sizes, which must add up to the dim."""
    check_variable(self, "self", "split_with_sizes")
    dim = _axis(self, dim, "split_with_sizes")
    size = _known_dim(self, dim, "split_with_sizes")
    if sum(split_sizes) != size:
        raise ValueError("split_with_sizes: Split sizes add up to %d but got the tensor's "
                         "size of %d" % (sum(split_sizes), size))
    return tensor.split(self, [int(s) for s in split_sizes], dim)


# -- at least n dims, stacks

def _numbers_as_tensors(inputs):
    return [v if isinstance(v, Variable) else creation.assign(np.asarray(v)) for v in inputs]


def _at_least(shapes):
    """atleast_<n>d: each input reshaped by shapes[rank] (rank < n) or kept."""
    def at_least(*inputs, name=None):
        if len(inputs) == 1 and isinstance(inputs[0], (list, tuple)):
            inputs = inputs[0]
        out = []
        for v in _numbers_as_tensors(inputs):
            rank = len(v.shape)
            out.append(tensor.reshape(v, shapes[rank](list(v.shape))) if rank in shapes
                       else v)
        return out[0] if len(out) == 1 else out
    return at_least


atleast_1d = _at_least({0: lambda s: [1]})
atleast_2d = _at_least({0: lambda s: [1, 1], 1: lambda s: [1] + s})
atleast_3d = _at_least({0: lambda s: [1, 1, 1], 1: lambda s: [1] + s + [1],
                        2: lambda s: s + [1]})


def _tensor_list(x, api):
    x = list(x)
    for i, v in enumerate(x):
        check_variable(v, "x[%d]" % i, api)
    return x


def hstack(x, name=None):
    """The tensors (at least 1-D) joined along dim 1, or along dim 0 when all are 1-D."""
    x = [atleast_1d(v) for v in _tensor_list(x, "hstack")]
    return tensor.concat(x, 0 if all(len(v.shape) == 1 for v in x) else 1, name)


def vstack(x, name=None):
    return tensor.concat([atleast_2d(v) for v in _tensor_list(x, "vstack")], 0, name)


def dstack(x, name=None):
    return tensor.concat([atleast_3d(v) for v in _tensor_list(x, "dstack")], 2, name)


def column_stack(x, name=None):
    """The tensors as columns: 0-D and 1-D ones made [n, 1], joined along dim 1."""
    x = [tensor.reshape(v, [-1, 1]) if len(v.shape) < 2 else v
         for v in _tensor_list(x, "column_stack")]
    return tensor.concat(x, 1, name)


def cat(x, axis=0, name=None):
    return tensor.concat(x, axis, name)


# -- axes

def _perm_moving(rank, source, destination):
    source = [int(s) for s in (source if isinstance(source, (list, tuple)) else [source])]
    destination = [int(d) for d in (destination if isinstance(destination, (list, tuple))
                                    else [destination])]
    if len(source) != len(destination):
        raise ValueError("moveaxis: 'source' must have the same number with 'destination', "
                         "got %s and %s" % (source, destination))
    for what, axes in (("source", source), ("destination", destination)):
        if any(not -rank <= a < rank for a in axes):
            raise ValueError("moveaxis: each element of '%s' must be in [%d, %d), got %s"
                             % (what, -rank, rank, axes))
        if len({a % rank for a in axes}) != len(axes):
            raise ValueError("moveaxis: Each element of '%s' must be unique!" % what)
    source = [a % rank for a in source]
    destination = [a % rank for a in destination]
    rest = iter(a for a in range(rank) if a not in source)
    moved = dict(zip(destination, source))
    return [moved[i] if i in moved else next(rest) for i in range(rank)]


def moveaxis(x, source, destination, name=None):
    """x with its dims `source` moved to `destination`, the others in their order."""
    check_variable(x, "x", "moveaxis")
    return tensor.transpose(x, _perm_moving(len(x.shape), source, destination), name)


def swapaxes(x, perm, *axis1, name=None):
    """swapaxes(x, axis0, axis1): the two dims exchanged; swapaxes(x, perm): transpose."""
    check_variable(x, "x", "swapaxes")
    if axis1:
        rank = len(x.shape)
        order = list(range(rank))
        a, b = (_axis(x, v, "swapaxes") for v in (perm, axis1[0]))
        order[a], order[b] = order[b], order[a]
        perm = order
    return tensor.transpose(x, list(perm), name)


def permute(input, *dims):
    """input's dims in the order dims (given as one list or as ints)."""
    dims = dims[0] if len(dims) == 1 and isinstance(dims[0], (list, tuple)) else dims
    return tensor.transpose(input, [int(d) for d in dims])


def matrix_transpose(x, name=None):
    """x with its last two dims exchanged (x.mT)."""
    check_variable(x, "x", "matrix_transpose")
    rank = len(x.shape)
    if rank < 2:
        raise ValueError("matrix_transpose: Tensor.ndim(%d) is required to be greater than "
                         "or equal to 2." % rank)
    return tensor.transpose(x, list(range(rank - 2)) + [rank - 1, rank - 2], name)


# -- views (refimpl copies: a write to the result does not reach x)

def unflatten(x, axis, shape, name=None):
    """x with dim `axis` split into `shape` (one -1 allowed): a list of ints or 0-D / 1-element
    int tensors, or a 1-D int tensor (the dims known when it runs)."""
    check_variable(x, "x", "unflatten")
    axis = _axis(x, axis, "unflatten")
    dims = list(x.shape)
    if isinstance(shape, Variable):
        before, after = (creation.assign(np.array(d, np.int32)) for d in
                         (dims[:axis], dims[axis + 1:]))
        parts = [before, math.cast(shape, "int32"), after]
        shape = tensor.concat([p for p in parts if p.shape[0] != 0], 0)
        return tensor.reshape(x, shape, name)
    if not isinstance(shape, (list, tuple)) or not shape:
        raise TypeError("unflatten: shape must be a non-empty list, tuple or Tensor, got %r"
                        % (shape,))
    return tensor.reshape(x, dims[:axis] + list(shape) + dims[axis + 1:], name)


def narrow(input, dim, start, length):
    """input[start:start + length] along dim (a negative start counts from the end)."""
    check_variable(input, "input", "narrow")
    dim = _axis(input, dim, "narrow")
    size = _known_dim(input, dim, "narrow")
    start = int(start) + size if int(start) < 0 else int(start)
    if not 0 <= start <= size or length < 0 or start + length > size:
        raise ValueError("narrow: start (%d) + length (%d) exceeds dimension size (%d)."
                         % (start, length, size))
    return tensor.slice(input, [dim], [start], [start + int(length)])


def ravel(input):
    return tensor.flatten(input)


def view(x, shape_or_dtype, name=None):
    """x reshaped (a list of dims), or x's bytes read as another dtype (the last dim
    scaled by the ratio of the item sizes: the view_dtype op)."""
    check_variable(x, "x", "view")
    if isinstance(shape_or_dtype, (list, tuple)):
        return tensor.reshape(x, [int(d) for d in shape_or_dtype], name)
    dtype = convert_dtype(shape_or_dtype)
    return append_op_out("view_dtype", {"input": [x]}, {"dtype": dtype}, name,
                         out_dtype=dtype, out_slot="out")


def view_as(x, other, name=None):
    check_variable(other, "other", "view_as")
    return view(x, list(other.shape), name)


def _read_flat(x, places, shape):
    """x's elements at the flat positions `places` (ints), shaped `shape`."""
    index = creation.assign(np.asarray(places, np.int64).reshape(-1))
    return tensor.reshape(indexing.index_select(tensor.flatten(x), index), list(shape))


def unfold(x, axis, size, step, name=None):
    """Tensor.unfold: the windows of `size` elements every `step` along axis, as a new
    last dim; axis holds the window count."""
    check_variable(x, "x", "unfold")
    if len(x.shape) == 0:
        return tensor.reshape(x, [1])
    axis = _axis(x, axis, "unfold")
    n = _known_dim(x, axis, "unfold")
    if size > n or size < 0 or step <= 0:
        raise ValueError("unfold: size (%d) must be in [0, %d] (dim %d) and step (%d) "
                         "positive" % (size, n, axis, step))
    starts = np.arange(0, n - size + 1, step)
    places = (starts[:, None] + np.arange(size)).reshape(-1)
    windows = indexing.index_select(x, creation.assign(places.astype(np.int64)), axis)
    shape = list(x.shape)
    grouped = tensor.reshape(windows, shape[:axis] + [len(starts), size] + shape[axis + 1:])
    return moveaxis(grouped, axis + 1, -1)


def as_strided(x, shape, stride, offset=0, name=None):
    """The elements of x (read row-major) at offset + sum(i_k * stride_k) for each index i
    of `shape`: a copy (3.3.1's is a view of x's memory)."""
    check_variable(x, "x", "as_strided")
    shape, stride = [int(d) for d in shape], [int(s) for s in stride]
    if len(shape) != len(stride):
        raise ValueError("as_strided: shape %s and stride %s must have the same length"
                         % (shape, stride))
    places = offset + sum(np.arange(d).reshape([-1 if i == k else 1 for i in range(len(shape))])
                          * s for k, (d, s) in enumerate(zip(shape, stride)))
    places = np.broadcast_to(places, shape)
    total = int(np.prod(x.shape))
    if places.size and (places.min() < 0 or places.max() >= total):
        raise ValueError("as_strided: shape %s, stride %s and offset %d reach outside x's %d "
                         "elements" % (shape, stride, offset, total))
    return _read_flat(x, places, shape)


# -- rotation, broadcasting, repeats

def rot90(x, k=1, axes=(0, 1), name=None):
    """x rotated by k quarter turns in the plane `axes`, from its first axis toward its
    second (numpy's rot90)."""
    check_variable(x, "x", "rot90")
    rank = len(x.shape)
    axes = list(axes)
    if len(axes) != 2:
        raise ValueError("rot90: expected total rotation axes == 2, but got axes = %s" % axes)
    if rank < 2:
        raise ValueError("rot90: expected total dims >= 2, but got total dims = %d" % rank)
    a, b = (_axis(x, v, "rot90") for v in axes)
    if a == b:
        raise ValueError("rot90: expected rotation axes to be different, but got axis0 = %d, "
                         "and axis1 = %d" % (a, b))
    k %= 4
    if k == 0:
        return creation.assign(x)
    if k == 2:
        return manipulation.flip(x, [a, b])
    perm = list(range(rank))
    perm[a], perm[b] = perm[b], perm[a]
    if k == 1:
        return tensor.transpose(manipulation.flip(x, [b]), perm)
    return manipulation.flip(tensor.transpose(x, perm), [b])


def broadcast_shapes(*shapes):
    """The shape all `shapes` broadcast to (paddle.broadcast_shape folded)."""
    return functools.reduce(math.broadcast_shape, shapes, [])


_BROADCAST_DTYPES = ("bool", "float16", "float32", "float64", "int32", "int64", "complex64",
                     "complex128")


def broadcast_tensors(input, name=None):
    """The tensors, each broadcast to their common shape (one broadcast_tensors op). As
    3.3.1: mixed dtypes, other dtypes and shapes that do not broadcast are TypeErrors."""
    input = _tensor_list(input, "broadcast_tensors")
    for i, v in enumerate(input):
        if v.dtype.name not in _BROADCAST_DTYPES or v.dtype != input[0].dtype:
            raise TypeError("broadcast_tensors: the tensors must share one dtype of %s, "
                            "input[%d] is %s and input[0] %s" % (list(_BROADCAST_DTYPES), i,
                                                                v.dtype.name,
                                                                input[0].dtype.name))
    try:
        broadcast_shapes(*(v.shape for v in input))
    except ValueError as e:
        raise TypeError("broadcast_tensors: %s" % e) from None
    return manipulation.list_out("broadcast_tensors", {"X": input}, len(input), {},
                                 input[0].dtype, name)


def repeat_interleave(x, repeats, axis=None, name=None, *, output_size=None):
    """x's slices along axis each repeated `repeats` times (an int, or a tensor of one
    count per slice); axis None: x flattened first."""
    check_variable(x, "x", "repeat_interleave")
    if axis is None:
        x, axis = tensor.flatten(x), 0
    axis = _axis(x, axis, "repeat_interleave")
    if isinstance(repeats, Variable):
        return append_op_out("repeat_interleave", {"X": [x], "RepeatsTensor": [repeats]},
                             {"dim": axis}, name)
    if isinstance(repeats, bool) or not isinstance(repeats, (int, np.integer)):
        raise TypeError("repeat_interleave: repeats must be an int or a Tensor, got %s"
                        % type(repeats).__name__)
    if repeats < 0:
        raise ValueError("repeat_interleave: repeats should be larger than zero, got %d"
                         % repeats)
    return append_op_out("repeat_interleave", {"X": [x]}, {"Repeats": int(repeats),
                                                          "dim": axis}, name)


def where_(condition, x=None, y=None, name=None):
    """x changed in place to where(condition, x, y)."""
    if not (isinstance(x, Variable) and isinstance(y, Variable)):
        raise ValueError("where_: either both or neither of x and y should be given, as "
                         "Tensors (3.3.1's words); got %s and %s"
                         % (type(x).__name__, type(y).__name__))
    check_variable(condition, "condition", "where_")
    if condition.dtype.name != "bool":
        raise ValueError("where_: The `condition` is expected to be a boolean Tensor, but got "
                         "a Tensor with dtype %s" % condition.dtype.name)
    return _where_in_place(x, condition, y)


def _where_on_x(x, condition, y):
    return tensor.where(condition, x, y)


_where_in_place = in_place(_where_on_x, "where_")


_FUNCTIONS = {
    "tensor_split": tensor_split, "hsplit": hsplit, "vsplit": vsplit, "dsplit": dsplit,
    "atleast_1d": atleast_1d, "atleast_2d": atleast_2d, "atleast_3d": atleast_3d,
    "moveaxis": moveaxis, "swapaxes": swapaxes, "swapdims": swapaxes, "permute": permute,
    "matrix_transpose": matrix_transpose, "unflatten": unflatten, "narrow": narrow,
    "ravel": ravel, "view": view, "view_as": view_as, "unfold": unfold,
    "as_strided": as_strided, "rot90": rot90, "broadcast_tensors": broadcast_tensors,
    "broadcast_shapes": broadcast_shapes, "repeat_interleave": repeat_interleave,
}
_IN_PLACE = {"t_": in_place(manipulation.t, "t_"),
             "transpose_": in_place(tensor.transpose, "transpose_"),
             "flatten_": in_place(tensor.flatten, "flatten_"),
             "tril_": in_place(manipulation.tril, "tril_"),
             "triu_": in_place(manipulation.triu, "triu_"), "where_": where_}

EXPORTS = {
    "paddle": dict(_FUNCTIONS, **_IN_PLACE, hstack=hstack, vstack=vstack, row_stack=vstack,
                   dstack=dstack, column_stack=column_stack, cat=cat, concatenate=cat),
    "Tensor": dict(_FUNCTIONS, **_IN_PLACE, split_with_sizes=split_with_sizes,
                   broadcast_shape=math.broadcast_shape),
}
