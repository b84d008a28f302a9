"""`x[index]` and `x[index] = value` on Variables (subscripts; index_select, gather_nd and
the other indexing layers are in indexing.py), built from ops as Paddle 2.0 builds them in
a static graph (specs/tensor_methods.md):

- ints and slices (negative, any step) -> one `slice` op (every step 1) or `strided_slice`;
  an int drops its axis (`decrease_axis`); dropping every axis leaves shape [1]
- None -> `unsqueeze2`; Ellipsis stands for the axes not named
- one list / int array / int Variable per subscript -> `gather` along its axis (a shape-[1]
  int Variable acts as an int: it drops its axis, as in Paddle 1.8 and 2.0)
- a bool mask (list, array or Variable) over the leading axes -> `masked_select` (the whole
  shape) or `where_index` + `gather_nd` (leading axes)
- assignment -> `set_value` writing back into x's own variable; a bool Variable mask -> `where`
- a tensor array (create_array / array_write): `arr[i]` its element, `arr[a:b]` an array,
  one `slice` op on the array (Paddle 2.0)
"""
import contextlib

import numpy as np

from .. import versions
from ..dygraph import inplace
from ..dygraph.tensor import Tensor
from ..framework import mode
from ..framework.dtypes import is_integer_value
from ..framework.layer_helper import LayerHelper
from ..framework.program import Variable
from . import control_flow, creation, indexing, manipulation, math, tensor

__all__ = ["getitem", "setitem", "iterate"]

_INT_MAX = 2 ** 31 - 1
_INT_MIN = -2 ** 31


def _is_mask(item):
    """A bool list/array/Variable (an index that selects by truth, not position)."""
    if isinstance(item, Variable):
        return item.dtype.name == "bool"
    if isinstance(item, (list, tuple, np.ndarray)):
        a = np.asarray(item)
        return a.dtype == bool and a.size > 0
    return isinstance(item, (bool, np.bool_))


def _is_advanced(item):
    return isinstance(item, (list, np.ndarray, Variable))


def _expand(x, index):
    """The subscript as a list with Ellipsis replaced by full slices; checks the count."""
    items = list(index) if isinstance(index, tuple) else [index]
    ellipses = [i for i, it in enumerate(items) if it is Ellipsis]
    if len(ellipses) > 1:
        raise IndexError("%r[...]: an index can only have a single Ellipsis" % x.name)
    used = sum(1 for it in items if it is not None and it is not Ellipsis)
    if used > len(x.shape):
        raise IndexError("%r has %d dims, indexed with %d: %r"
                         % (x.name, len(x.shape), used, index))
    if ellipses:
        at = ellipses[0]
        items[at:at + 1] = [slice(None)] * (len(x.shape) - used)
    return items


def _check_int(x, axis, i):
    n = x.shape[axis]
    if n >= 0 and not -n <= i < n:
        raise IndexError("index %d is out of bounds for axis %d of %r (size %d)"
                         % (i, axis, x.name, n))


def _slice_bound(x, bound):
    """A slice bound as the slice ops take it: an int, or a Variable (1 element, int)
    read when the program runs; a float is refused, not truncated (as Paddle)."""
    if isinstance(bound, Variable):
        return bound
    if not is_integer_value(bound):
        raise TypeError("%r[...]: slice bounds must be ints or Variables, got %s %r"
                        % (x.name, type(bound).__name__, bound))
    return int(bound)


