"""Shape, indexing, sorting and searching layers (paddle.* 2.0 and fluid.layers 1.8 names).
Constants, ranges and random tensors are in creation.py."""
import numpy as np

from .. import versions
from ..dygraph import inplace
from ..dygraph.tensor import Tensor
from ..framework import mode
from ..framework.dtypes import convert_dtype
from ..framework.errors import LayerAssertionError
from ..framework.layer_helper import LayerHelper
from ..framework.program import Variable
from . import math
from .common import (append_op_out, as_list, binary, check_dtype, check_static_dtype,
                     check_variable, unary)
from .creation import fill_constant, runtime_int_list


# the ops whose eager output shares its input's storage (Paddle 2.0's view ops)
_SHARING = ("reshape2", "squeeze2", "unsqueeze2", "flatten_contiguous_range")


def _view(op_type, x, attrs, name=None, inputs=None, layer_type=None):
    """A view-changing op (reshape2, transpose2, ...): Out plus the XShape helper output,
    named after `layer_type` (default: the op type). An eager one of _SHARING shares x's
    storage: an in-place change of either reaches the other."""
    check_variable(x, "x", op_type)
    out, _ = append_op_out(op_type, dict({"X": [x]}, **(inputs or {})), attrs, name,
                           extra_outputs=[("XShape", None)], layer_type=layer_type)
    if op_type in _SHARING and isinstance(out, Tensor) and inplace.tracked():
        out._share_storage(x)
    return out


def _shape_inputs(shape, actual_shape=None):
    """reshape2's target: a Variable shape goes to the Shape input, Variables inside a list
    to ShapeTensor (ints there become 1-element tensors); the attr keeps the ints, -1 for
    the dims known only at run time."""
    if isinstance(shape, Variable):
        return {"Shape": [shape]}, []
    if not isinstance(shape, (list, tuple, np.ndarray)):
        raise TypeError("reshape: shape must be a list, tuple or Variable, got %s %r"
                        % (type(shape).__name__, shape))
    shape = list(shape)
    inputs = {}
    if any(isinstance(d, Variable) for d in shape):
        inputs["ShapeTensor"] = [d if isinstance(d, Variable) else fill_constant([1], "int32", d)
                                 for d in shape]
    if actual_shape is not None:
        inputs["Shape"] = [actual_shape]
    return inputs, [-1 if isinstance(d, Variable) else int(d) for d in shape]


def _check_reshape_dims(x, shape):
    """Paddle's asserts on reshape's list shape: one -1 at most, a 0 only where X has a dim
    to copy, no other negative sizes."""
    unknown = None
    for i, d in enumerate(shape):
        if isinstance(d, Variable):
            continue
        if d == -1:
            if unknown is not None:
                raise LayerAssertionError(
                    "Only one dimension value of 'shape' in reshape can be -1. But received "
                    "shape[%d] is also -1." % i)
            unknown = i
        elif d == 0:
            if x.shape is not None and i >= len(x.shape):
                raise LayerAssertionError(
                    "The index of 0 in `shape` must be less than the input tensor X's "
                    "dimensions. But received shape[%d] = 0, X's dimensions = %d."
                    % (i, len(x.shape)))
        elif d < 0:
            raise LayerAssertionError(
                "Each dimension value of 'shape' in reshape must not be negative except one "
                "unknown dimension. But received shape[%d] = %s." % (i, d))


def fluid_reshape(x, shape, actual_shape=None, act=None, inplace=False, name=None):
    if isinstance(x, Variable) and isinstance(shape, (list, tuple)):
        _check_reshape_dims(x, shape)
    inputs, attr_shape = _shape_inputs(shape, actual_shape)
    out = _view("reshape2", x, {"shape": attr_shape}, name, inputs)
    return LayerHelper("reshape").append_activation(out, act)


def reshape(x, shape, name=None):
    return fluid_reshape(x, shape, name=name)


def transpose(x, perm, name=None):
    # named transpose_N, as Paddle's transpose layer names it
    return _view("transpose2", x, {"axis": list(perm)}, name, layer_type="transpose")


