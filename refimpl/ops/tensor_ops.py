"""Indexing and copying ops: slice, stack, unstack, expand, expand_v2, tile, gather, scatter,
cast, assign, where, shape, size."""
import numpy as np

from .. import versions
from ..broadcasting import sum_to_shape
from ..framework.dtypes import VarType, to_numpy_dtype
from ._common import (rand, region_index, runtime_ints, runtime_rank, shapes_agree,
                      take_along, take_along_grad)
from .registry import OpDef, Sample, register, scalar_shape, share_lod


@register
class Slice(OpDef):
    """starts / ends come from StartsTensorList / EndsTensorList (1-element int tensors) or
    StartsTensor / EndsTensor (1-D int tensors) when given, else the attrs; then the sliced
    dims are known at run time only.

    On a tensor array (Paddle 2.0: `arr[i]`, `arr[a:b]`) the array is one axis: Out is the
    elements starts[0]..ends[0] as an array, or with decrease_axis the element at
    starts[0] as a tensor; its gradient is an array as long as Input, Out@GRAD's elements
    at their places (specs/control_flow.md#gradients)."""
    type = "slice"
    inputs = ("Input", "StartsTensor?", "EndsTensor?", "StartsTensorList*?",
              "EndsTensorList*?")
    outputs = ("Out",)
    attrs = {"axes": [], "starts": [], "ends": [], "decrease_axis": [], "infer_flags": []}
    no_grad = ("StartsTensor", "EndsTensor", "StartsTensorList", "EndsTensorList")
    grad_inputs = ("Input", "StartsTensor?", "EndsTensor?", "StartsTensorList*?",
                   "EndsTensorList*?", "Out@GRAD")
    # as strided_slice's: Input's shape and dtype only (a tensor array's stays whole)
    grad_shape_only = ("Input",)

    def infer_shape(self, ctx):
        x = ctx.input_var("Input")
        if x.type == VarType.LOD_TENSOR_ARRAY:
            ctx.expect(len(ctx.attr("axes")) == 1, "The size of axes must be 1 when the "
                       "Input of SliceOp is LoDTensorArray, but received %d (Input %r)"
                       % (len(ctx.attr("axes")), x.name))
            # as Paddle 2.0: Out keeps the array's (its elements') build-time shape
            ctx.set_output("Out", x.shape, x.dtype)
            if not ctx.attr("decrease_axis"):
                ctx.set_output_type("Out", VarType.LOD_TENSOR_ARRAY)
            return
        shape = list(x.shape)
        at_run_time = any(ctx.has_input(s) for s in ("StartsTensor", "EndsTensor",
                                                     "StartsTensorList", "EndsTensorList"))
        for a, s, e in zip(ctx.attr("axes"), ctx.attr("starts"), ctx.attr("ends")):
            a = ctx.check_axis("Input", a, attr="axes item")
            if at_run_time:
                shape[a] = -1
            elif shape[a] >= 0:
                shape[a] = len(range(*slice(s, e).indices(shape[a])))
        dec = ctx.attr("decrease_axis")
        shape = [d for i, d in enumerate(shape) if i not in dec] or list(scalar_shape())
        ctx.set_output("Out", shape, x.dtype)

    @staticmethod
    def _bounds(starts_t, ends_t, starts_l, ends_l, starts, ends):
        return runtime_ints(starts_t, starts_l, starts), runtime_ints(ends_t, ends_l, ends)

    @staticmethod
    def forward(x, starts_t=None, ends_t=None, starts_l=None, ends_l=None, axes=(), starts=(),
                ends=(), decrease_axis=(), infer_flags=()):
        starts, ends = Slice._bounds(starts_t, ends_t, starts_l, ends_l, starts, ends)
        if isinstance(x, list):
            return Slice._array_forward(x, starts[0], ends[0], decrease_axis)
        out = x[region_index(x.ndim, axes, starts, ends)]
        if decrease_axis:
            out = out.reshape([d for i, d in enumerate(out.shape)
                               if i not in decrease_axis] or scalar_shape())
        return np.require(out, requirements="C")     # (ascontiguousarray makes 0-D 1-D)

    @staticmethod
    def backward(x, starts_t, ends_t, starts_l, ends_l, dout, axes=(), starts=(), ends=(),
                 decrease_axis=(), infer_flags=()):
        # dOut padded with zeros back to the input's shape: no write into an array, so
        # the gradient of this gradient can be recorded (dygraph/double_backward.py)
        starts, ends = Slice._bounds(starts_t, ends_t, starts_l, ends_l, starts, ends)
        if isinstance(x, list):
            return Slice._array_backward(x, starts[0], dout)
        widths = [(0, 0)] * x.ndim
        region = list(x.shape)
        for a, s, e in zip(axes, starts, ends):
            lo, hi, _ = slice(s, e).indices(x.shape[a])
            hi = max(hi, lo)
            widths[a], region[a] = (lo, x.shape[a] - hi), hi - lo
        return np.pad(dout.reshape(region), widths).astype(x.dtype, copy=False)

    @staticmethod
    def _array_start(array, start):
        """A tensor array's first sliced index: counted from the end when negative, then
        clipped at 0 (Paddle 2.0's slice kernel)."""
        return max(start + len(array) if start < 0 else start, 0)

    @staticmethod
    def _array_forward(array, start, end, decrease_axis):
        first = Slice._array_start(array, start)
        last = min(max(end + len(array) if end < 0 else end, 0), len(array))
        if last <= first:
            raise ValueError("slice: Attr(ends) should be greater than attr(starts) in slice "
                             "op. But received end = %d, start = %d (a tensor array of "
                             "length %d)" % (end, start, len(array)))
        if not decrease_axis:
            return array[first:last]
        if array[first] is None:
            raise IndexError("slice: element %d of the tensor array was never written "
                             "(array length %d)" % (first, len(array)))
        return array[first].copy()

    @staticmethod
    def _array_backward(array, start, dout):
        """Input's gradient, an array: Out@GRAD (an array, or a tensor for a decreased
        Out) from the first sliced index on, None (zero) elsewhere."""
        first = Slice._array_start(array, start)
        grad = [None] * len(array)
        parts = dout if isinstance(dout, list) else [dout]
        grad[first:first + len(parts)] = parts
        return grad

    def samples(self, rng):
        yield Sample({"Input": rand(rng, 4, 5)}, {"axes": [0, 1], "starts": [1, -3],
                                                  "ends": [3, 100]})
        yield Sample({"Input": rand(rng, 3, 4)}, {"axes": [0], "starts": [1], "ends": [2],
                                                  "decrease_axis": [0]})


