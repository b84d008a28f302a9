"""Tensor manipulation layers of the Paddle 2.0 API and their fluid.layers 1.8 forms:
cumulative sums, flips, rolls, triangles and diagonals (cumsum, flip, roll, tril/triu, diag,
eye), broadcasting, grids, splitting and slicing (broadcast_to, expand_as, meshgrid, chunk,
unbind, strided_slice, crop, t), plus the in-place variants (reshape_, ...), which in a
static graph build the out-of-place op, as Paddle 2.0 does outside dygraph. Gathering,
scattering and sets are in indexing.py; reshape, concat and friends in tensor.py."""
import numpy as np

from .. import versions
from ..framework import mode
from ..framework.dtypes import convert_dtype
from ..framework.layer_helper import LayerHelper
from ..framework.program import Variable
from . import activation, creation, math, tensor
from .common import append_op_out, as_list, check_dtype, check_variable, in_place, unary


def _axes(axis):
    return [int(a) for a in as_list(axis)]


def list_out(op_type, inputs, n, attrs, dtype, name=None):
    """Append `op_type` with `n` outputs in its Out list; return them."""
    helper = LayerHelper(op_type, name=name)
    outs = [helper.create_variable_for_type_inference(dtype) for _ in range(n)]
    helper.append_op(type=op_type, inputs=inputs, outputs={"Out": outs}, attrs=attrs)
    return outs


# -- cumulative sums, flips, rolls, triangles, diagonals

def cumsum(x, axis=None, dtype=None, name=None):
    """Running sum along `axis`; axis None sums the flattened x."""
    check_variable(x, "x", "cumsum")
    if dtype is not None and convert_dtype(dtype) != x.dtype.name:
        x = math.cast(x, dtype)
    attrs = {"flatten": True} if axis is None else {"axis": int(axis)}
    return unary("cumsum", x, attrs, name)


def fluid_cumsum(x, axis=None, exclusive=None, reverse=None):
    return unary("cumsum", x, {"axis": -1 if axis is None else int(axis),
                               "exclusive": bool(exclusive), "reverse": bool(reverse)})


def flip(x, axis, name=None):
    return unary("flip", x, {"axis": _axes(axis)}, name)


def fluid_reverse(x, axis):
    return unary("reverse", x, {"axis": _axes(axis)})


def roll(x, shifts, axis=None, name=None):
    return unary("roll", x, {"shifts": _axes(shifts), "axis": _axes(axis)}, name)


def _tril_triu(layer, x, diagonal, lower, name):
    # Paddle's checks, order and words (its tests match them)
    if len(x.shape) < 2:
        raise ValueError("%s shape in %s must be at least 2-D, got %s"
                         % (versions.switch("tril_rank_error_name"), layer, list(x.shape)))
    if isinstance(diagonal, bool) or not isinstance(diagonal, (int, np.integer)):
        raise TypeError("diagonal in %s must be a python Int, got %r" % (layer, diagonal))
    return unary("tril_triu", x, {"diagonal": int(diagonal), "lower": lower}, name,
                 layer_type=layer)


def tril(x, diagonal=0, name=None):
    return _tril_triu("tril", x, diagonal, True, name)


def triu(x, diagonal=0, name=None):
    return _tril_triu("triu", x, diagonal, False, name)


_DIAG_DTYPES = ("float32", "float64", "int32", "int64")


def diag(x, offset=0, padding_value=0, name=None):
    """1-D x: a square matrix with x on the `offset`-th diagonal; 2-D x: that diagonal.
    Static mode checks the arguments as Paddle 2.0 does."""
    if not mode.in_dynamic_mode():
        check_dtype(x, "x", "diag", _DIAG_DTYPES)
        if isinstance(offset, bool) or not isinstance(offset, int):
            raise TypeError("diag: offset must be an int, got %s %r"
                            % (type(offset).__name__, offset))
        if isinstance(padding_value, bool) or not isinstance(padding_value, (int, float)):
            raise TypeError("diag: padding_value must be an int or a float, got %s %r"
                            % (type(padding_value).__name__, padding_value))
        if len(x.shape) not in (1, 2):
            raise ValueError("diag: x must be 1-D or 2-D, got shape %s" % list(x.shape))
    return unary("diag_v2", x, {"offset": int(offset), "padding_value": float(padding_value)},
                 name, layer_type="diag")


def fluid_diag(diagonal):
    """A square matrix with `diagonal` (a 1-D Variable, array or list) on its diagonal."""
    if not isinstance(diagonal, Variable):
        diagonal = creation.assign(np.asarray(diagonal))
    return diag(diagonal)