_FLATTEN_DTYPES = ("float32", "float64", "int8", "int32", "int64")


def flatten(x, start_axis=0, stop_axis=-1, name=None):
    """paddle.flatten (flatten_contiguous_range); as in Paddle 2.0, an x that is no Tensor
    is a ValueError, and static mode checks its dtype (switch flatten_dtypes)."""
    if not isinstance(x, Variable):
        raise ValueError("flatten: x must be a Tensor, got %s" % type(x).__name__)
    if not mode.in_dynamic_mode() and versions.switch("flatten_dtypes") == "checked":
        check_dtype(x, "x", "flatten", _FLATTEN_DTYPES)
    return _view("flatten_contiguous_range", x,
                 {"start_axis": start_axis, "stop_axis": stop_axis}, name)


def fluid_flatten(x, axis=1, name=None):
    return _view("flatten2", x, {"axis": axis}, name)


def squeeze(x, axis=None, name=None):
    return _view("squeeze2", x, {"axes": as_list(axis)}, name)


def fluid_squeeze(input, axes, name=None):
    return squeeze(input, axes, name)


def unsqueeze(x, axis, name=None):
    """`axis`: an int, a list (ints or 1-element int Variables) or an int Variable."""
    if not isinstance(axis, (int, np.integer, list, tuple, Variable)):
        raise TypeError("unsqueeze: axes must be an int, list, tuple or Variable, got %s"
                        % type(axis).__name__)
    axes = axis if isinstance(axis, (list, tuple, Variable)) else [axis]
    inputs, attr = runtime_int_list(axes, "axes", "unsqueeze", "AxesTensor", "AxesTensorList")
    return _view("unsqueeze2", x, {"axes": attr}, name, inputs)


def fluid_unsqueeze(input, axes, name=None):
    return unsqueeze(input, axes, name)


def _array_joined(x, axis, use_stack, name):
    """concat / stack of a tensor array (create_array / array_write): its elements joined
    by tensor_array_to_tensor, as Paddle does; None for anything else."""
    if isinstance(x, Variable) and x.type == "LOD_TENSOR_ARRAY":
        from .control_flow import tensor_array_to_tensor
        return tensor_array_to_tensor(x, axis, name, use_stack)[0]
    return None


def concat(x, axis=0, name=None):
    joined = _array_joined(x, axis, False, name)
    if joined is not None:
        return joined
    x = as_list(x)      # one Variable: a list of it, as Paddle takes it
    for i, v in enumerate(x):
        check_variable(v, "x[%d]" % i, "concat")
    if isinstance(axis, Variable):
        return append_op_out("concat", {"X": x, "AxisTensor": [axis]}, {"axis": 0}, name)
    return append_op_out("concat", {"X": x}, {"axis": int(axis)}, name)


def fluid_concat(input, axis=0, name=None):
    return concat(input, axis, name)


def split(x, num_or_sections, axis=0, name=None):
    """`num_or_sections`: a number of equal pieces, or their sizes (ints, one -1, or
    1-element int Variables: sizes known at run time); `axis` an int or int Variable."""
    check_variable(x, "x", "split")
    # argument types before the axis range, as Paddle checks them: a float axis or
    # section count is a TypeError whatever its value
    if not isinstance(num_or_sections, (int, list, tuple)):
        raise TypeError("split: num_or_sections must be an int, list or tuple, got %s"
                        % type(num_or_sections).__name__)
    inputs = {"X": [x]}
    if isinstance(axis, Variable):
        check_dtype(axis, "axis", "split", ("int32", "int64"))
        inputs["AxisTensor"] = [axis]
        axis_attr = -1
    elif not isinstance(axis, (int, np.integer)):
        raise TypeError("split: axis must be an int or an int Variable, got %s %r"
                        % (type(axis).__name__, axis))
    else:
        rank = len(x.shape)
        if not -rank <= axis < rank:
            raise ValueError("split: axis %d is out of range for x %r of rank %d (expected in "
                             "[%d, %d))" % (axis, x.name, rank, -rank, rank))
        axis = axis_attr = axis % rank
    if isinstance(num_or_sections, int):
        n, attrs = num_or_sections, {"num": num_or_sections, "axis": axis_attr, "sections": []}
        if not isinstance(axis, Variable) and x.shape[axis] >= 0 and x.shape[axis] % n:
            raise ValueError("split: dim %d of %r (%d) is not divisible by num %d"
                             % (axis, x.name, x.shape[axis], n))
    else:
        extra, sections = runtime_int_list(num_or_sections, "num_or_sections", "split",
                                           None, "SectionsTensorList")
        inputs.update(extra)
        n, attrs = len(sections), {"num": 0, "axis": axis_attr, "sections": sections}
    helper = LayerHelper("split", name=name)
    outs = [helper.create_variable_for_type_inference(x.dtype) for _ in range(n)]
    helper.append_op(type="split", inputs=inputs, outputs={"Out": outs}, attrs=attrs)
    return outs