@register
class Stack(OpDef):
    type = "stack"
    inputs = ("X*",)
    outputs = ("Y",)
    attrs = {"axis": 0}
    grad_inputs = ("X*", "Y@GRAD")

    def infer_shape(self, ctx):
        xs = ctx.input_vars("X")
        ctx.check_same_dtype("X")
        for v in xs[1:]:
            ctx.expect(shapes_agree(v.shape, xs[0].shape), "X %r has shape %s, expected %s (the "
                       "shape of X %r): stacked tensors have one shape"
                       % (v.name, list(v.shape), list(xs[0].shape), xs[0].name))
        shape = list(xs[0].shape)
        shape.insert(ctx.check_axis("X", ctx.attr("axis"), rank_extra=1), len(xs))
        ctx.set_output("Y", shape, xs[0].dtype)

    @staticmethod
    def forward(xs, axis=0):
        return np.stack(xs, axis=axis)

    @staticmethod
    def backward(xs, dy, axis=0):
        return [np.ascontiguousarray(np.take(dy, i, axis=axis)) for i in range(len(xs))]

    def samples(self, rng):
        yield Sample({"X": [rand(rng, 2, 3), rand(rng, 2, 3)]}, {"axis": 1})


@register
class Unstack(OpDef):
    type = "unstack"
    inputs = ("X",)
    outputs = ("Y*",)
    attrs = {"axis": 0, "num": 0}
    grad_inputs = ("Y@GRAD*",)

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        axis = ctx.attr("axis") % len(x.shape)
        shape = [d for i, d in enumerate(x.shape) if i != axis]
        ctx.set_output("Y", shape, x.dtype)

    @staticmethod
    def forward(x, axis=0, num=0):
        return [np.ascontiguousarray(np.take(x, i, axis=axis)) for i in range(x.shape[axis])]

    @staticmethod
    def backward(dys, axis=0, num=0):
        return np.stack(list(dys), axis=axis)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 2)}, {"axis": 0, "num": 3})