def _basic_region(x, items):
    """(axes, starts, ends, steps, decrease, advanced, nones) for a subscript without masks:
    the slice/int part per axis, the one advanced index as (axis, index), and where the
    Nones go in the result (positions counted over the result's axes)."""
    axes, starts, ends, steps, decrease, nones = [], [], [], [], [], []
    advanced = None
    axis = out_pos = 0
    for item in items:
        if item is None:
            nones.append(out_pos)
            out_pos += 1
            continue
        if is_integer_value(item):
            i = int(item)
            _check_int(x, axis, i)
            axes.append(axis)
            starts.append(i)
            ends.append(i + 1 if i != -1 else _INT_MAX)
            steps.append(1)
            decrease.append(axis)
        elif isinstance(item, slice):
            step = 1 if item.step is None else _slice_bound(x, item.step)
            if not isinstance(step, Variable) and step == 0:
                raise ValueError("%r[...]: slice step cannot be zero" % x.name)
            if isinstance(step, Variable) and (item.start is None or item.stop is None):
                raise TypeError("%r[...]: a Variable slice step needs both bounds given (its "
                                "sign is known only at run time)" % x.name)
            if not (item.start is None and item.stop is None and item.step is None):
                start = item.start if item.start is not None else (
                    0 if step > 0 else _INT_MAX)
                stop = item.stop if item.stop is not None else (
                    _INT_MAX if step > 0 else _INT_MIN)
                axes.append(axis)
                starts.append(_slice_bound(x, start))
                ends.append(_slice_bound(x, stop))
                steps.append(step)
            out_pos += 1
        elif _is_advanced(item):
            if advanced is not None:
                raise IndexError("%r[...]: one list or tensor index per subscript is "
                                 "supported, got two" % x.name)
            advanced = (axis, item)
            out_pos += 1
        else:
            raise TypeError("%r[...]: index items must be int, slice, None, Ellipsis, a list, "
                            "an array or a Variable, got %s" % (x.name, type(item).__name__))
        axis += 1
    return axes, starts, ends, steps, decrease, advanced, nones


def _slice(x, axes, starts, ends, steps, decrease):
    if not axes:
        return x
    attrs = {"axes": axes, "starts": starts, "ends": ends, "decrease_axis": decrease,
             "infer_flags": [1] * len(axes)}
    op_type = "slice"
    bounds = [("starts", starts), ("ends", ends)]
    if any(isinstance(s, Variable) or s != 1 for s in steps):
        op_type = "strided_slice"
        bounds.append(("strides", steps))
    inputs = {"Input": [x]}
    for arg, values in bounds:     # Variables go to the op's XTensorList inputs
        more, attrs[arg] = creation.runtime_int_list(
            values, arg, op_type, None, arg.capitalize() + "TensorList", check_dtypes=False)
        inputs.update(more)
    helper = LayerHelper(op_type)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(type=op_type, inputs=inputs, outputs={"Out": [out]}, attrs=attrs)
    return out


def _index_tensor(x, index):
    """A list or int array as an int64 constant; a Variable as it is."""
    if isinstance(index, Variable):
        if index.dtype.name not in ("int32", "int64"):
            raise TypeError("%r[...]: a tensor index must be int32, int64 or bool, got %s"
                            % (x.name, index.dtype.name))
        return index
    array = np.asarray(index)
    if array.dtype.kind not in "iu":
        raise TypeError("%r[...]: a list index must hold ints or bools, got %s"
                        % (x.name, array.dtype))
    return creation.assign(array.astype(np.int64))


def _gather(x, axis, index):
    """x indexed along `axis` by an int index (any shape): its shape replaces the axis."""
    idx = _index_tensor(x, index)
    if isinstance(index, Variable) and tuple(index.shape) in ((1,), ()):
        # an int Variable of shape [1] acts as an int (Paddle 1.8 / 2.0), as a 0-D one
        # does: the axis goes (squeezed, so the run-time dims of x stay)
        if not idx.shape:
            idx = tensor.reshape(idx, [1])
        return tensor.squeeze(tensor.gather(x, idx, axis=axis), [axis])
    flat = idx if len(idx.shape) == 1 else tensor.reshape(idx, [-1])
    out = tensor.gather(x, flat, axis=axis)
    if len(idx.shape) != 1:
        out = tensor.reshape(out, list(x.shape[:axis]) + list(idx.shape) +
                             list(x.shape[axis + 1:]))
    return out


def _mask_positions(mask):
    """A constant bool mask as the int positions it selects (along one axis)."""
    return np.nonzero(np.asarray(mask))[0]