def fluid_split(input, num_or_sections, dim=-1, name=None):
    return split(input, num_or_sections, dim, name)


def slice(input, axes, starts, ends):
    """`starts` / `ends`: lists of ints or 1-element int Variables, or int Variables (known
    at run time)."""
    inputs = {"Input": [input]}
    more, starts = runtime_int_list(starts, "starts", "slice", "StartsTensor",
                                    "StartsTensorList", check_dtypes=False)
    inputs.update(more)
    more, ends = runtime_int_list(ends, "ends", "slice", "EndsTensor", "EndsTensorList",
                                  check_dtypes=False)
    inputs.update(more)
    axes = list(axes)
    starts = starts or [-1] * len(axes)
    ends = ends or [-1] * len(axes)
    return append_op_out("slice", inputs, {"axes": axes, "starts": starts, "ends": ends})


def stack(x, axis=0, name=None):
    """Stack a list of Variables along a new `axis` (one Variable: a list of it under 1.8,
    a TypeError from 2.0: switch stack_single_variable)."""
    joined = _array_joined(x, axis, True, name)
    if joined is not None:
        return joined
    if isinstance(x, Variable) and versions.switch("stack_single_variable") == "refused":
        raise TypeError("The type of 'x' in stack must be list[Tensor], tuple[Tensor] or "
                        "TensorArray, but received %s" % type(x).__name__)
    return append_op_out("stack", {"X": as_list(x)}, {"axis": axis}, name, out_slot="Y")


def unstack(x, axis=0, num=None, name=None):
    helper = LayerHelper("unstack", name=name)
    n = num if num is not None else x.shape[axis]
    if n < 0:
        raise ValueError("unstack: dim %d of %r is unknown; pass num" % (axis, x.name))
    outs = [helper.create_variable_for_type_inference(x.dtype) for _ in range(n)]
    helper.append_op(type="unstack", inputs={"X": [x]}, outputs={"Y": outs},
                     attrs={"axis": axis, "num": n})
    return outs


_EXPAND_DTYPES = ("bool", "float32", "float64", "int32", "int64")


def check_expand_input(x, layer):
    """Paddle 2.0's static-mode checks of expand / broadcast_to / expand_as's x: its dtype,
    and a bool x must stop gradients."""
    if mode.in_dynamic_mode():
        return
    check_dtype(x, "x", layer, _EXPAND_DTYPES)
    if x.dtype.name == "bool" and not x.stop_gradient:
        raise ValueError("%s: a bool x must have stop_gradient=True, got x %r with "
                         "stop_gradient=False" % (layer, x.name))


def expand(x, shape, name=None):
    """paddle.expand: `shape` ints (-1 keeps x's dim) and 1-element int Tensors, or an int
    Tensor, these read at run time (expand_v2's expand_shapes_tensor / Shape inputs)."""
    check_expand_input(x, "expand")
    return expand_to(x, shape, name)