class _Repeat(OpDef):
    inputs = ("X",)
    outputs = ("Out",)
    grad_inputs = ("X", "Out@GRAD")

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        ctx.set_output("Out", self.out_shape(list(x.shape), ctx), x.dtype)

    @staticmethod
    def backward(x, dout, **attrs):
        # Out tiles X: sum the copies back, dim by dim.
        lead = dout.ndim - x.ndim
        g = dout.sum(axis=tuple(range(lead))) if lead else dout
        shape = []
        for d, n in zip(x.shape, g.shape):
            shape += [n // d if d else 0, d]
        return g.reshape(shape).sum(axis=tuple(range(0, len(shape), 2)))


@register
class Expand(_Repeat):
    """expand_times from expand_times_tensor (1-element int tensors) or ExpandTimes (a 1-D
    int tensor) when given, else the attr (where -1 marks a time known at run time)."""
    type = "expand"
    inputs = ("X", "ExpandTimes?", "expand_times_tensor*?")
    attrs = {"expand_times": []}
    no_grad = ("ExpandTimes", "expand_times_tensor")

    def out_shape(self, s, ctx):
        if ctx.has_input("ExpandTimes"):
            return [-1] * len(s)
        times = ctx.attr("expand_times")
        if ctx.has_input("expand_times_tensor") and len(times) != len(s):
            times = [-1] * len(s)
        x = ctx.input_var("X")
        ctx.expect(len(times) == len(s), "expand_times %s must have one entry per dim of X %r "
                   "%s" % (list(times), x.name, list(s)))
        ctx.expect(all(t >= 0 or t == -1 and ctx.has_input("expand_times_tensor")
                       for t in times),
                   "expand_times %s must not be negative (X %r)" % (list(times), x.name))
        return [d * t if d >= 0 and t >= 0 else -1 for d, t in zip(s, times)]

    @staticmethod
    def forward(x, times_tensor=None, times_list=None, expand_times=()):
        return np.tile(x, runtime_ints(times_tensor, times_list, expand_times))

    def samples(self, rng):
        yield Sample({"X": rand(rng, 2, 3)}, {"expand_times": [2, 1]})


@register
class Tile(_Repeat):
    """repeat_times from repeat_times_tensor (1-element int tensors, the attr holding -1 at
    their places) or RepeatTimes (a 1-D int tensor) when given, else the attr. X is padded
    with leading 1s to the times' length, and the times with leading 1s to X's rank."""
    type = "tile"
    inputs = ("X", "RepeatTimes?", "repeat_times_tensor*?")
    attrs = {"repeat_times": []}
    no_grad = ("RepeatTimes", "repeat_times_tensor")

    def out_shape(self, s, ctx):
        times = list(ctx.attr("repeat_times"))
        if ctx.has_input("RepeatTimes") or ctx.has_input("repeat_times_tensor"):
            rank = runtime_rank(ctx, "RepeatTimes", "repeat_times_tensor", times)
            if rank < 0:    # a RepeatTimes of unknown length: X's rank at least
                return [-1] * len(s)
            times = times if len(times) == rank else [-1] * rank
        else:
            ctx.expect(all(t > 0 for t in times), "repeat_times %s must be positive for X %r"
                       % (times, ctx.input_var("X").name))
        s = [1] * (len(times) - len(s)) + s
        times = [1] * (len(s) - len(times)) + times
        return [d * t if d >= 0 and t > 0 else -1 for d, t in zip(s, times)]

    @staticmethod
    def forward(x, times_tensor=None, times_list=None, repeat_times=()):
        return np.tile(x, runtime_ints(times_tensor, times_list, repeat_times))

    def samples(self, rng):
        yield Sample({"X": rand(rng, 2, 3)}, {"repeat_times": [2, 1, 2]})
        yield Sample({"X": rand(rng, 2, 3), "RepeatTimes": np.array([2, 2], "int32")})


@register
class ExpandV2(OpDef):
    """X broadcast to `shape` (-1: X's dim), or to the shape given at run time by
    expand_shapes_tensor (1-element int tensors; the attr's -1 then marks them) or Shape
    (a 1-D int tensor)."""
    type = "expand_v2"
    inputs = ("X", "Shape?", "expand_shapes_tensor*?")
    outputs = ("Out",)
    attrs = {"shape": []}
    no_grad = ("Shape", "expand_shapes_tensor")
    grad_inputs = ("X", "Out@GRAD")

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        if ctx.has_input("Shape"):
            n = ctx.input_var("Shape").shape[0]
            ctx.expect(n >= 0, "Shape %r must have a known length" % ctx.input_var("Shape").name)
            ctx.set_output("Out", [-1] * n, x.dtype)
            return
        if ctx.has_input("expand_shapes_tensor"):     # its -1s: sizes known at run time
            ctx.set_output("Out", list(ctx.attr("shape")), x.dtype)
            return
        shape = list(ctx.attr("shape"))
        lead = len(shape) - len(x.shape)
        ctx.expect(lead >= 0, "shape %s has fewer dims than X %r %s"
                   % (shape, x.name, list(x.shape)))
        out = [x.shape[i - lead] if d == -1 else d for i, d in enumerate(shape)]
        for i, d in enumerate(x.shape):
            ctx.expect(d in (1, -1, out[lead + i]) or out[lead + i] < 0,
                       "X %r %s cannot expand to shape %s: dim %d of X is %d, not 1 or %d"
                       % (x.name, list(x.shape), shape, i, d, out[lead + i]))
        ctx.set_output("Out", out, x.dtype)

    @staticmethod
    def forward(x, shape_tensor=None, shape_list=None, shape=()):
        shape = runtime_ints(shape_tensor, shape_list, shape)
        lead = len(shape) - x.ndim
        target = [x.shape[i - lead] if d == -1 else d for i, d in enumerate(shape)]
        return np.ascontiguousarray(np.broadcast_to(x, target))

    @staticmethod
    def backward(x, dout, shape=()):
        return sum_to_shape(dout, x.shape)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 1)}, {"shape": [2, -1, 4]})


