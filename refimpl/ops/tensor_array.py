"""Tensor arrays (LOD_TENSOR_ARRAY variables): write_to_array, read_from_array,
lod_array_length, tensor_array_to_tensor. At run time an array's value is a Python list
of arrays. Writing makes a new list (copy on write), so a value recorded earlier (a while
op's step records) never changes. The array variable carries its elements' build-time
shape and dtype.

The gradient of an array is an array too: a list whose element k is the gradient of
element k, None where nothing reached it (a zero). read_from_array's grad op makes the
array gradient with its Out@GRAD at I; write_to_array's reads element I of Out@GRAD back
as X@GRAD; tensor_array_to_tensor's cuts Out@GRAD into the elements' parts
(specs/control_flow.md#gradients)."""
import numpy as np

from .registry import OpDef, first_level, register, result_lod

__all__ = ["add_array_gradients", "zeros_like_value"]


def add_array_gradients(grads):
    """The sum of array gradients: element by element, None counting as zero, the result
    as long as the longest."""
    out = [None] * max(len(g) for g in grads)
    for g in grads:
        for k, element in enumerate(g):
            if element is None:
                continue
            out[k] = element.copy() if out[k] is None else out[k] + element
    return out


def zeros_like_value(value):
    """A zero gradient for a value: an array's has no element set (all zero)."""
    if isinstance(value, list):
        return [None] * len(value)
    return np.zeros_like(np.asarray(value))


def _index(op_name, i):
    i = np.asarray(i)
    if i.size != 1 or i.dtype.kind not in "iu":
        raise ValueError("%s: index I must be one integer, got dtype %s shape %s"
                         % (op_name, i.dtype, list(i.shape)))
    return int(i.reshape(()))


def _check_index(ctx):
    i = ctx.input_var("I")
    ctx.expect(i.dtype is None or i.dtype.name in ("int32", "int64"),
               "index I %r: expected dtype int32 or int64, got %s" % (i.name, i.dtype.name))


@register
class WriteToArray(OpDef):
    """Out[I] = X; Out is the array, read and written (the executor passes the array Out
    held before as `array`: refimpl/executor/direct.py)."""
    type = "write_to_array"
    inputs = ("X", "I")
    outputs = ("Out",)
    no_grad = ("I",)
    grad_inputs = ("X", "I", "Out@GRAD")

    def infer_shape(self, ctx):
        _check_index(ctx)
        x = ctx.input_var("X")
        ctx.set_output("Out", x.shape, x.dtype)

    @staticmethod
    def forward(x, i, array=None):
        """The array after writing X at I; slots between the end and I are None."""
        i = _index("write_to_array", i)
        array = list(array or [])
        if i >= len(array):
            array.extend([None] * (i + 1 - len(array)))
        array[i] = x
        return array

    @staticmethod
    def backward(x, i, dout):
        """X's gradient: element I of the array's gradient (zeros when none reached it)."""
        i = _index("write_to_array_grad", i)
        grad = dout[i] if dout is not None and i < len(dout) else None
        return np.zeros_like(x) if grad is None else grad


@register
class ReadFromArray(OpDef):
    type = "read_from_array"
    inputs = ("X", "I")
    outputs = ("Out",)
    no_grad = ("I",)
    grad_inputs = ("X", "I", "Out@GRAD")
    # the element keeps its LoD (a DynamicRNN step of a 2-level LoD input has one)
    lod_whole = ("X",)
    tensor_arrays = ("X",)
    lod_outputs = {"Out": result_lod("Out", lambda levels: first_level(levels, "X"))}

    def infer_shape(self, ctx):
        _check_index(ctx)
        ctx.same_as("X", "Out")

    @staticmethod
    def forward(array, i):
        i = _index("read_from_array", i)
        if not 0 <= i < len(array) or array[i] is None:
            raise IndexError("read_from_array: index %d was never written (array length %d)"
                             % (i, len(array)))
        return array[i]

    @staticmethod
    def backward(array, i, dout):
        """The array's gradient: Out@GRAD at I, nothing elsewhere (X is read for its
        length)."""
        grad = [None] * len(array)
        grad[_index("read_from_array_grad", i)] = dout
        return grad


@register
class LodArrayLength(OpDef):
    type = "lod_array_length"
    inputs = ("X",)
    outputs = ("Out",)

    def infer_shape(self, ctx):
        ctx.set_output("Out", (1,), "int64")

    @staticmethod
    def forward(array):
        return np.array([len(array)], dtype=np.int64)


@register
class TensorArrayToTensor(OpDef):
    """The elements concatenated (or stacked, use_stack) along `axis`; OutIndex holds each
    element's size along axis (1 each when stacked)."""
    type = "tensor_array_to_tensor"
    inputs = ("X",)
    outputs = ("Out", "OutIndex")
    attrs = {"axis": 1, "use_stack": False}
    grad_inputs = ("X", "Out@GRAD")

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        if not x.shape:     # an array declared without its elements' shape
            ctx.set_output("Out", None, x.dtype)
            ctx.set_output("OutIndex", (-1,), "int32")
            return
        shape = list(x.shape)
        axis = ctx.attr("axis")
        rank = len(shape) + (1 if ctx.attr("use_stack") else 0)
        ctx.expect(-rank <= axis < rank, "axis %d is out of range for elements of X %r of "
                   "shape %s" % (axis, x.name, shape))
        axis %= rank
        if ctx.attr("use_stack"):
            shape.insert(axis, -1)
        else:
            shape[axis] = -1
        ctx.set_output("Out", shape, x.dtype)
        ctx.set_output("OutIndex", (-1,), "int32")

    @staticmethod
    def forward(array, axis=1, use_stack=False):
        if not array or any(a is None for a in array):
            raise ValueError("tensor_array_to_tensor: the array is empty or has unwritten "
                             "slots")
        out = np.stack(array, axis) if use_stack else np.concatenate(array, axis)
        sizes = [1 if use_stack else a.shape[axis] for a in array]
        return out, np.array(sizes, dtype=np.int32)

    @staticmethod
    def backward(array, dout, axis=1, use_stack=False):
        """Each element's part of Out@GRAD (the array's gradient)."""
        if use_stack:
            return [np.take(dout, k, axis=axis) for k in range(len(array))]
        bounds = np.cumsum([a.shape[axis] for a in array])[:-1]
        return np.split(dout, bounds, axis=axis)