def expand_to(x, shape, name=None):
    """expand without the API's input checks, for layers that expand their own values."""
    more, attr = runtime_int_list(shape, "shape", "expand", "Shape", "expand_shapes_tensor")
    return append_op_out("expand_v2", dict({"X": [x]}, **more), {"shape": attr}, name)


def fluid_expand(x, expand_times, name=None):
    """`expand_times`: ints or 1-element int Variables, or an int Variable (run time). A
    bool X must not stop gradients (Paddle's check)."""
    check_variable(x, "x", "expand")
    if x.dtype is not None and x.dtype.name == "bool" and x.stop_gradient:
        raise ValueError("expand: a bool X must have stop_gradient=False, as Paddle's "
                         "expand requires")
    more, times = runtime_int_list(expand_times, "expand_times", "expand", "ExpandTimes",
                                   "expand_times_tensor", check_dtypes=False)
    return append_op_out("expand", dict({"X": [x]}, **more), {"expand_times": times}, name)


TILE_DTYPES = ("bool", "float32", "float64", "int32", "int64")


def tile(x, repeat_times, name=None):
    """`repeat_times`: ints or 1-element int Variables, or a 1-D int Variable (run time).
    A static x (Paddle 2.0 checks after its dynamic branch) of TILE_DTYPES; a bool one must
    stop gradients (its tile has no bool gradient)."""
    check_static_dtype(x, "x", "tile", TILE_DTYPES)
    if not mode.dynamic and x.dtype.name == "bool" and not x.stop_gradient:
        raise ValueError("tile: a bool x must have stop_gradient=True, as Paddle's tile "
                         "requires")
    more, times = runtime_int_list(repeat_times, "repeat_times", "tile", "RepeatTimes",
                                   "repeat_times_tensor")
    return append_op_out("tile", dict({"X": [x]}, **more), {"repeat_times": times}, name)


def gather(x, index, axis=None, name=None):
    if isinstance(axis, Variable):      # the axis known at run time (the op's Axis input)
        return append_op_out("gather", {"X": [x], "Index": [index], "Axis": [axis]}, {}, name)
    return append_op_out("gather", {"X": [x], "Index": [index]}, {"axis": axis or 0}, name)


def fluid_gather(input, index, overwrite=True):
    return gather(input, index)


def scatter(x, index, updates, overwrite=True, name=None):
    return append_op_out("scatter", {"X": [x], "Ids": [index], "Updates": [updates]},
                         {"overwrite": overwrite}, name)


def fluid_scatter(input, index, updates, name=None, overwrite=True):
    return scatter(input, index, updates, overwrite, name)


def nonzero_index(condition):
    """Coordinates of the true elements, [N, rank] int64 (fluid.layers.where)."""
    return append_op_out("where_index", {"Condition": [condition]}, {}, out_dtype="int64",
                         stop_gradient=True)


def where(condition, x=None, y=None, name=None):
    if x is None and y is None:
        return nonzero_index(condition)
    args = {"condition": condition, "x": x, "y": y}
    for arg, v in args.items():
        check_variable(v, arg, "where")
    if len({tuple(v.shape) for v in args.values()}) > 1:
        if versions.switch("where_broadcast") == "arithmetic":
            return _where_by_arithmetic(condition, x, y)
        # the where op takes one shape: Paddle's API broadcasts the three first
        target = _broadcast_dims(args, "where")
        condition, x, y = (v if list(v.shape) == target else expand_to(v, target)
                           for v in args.values())
    return append_op_out("where", {"Condition": [condition], "X": [x], "Y": [y]}, {}, name)


def _where_by_arithmetic(condition, x, y):
    """Paddle 2.0's where of operands of different shapes: x * cond + y * (not cond), each
    cast to x's dtype, so the elementwise ops broadcast the run-time shapes (an inf / nan
    of the unselected operand reaches the result)."""
    keep_x = math.cast(condition, x.dtype)
    keep_y = math.cast(math.logical_not(condition), x.dtype)
    return binary("elementwise_add", binary("elementwise_mul", x, keep_x),
                  binary("elementwise_mul", y, keep_y))