_GATHER_INDEX_DTYPES = ("int32", "int64")


@register
class Gather(OpDef):
    """Out = X's entries at Index along `axis`, or along the axis a 1-element int tensor
    Axis gives at run time (Paddle 2.0's paddle.gather with a Variable axis)."""
    type = "gather"
    inputs = ("X", "Index", "Axis?")
    outputs = ("Out",)
    attrs = {"axis": 0}
    no_grad = ("Index", "Axis")
    grad_inputs = ("X", "Index", "Axis?", "Out@GRAD")

    def infer_shape(self, ctx):
        x, idx = ctx.input_var("X"), ctx.input_var("Index")
        if versions.switch("gather_index_dtype_checked") == "build":
            ctx.check_dtype("Index", _GATHER_INDEX_DTYPES)
        shape = list(x.shape)
        if ctx.has_input("Axis"):
            ctx.check_dtype("Axis", ("int32", "int64"))
            ctx.set_output("Out", [-1] * len(shape), x.dtype)    # the axis is known at run time
            return
        shape[ctx.check_axis("X", ctx.attr("axis"))] = idx.shape[0]
        ctx.set_output("Out", shape, x.dtype)

    @staticmethod
    def forward(x, index, axis_tensor=None, axis=0):
        if index.dtype.name not in _GATHER_INDEX_DTYPES:     # built unchecked (1.8)
            raise TypeError("gather: Index holds %s; expected int32 or int64"
                            % index.dtype.name)
        return take_along(x, index, runtime_ints(axis_tensor, None, [axis])[0])

    @staticmethod
    def backward(x, index, axis_tensor, dout, axis=0):
        return take_along_grad(x, index, dout, runtime_ints(axis_tensor, None, [axis])[0])

    def samples(self, rng):
        yield Sample({"X": rand(rng, 4, 3), "Index": np.array([3, 0, 3], "int64")})
        yield Sample({"X": rand(rng, 2, 4, 3), "Index": np.array([3, 0, 3], "int32"),
                      "Axis": np.array([1], "int32")}, name="axis_tensor")


@register
class Scatter(OpDef):
    """Out = X with rows Ids replaced by Updates (overwrite), or zeroed and then summed
    with the Updates that land on them (overwrite=False)."""
    type = "scatter"
    inputs = ("X", "Ids", "Updates")
    outputs = ("Out",)
    attrs = {"overwrite": True}
    no_grad = ("Ids",)
    grad_inputs = ("Ids", "Out@GRAD")

    def infer_shape(self, ctx):
        x, updates = ctx.input_var("X"), ctx.input_var("Updates")
        ctx.expect(len(updates.shape) == len(x.shape) and
                   all(a < 0 or b < 0 or a == b for a, b in zip(x.shape[1:], updates.shape[1:])),
                   "Updates %r has shape %s; expected [len(Ids)] + %s (X %r's rows)"
                   % (updates.name, list(updates.shape), list(x.shape[1:]), x.name))
        ctx.same_as("X", "Out")

    @staticmethod
    def forward(x, ids, updates, overwrite=True):
        ids = ids.reshape(-1)
        out = x.copy()
        if overwrite:
            out[ids] = updates
        else:
            out[ids] = 0
            np.add.at(out, ids, updates)
        return out

    @staticmethod
    def backward(ids, dout, overwrite=True):
        # The rows at Ids no longer depend on X; Updates row k went to row Ids[k].
        ids = ids.reshape(-1)
        dx = dout.copy()
        dx[ids] = 0
        return dx, dout[ids]

    def samples(self, rng):
        yield Sample({"X": rand(rng, 5, 3), "Ids": np.array([3, 0], "int64"),
                      "Updates": rand(rng, 2, 3)})
        yield Sample({"X": rand(rng, 4, 2), "Ids": np.array([1, 1, 2], "int32"),
                      "Updates": rand(rng, 3, 2)}, {"overwrite": False})