def _select_mask(x, mask):
    """x[mask] for a bool mask over x's leading axes: the selected rows, flattened."""
    if not isinstance(mask, Variable):
        mask = np.asarray(mask)
        if mask.ndim == 1:
            return _gather(x, 0, _mask_positions(mask))
        mask = creation.assign(mask)
    if tuple(mask.shape) == tuple(x.shape):
        return indexing.masked_select(x, mask)
    return indexing.gather_nd(x, tensor.nonzero_index(mask))


def _array_item(x, index):
    """arr[i] / arr[a:b] of a tensor array (Paddle 2.0): one `slice` op along the array's
    one axis, an int (or int Variable) giving the element, a slice an array; the bounds
    are checked when the program runs, against the array's length then."""
    if isinstance(index, slice):
        if index.step not in (None, 1):
            raise IndexError("%r[...]: a tensor array is sliced with step 1, got %r"
                             % (x.name, index.step))
        start = 0 if index.start is None else _slice_bound(x, index.start)
        stop = _INT_MAX if index.stop is None else _slice_bound(x, index.stop)
        return _slice(x, [0], [start], [stop], [1], [])
    if isinstance(index, Variable):
        if index.dtype.name not in ("int32", "int64"):
            raise TypeError("%r[...]: a tensor array's index must be int32 or int64, got %s"
                            % (x.name, index.dtype.name))
        return _slice(x, [0], [index], [math.scale(index, bias=1.0)], [1], [0])
    if not is_integer_value(index):
        raise TypeError("%r[...]: a tensor array takes an int, an int Variable or a slice, "
                        "got %s" % (x.name, type(index).__name__))
    i = int(index)
    return _slice(x, [0], [i], [i + 1 if i != -1 else _INT_MAX], [1], [0])


def getitem(x, index):
    """x[index] (see the module docstring)."""
    if x.type == "LOD_TENSOR_ARRAY":
        return _array_item(x, index)
    items = list(index) if isinstance(index, tuple) else [index]
    if any(_is_mask(it) for it in items):
        if len(items) != 1 or isinstance(items[0], (bool, np.bool_)):
            raise IndexError("%r[...]: a bool mask must be the whole index, got %r"
                             % (x.name, index))
        return _select_mask(x, items[0])
    items = _expand(x, index)
    axes, starts, ends, steps, decrease, advanced, nones = _basic_region(x, items)
    out = _slice(x, axes, starts, ends, steps, decrease)
    if advanced is not None:
        axis, idx = advanced
        kept = axis - sum(1 for d in decrease if d < axis)
        out = _gather(out, kept, idx)
    if nones:
        if len(decrease) == len(x.shape):   # every axis went: the [1] left stands for ()
            out = tensor.reshape(out, [1] * len(nones))
        else:
            out = tensor.unsqueeze(out, nones)
    return out


def setitem(x, index, value):
    """x[index] = value, written into x's own variable (`set_value`, or `where` for a bool
    Variable mask), so later ops that read x see the new value; on an eager Tensor an
    in-place change (its inplace_version counts it), not recorded on a leaf that needs a
    gradient under 2.0 (switch eager_setitem_leaf)."""
    if not isinstance(x, Tensor) or not inplace.tracked():
        return _setitem(x, index, value)
    producer = x._before_in_place()
    untraced = (x._node is None and not x.stop_gradient
                and versions.switch("eager_setitem_leaf") == "untraced")
    with mode.no_grad() if untraced else contextlib.nullcontext():
        _setitem(x, index, value)
    x._version_counter.bump()
    x._after_in_place(producer)
    return x