def _broadcast_dims(args, api):
    """The shape the Variables `args` (by argument name) broadcast to, numpy's rule, or a
    ValueError naming them; a dim unknown until run time (-1) broadcasts only with itself."""
    n = max(len(v.shape) for v in args.values())
    padded = [[1] * (n - len(v.shape)) + list(v.shape) for v in args.values()]
    out = []
    for i, dims in enumerate(zip(*padded)):
        sizes = set(dims) - {1}
        if len(sizes) > 1 or -1 in sizes and 1 in dims:
            raise ValueError("%s: %s do not broadcast (dim %d of the aligned shapes: %s)"
                             % (api, ", ".join("%s %s" % (arg, list(v.shape))
                                               for arg, v in args.items()), i, list(dims)))
        out.append(sizes.pop() if sizes else 1)
    return out


def _arg(op_type, default_axis):
    def layer(x, axis=default_axis, keepdim=False, dtype="int64", name=None):
        if axis is not None and not isinstance(axis, (int, np.integer)):
            raise TypeError("%s: axis must be an int or None, got %s %r"
                            % (op_type, type(axis).__name__, axis))
        if dtype is None:
            raise ValueError("%s: dtype must be int32 or int64, got None" % op_type)
        dtype = convert_dtype(dtype)
        if dtype not in ("int32", "int64"):
            raise TypeError("%s: dtype must be int32 or int64, got %s" % (op_type, dtype))
        return unary(op_type, x, {"axis": -1 if axis is None else axis, "keepdims": keepdim,
                                  "flatten": axis is None, "dtype": dtype}, name,
                     out_dtype=dtype)
    layer.__name__ = op_type
    return layer


def _fluid_arg(paddle_layer):
    def layer(x, axis=0):
        return paddle_layer(x, axis)
    layer.__name__ = paddle_layer.__name__
    return layer


argmax, argmin = _arg("arg_max", None), _arg("arg_min", None)


def _argsort(x, axis, descending, name):
    check_variable(x, "x", "argsort")
    return append_op_out("argsort", {"X": [x]}, {"axis": axis, "descending": descending},
                         name, extra_outputs=[("Indices", "int64")])


def argsort(x, axis=-1, descending=False, name=None):
    return _argsort(x, axis, descending, name)[1]


def fluid_argsort(input, axis=-1, descending=False, name=None):
    """(sorted values, their indices)."""
    return _argsort(input, axis, descending, name)


def shape(input):
    return append_op_out("shape", {"Input": [input]}, {}, out_dtype="int32", stop_gradient=True)


def numel(x, name=None):
    return append_op_out("size", {"Input": [x]}, {}, name, out_dtype="int64",
                         stop_gradient=True)


def increment(x, value=1.0, in_place=True):
    helper = LayerHelper("increment")
    out = x if in_place else helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(type="increment", inputs={"X": [x]}, outputs={"Out": [out]},
                     attrs={"step": float(value)})
    return out


_SHARED = {"transpose": transpose, "stack": stack, "unstack": unstack, "slice": slice,
           "shape": shape, "increment": increment}

EXPORTS = {
    "paddle": dict(_SHARED, reshape=reshape, flatten=flatten, squeeze=squeeze,
                   unsqueeze=unsqueeze, concat=concat, split=split, expand=expand, tile=tile,
                   gather=gather, scatter=scatter, where=where, argmax=argmax,
                   argmin=argmin, argsort=argsort, numel=numel),
    "fluid.layers": dict(_SHARED, reshape=fluid_reshape, flatten=fluid_flatten,
                         squeeze=fluid_squeeze, unsqueeze=fluid_unsqueeze, concat=fluid_concat,
                         split=fluid_split, expand=fluid_expand, gather=fluid_gather,
                         scatter=fluid_scatter, where=nonzero_index,
                         argmax=_fluid_arg(argmax), argmin=_fluid_arg(argmin),
                         argsort=fluid_argsort),
}