def _count(value, what):
    """A non-negative int (as Paddle checks eye's sizes: TypeError otherwise)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise TypeError("eye: %s should be a non-negative int, got %r" % (what, value))
    return int(value)


def eye(num_rows, num_columns=None, dtype=None, name=None):
    dtype = convert_dtype(dtype or "float32")
    num_rows = _count(num_rows, "num_rows")
    if num_columns is not None:
        num_columns = _count(num_columns, "num_columns")
    return creation._source_op("eye", {"num_rows": int(num_rows), "dtype": dtype,
                                       "num_columns": -1 if num_columns is None
                                       else int(num_columns)}, dtype, name)


def fluid_eye(num_rows, num_columns=None, batch_shape=None, dtype="float32", name=None):
    """fluid.layers.eye: [*batch_shape, num_rows, num_columns]; batch_shape a list of
    positive ints (TypeError otherwise, as Paddle 1.8.5)."""
    out = eye(num_rows, num_columns, dtype, name)
    if batch_shape is not None:
        if not isinstance(batch_shape, (list, tuple)):
            raise TypeError("eye: batch_shape should be a list or tuple, got %r"
                            % (batch_shape,))
        for d in batch_shape:
            if _count(d, "each dim of batch_shape") == 0:
                raise TypeError("eye: batch_shape should hold positive ints, got %s"
                                % (list(batch_shape),))
    if batch_shape:
        batch_shape = [int(d) for d in batch_shape]
        out = tensor.unsqueeze(out, list(range(len(batch_shape))))
        out = tensor.expand_to(out, batch_shape + [-1, -1])
    out.stop_gradient = True
    return out


# -- broadcasting, grids, splitting, slicing

def broadcast_to(x, shape, name=None):
    tensor.check_expand_input(x, "broadcast_to")
    return tensor.expand_to(x, shape, name)


def expand_as(x, y, name=None):
    """x broadcast to y's shape (y's run-time shape when some of its dims are unknown)."""
    tensor.check_expand_input(x, "expand_as")
    check_variable(y, "y", "expand_as")
    inputs = {"X": [x]}
    if any(d < 0 for d in y.shape):
        inputs["target_tensor"] = [y]
    return append_op_out("expand_as_v2", inputs, {"target_shape": list(y.shape)}, name,
                         layer_type="expand_as")


def fluid_expand_as(x, target_tensor, name=None):
    """fluid's expand_as (1.8, 2.0): x tiled to target_tensor's shape (the expand_as op)."""
    check_variable(target_tensor, "target_tensor", "expand_as")
    return append_op_out("expand_as", {"X": [x], "target_tensor": [target_tensor]}, {}, name)


def meshgrid(*args, **kwargs):
    """Grids of shape [len(a) for a in args] ('ij' indexing); args may be one list."""
    xs = list(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else list(args)
    for i, v in enumerate(xs):
        check_variable(v, "args[%d]" % i, "meshgrid")
    return list_out("meshgrid", {"X": xs}, len(xs), {}, xs[0].dtype, kwargs.get("name"))


def chunk(x, chunks, axis=0, name=None):
    if not isinstance(chunks, (int, np.integer)):
        raise TypeError("chunk: chunks must be an int, got %s %r" % (type(chunks).__name__, chunks))
    if chunks <= 0:
        raise ValueError("chunk: chunks must be greater than 0, got %d (x %r of shape %s)"
                         % (chunks, getattr(x, "name", None), list(getattr(x, "shape", []))))
    return tensor.split(x, int(chunks), axis, name)


def unbind(input, axis=0):
    check_variable(input, "input", "unbind")
    if isinstance(axis, bool) or not isinstance(axis, int):     # 2.0's check_type
        raise TypeError("The type of 'axis' in unbind must be int, but received %s"
                        % type(axis).__name__)
    rank = len(input.shape)
    if not -rank <= axis < rank:
        raise ValueError("unbind: axis %d is out of range for input %r of rank %d (expected "
                         "in [%d, %d))" % (axis, input.name, rank, -rank, rank))
    n = input.shape[axis]
    if n < 0:
        raise ValueError("unbind: dim %d of %r is unknown at build time" % (axis, input.name))
    return list_out("unbind", {"X": [input]}, n, {"axis": int(axis)}, input.dtype)


def strided_slice(x, axes, starts, ends, strides, name=None):
    """starts / ends / strides: lists of ints or 1-element int Variables, or int Variables
    (known at run time)."""
    check_variable(x, "x", "strided_slice")
    inputs, attrs = {"Input": [x]}, {"axes": [int(a) for a in axes]}
    for arg, values in (("starts", starts), ("ends", ends), ("strides", strides)):
        more, attrs[arg] = creation.runtime_int_list(
            values, arg, "strided_slice", arg.title() + "Tensor", arg.title() + "TensorList")
        inputs.update(more)
    return append_op_out("strided_slice", inputs, attrs, name)


def fluid_strided_slice(input, axes, starts, ends, strides):
    return strided_slice(input, axes, starts, ends, strides)


def crop_tensor(x, shape=None, offsets=None, name=None):
    """x[offsets : offsets + shape] in every dim (the crop_tensor op). shape: ints (-1: to
    the end of the dim), a 1-D int Variable, or a list mixing ints and 1-element int
    Variables; offsets (default 0s) likewise."""
    check_variable(x, "x", "crop_tensor")
    if not isinstance(shape, (list, tuple, Variable)):
        raise TypeError("crop_tensor: shape must be a list, tuple or Variable, got %s"
                        % type(shape).__name__)
    inputs, attrs = {"X": [x]}, {}
    if offsets is None:
        offsets = [0] * len(x.shape)
    # Paddle 1.8 takes size and offset Variables of any dtype here (their values are ints)
    more, offsets_attr = creation.runtime_int_list(offsets, "offsets", "crop_tensor",
                                                   "Offsets", "OffsetsTensor", False)
    inputs.update(more)
    if offsets_attr:
        attrs["offsets"] = offsets_attr
    more, shape_attr = creation.runtime_int_list(shape, "shape", "crop_tensor", "Shape",
                                                 "ShapeTensor", False)
    inputs.update(more)
    if shape_attr:
        # as Paddle: a 0 where a Variable gives the size
        attrs["shape"] = [0 if isinstance(d, Variable) else d for d in shape]
    return append_op_out("crop_tensor", inputs, attrs, name)


def crop(x, shape=None, offsets=None, name=None):
    """fluid.layers.crop: x[offsets : offsets + shape] in every dim (offsets default 0; -1
    in shape: to the end); `shape` may be a Variable whose shape is used. Built from a slice
    op."""
    check_variable(x, "x", "crop")
    if isinstance(shape, Variable):
        shape = list(shape.shape)
    if shape is None or any(isinstance(v, Variable) for v in as_list(shape) +
                            as_list(offsets)):
        raise NotImplementedError("crop: shape and offsets must be ints (or shape a Variable "
                                  "of known shape); tensor-valued ones are not supported")
    shape = [int(d) for d in shape]
    offsets = [0] * len(shape) if offsets is None else [int(o) for o in offsets]
    if len(shape) != len(x.shape) or len(offsets) != len(x.shape):
        raise ValueError("crop: shape %s and offsets %s need one entry per dim of %r "
                         "(rank %d)" % (shape, offsets, x.name, len(x.shape)))
    ends = [2 ** 31 - 1 if d == -1 else o + d for o, d in zip(offsets, shape)]
    return append_op_out("slice", {"Input": [x]}, {"axes": list(range(len(shape))),
                                                   "starts": offsets, "ends": ends},
                         name, layer_type="crop")


def t(input, name=None):
    """Transpose of a 2-D tensor; 0-D and 1-D tensors come back unchanged."""
    check_variable(input, "input", "t")
    if len(input.shape) > 2:
        raise ValueError("t: input %r must have rank <= 2, got shape %s"
                         % (input.name, list(input.shape)))
    return tensor.transpose(input, [1, 0], name) if len(input.shape) == 2 else input


# -- in-place variants (eager: in place; static: the out-of-place op, as Paddle 2.0)

_INPLACE = {"reshape_": tensor.reshape, "squeeze_": tensor.squeeze,
            "unsqueeze_": tensor.unsqueeze, "scatter_": tensor.scatter,
            "tanh_": activation.EXPORTS["paddle"]["tanh"]}

EXPORTS = {
    "paddle": dict(
        unbind=unbind, strided_slice=strided_slice, cumsum=cumsum, flip=flip, roll=roll,
        reverse=flip,   # Paddle 2.0's alias (paddle.reverse is flip)
        tril=tril, triu=triu, diag=diag, eye=eye, broadcast_to=broadcast_to,
        expand_as=expand_as, meshgrid=meshgrid, chunk=chunk, t=t,
        crop=crop_tensor,   # Paddle 2.0's paddle.crop is fluid.layers.crop_tensor
        **{n: in_place(f, n) for n, f in _INPLACE.items()}),
    "fluid.layers": dict(
        unbind=unbind, cumsum=fluid_cumsum, reverse=fluid_reverse, diag=fluid_diag,
        eye=fluid_eye, expand_as=fluid_expand_as, strided_slice=fluid_strided_slice,
        size=tensor.numel, crop=crop, crop_tensor=crop_tensor),
}