def _setitem(x, index, value):
    items = list(index) if isinstance(index, tuple) else [index]
    if len(items) == 1 and isinstance(items[0], Variable) and _is_mask(items[0]):
        return _set_masked(x, items[0], value)
    items = _expand(x, index)
    axes, starts, ends, steps, decrease, advanced, _ = _basic_region(x, items)
    if advanced is not None:
        raise IndexError("%r[...] = value: assigning through a list or tensor index is not "
                         "supported; use paddle.scatter" % x.name)
    if versions.switch("static_setitem") == "restricted" and not isinstance(x, Tensor):
        _check_static_setitem(x, steps, value)
    inputs, attrs = {"Input": [x]}, {"axes": axes, "starts": starts, "ends": ends,
                                     "steps": steps, "decrease_axes": decrease}
    if isinstance(value, Variable):
        inputs["ValueTensor"] = [value if value.dtype == x.dtype
                                 else math.cast(value, x.dtype)]
    else:
        array = np.asarray(value)
        if array.dtype == object or array.dtype.kind not in "biuf":
            raise TypeError("%r[...] = value: value must be a number, an array or a Variable, "
                            "got %s" % (x.name, type(value).__name__))
        attrs["values"] = array.ravel().tolist()
        attrs["shape"] = list(array.shape) or [1]
    _snapshot_readers(x)
    helper = LayerHelper("set_value")
    helper.append_op(type="set_value", inputs=inputs, outputs={"Out": [x]}, attrs=attrs)
    return x


def _check_static_setitem(x, steps, value):
    """What Paddle 2.0's static `x[index] = value` takes, with its messages (its
    test_set_value_op matches them): steps of 1, a value that is a number, an ndarray or a
    Variable, and for a number or ndarray an x of bool, float32, float64, int32 or int64."""
    step = next((s for s in steps if s != 1), 1)
    if step != 1:
        raise ValueError("When assign a value to a paddle.Tensor, only support step is 1, "
                         "but received step is %s." % step)
    if isinstance(value, Variable):
        return
    if not isinstance(value, (bool, int, float, np.ndarray)):
        raise TypeError("Only support to assign an integer, float, numpy.ndarray or "
                        "paddle.Tensor to a paddle.Tensor, but received %s" % type(value))
    if x.dtype.name not in ("bool", "float32", "float64", "int32", "int64"):
        raise TypeError("When assign a numpy.ndarray, integer or float to a paddle.Tensor, "
                        "the data type of the paddle.Tensor must be bool, float32, float64, "
                        "int32 or int64, but received %s." % x.dtype.name)


def _snapshot_readers(x):
    """Before x is overwritten in place: the ops that read its current value (since the
    last op that wrote it) read a copy instead, so their gradients, computed later, see
    the value they saw and not the new one."""
    block = x.block.program.current_block()
    if x.name not in block.vars:
        return
    ops = block.ops
    start = max((i + 1 for i, op in enumerate(ops) if x.name in op.output_arg_names),
                default=0)
    readers = [op for op in ops[start:] if x.name in op.input_arg_names]
    if not readers:
        return
    helper = LayerHelper("assign")
    copy = helper.create_variable_for_type_inference(x.dtype, stop_gradient=x.stop_gradient)
    control_flow.read_a_copy(x, readers, copy, start)


def _set_masked(x, mask, value):
    """x[mask] = value for a bool mask of x's shape or of its leading dims (each True
    selects a slice of the rest, as numpy's; Paddle 3.3.1 takes both)."""
    rank = len(mask.shape)
    if tuple(mask.shape) != tuple(x.shape)[:rank]:
        raise IndexError("%r[mask] = value: the mask %r must have x's shape %s or its "
                         "leading dims, got %s"
                         % (x.name, mask.name, list(x.shape), list(mask.shape)))
    if rank < len(x.shape):
        mask = tensor.reshape(mask, list(mask.shape) + [1] * (len(x.shape) - rank))
        mask.stop_gradient = True
        mask = manipulation.expand_as(mask, x)
    if not isinstance(value, Variable):
        value = creation.full_like(x, value)
    elif tuple(value.shape) != tuple(x.shape):
        value = manipulation.expand_as(value, x)
    _snapshot_readers(x)
    helper = LayerHelper("where")
    helper.append_op(type="where", inputs={"Condition": [mask], "X": [value], "Y": [x]},
                     outputs={"Out": [x]})
    return x


def iterate(x):
    """iter(x): x[0], x[1], ... along the first axis, which must be known at build time
    (Python would otherwise call x[i] until an IndexError that an unknown size never
    raises)."""
    if not x.shape or x.shape[0] < 0:
        raise TypeError("iterating over %r needs a known first dim, got shape %s"
                        % (x.name, list(x.shape or ())))
    return (getitem(x, i) for i in range(x.shape[0]))