@register
class Cast(OpDef):
    type = "cast"
    lod_outputs = {"Out": share_lod("X")}
    inputs = ("X",)
    outputs = ("Out",)
    attrs = {"in_dtype": "float32", "out_dtype": "float32"}
    grad_inputs = ("Out@GRAD",)

    def infer_shape(self, ctx):
        ctx.set_output("Out", ctx.input_var("X").shape, ctx.attr("out_dtype"))

    @staticmethod
    def forward(x, in_dtype="float32", out_dtype="float32"):
        return x.astype(to_numpy_dtype(out_dtype))    # a name, or Paddle's dtype code

    @staticmethod
    def backward(dout, in_dtype="float32", out_dtype="float32"):
        return dout.astype(to_numpy_dtype(in_dtype))

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 2)}, {"in_dtype": "float64", "out_dtype": "float64"})
        yield Sample({"X": rand(rng, 3, 2)}, {"in_dtype": "float64", "out_dtype": "int32"},
                     grad=False)


@register
class Assign(OpDef):
    type = "assign"
    lod_outputs = {"Out": share_lod("X")}
    inputs = ("X",)
    outputs = ("Out",)
    grad_inputs = ("Out@GRAD",)

    def infer_shape(self, ctx):
        ctx.same_as("X", "Out")

    @staticmethod
    def forward(x):
        return x.copy()

    @staticmethod
    def backward(dout):
        return dout.copy()

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 2)})


@register
class Where(OpDef):
    type = "where"
    inputs = ("Condition", "X", "Y")
    outputs = ("Out",)
    no_grad = ("Condition",)
    grad_inputs = ("Condition", "Out@GRAD")

    def infer_shape(self, ctx):
        ctx.check_same_dtype("X", "Y")
        x = ctx.input_var("X")
        for slot in ("Condition", "Y"):
            v = ctx.input_var(slot)
            ctx.expect(shapes_agree(v.shape, x.shape), "%s %r has shape %s, expected X %r's %s"
                       % (slot, v.name, list(v.shape), x.name, list(x.shape)))
        ctx.same_as("X", "Out")

    @staticmethod
    def forward(cond, x, y):
        return np.where(cond, x, y)

    @staticmethod
    def backward(cond, dout):
        # selected, not multiplied: an inf or NaN dOut stays on its own side (Paddle's
        # where_grad; nanmean's all-NaN slices get 0)
        zero = np.zeros_like(dout)
        return np.where(cond, dout, zero), np.where(cond, zero, dout)

    def samples(self, rng):
        yield Sample({"Condition": rng.rand(3, 4) > 0.5, "X": rand(rng, 3, 4),
                      "Y": rand(rng, 3, 4)})


@register
class Shape(OpDef):
    type = "shape"
    inputs = ("Input",)
    outputs = ("Out",)

    def infer_shape(self, ctx):
        # an input of unknown rank (a SelectedRows before it runs): as many dims as it has
        shape = ctx.input_var("Input").shape
        ctx.set_output("Out", [-1 if shape is None else len(shape)], "int32")

    @staticmethod
    def forward(x):
        return np.array(x.shape, dtype=np.int32)

    def samples(self, rng):
        yield Sample({"Input": rand(rng, 3, 4)})


@register
class Size(OpDef):
    """The number of elements of Input (paddle.numel), as an int64 number
    (scalar_shape())."""
    type = "size"
    inputs = ("Input",)
    outputs = ("Out",)
    scalar_outputs = ("Out",)

    def infer_shape(self, ctx):
        ctx.set_output("Out", (), "int64")

    @staticmethod
    def forward(x):
        return np.array(x.size, dtype=np.int64)

    def samples(self, rng):
        yield Sample({"Input": rand(rng, 3, 4)})


@register
class IsEmpty(OpDef):
    """Whether X has no elements: one bool (scalar_shape(): [1] in Paddle 1.8 / 2.0, 0-D in
    3.x, measured on 3.3.1)."""
    type = "is_empty"
    inputs = ("X",)
    outputs = ("Out",)
    scalar_outputs = ("Out",)

    def infer_shape(self, ctx):
        ctx.set_output("Out", (), "bool")

    @staticmethod
    def forward(x):
        return np.array(x.size == 0)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 3, 4)})
        yield Sample({"X": np.zeros((0, 4), "float32")})
