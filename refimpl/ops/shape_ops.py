"""View-changing ops: reshape2, transpose2, flatten2, flatten_contiguous_range, squeeze2,
unsqueeze2, and the first versions flatten / squeeze / unsqueeze (no XShape: their grads read
X). The second versions also output XShape ([0] + X.shape, Paddle's convention) so the grad needs
only XShape and Out@GRAD and X itself can be freed. Out carries X's LoD when it keeps X's
first dim (Paddle 1.8's ShareLoD: an embedding squeezed to [N, D] stays sequences for
sequence_pool); transpose2 passes on none, as Paddle 1.8."""
import numpy as np

from ..xp import array_module, to_host
from ._common import numel, rand, runtime_ints, runtime_rank
from .registry import OpDef, Sample, register, share_lod_if_rows_kept


def _xshape(x):
    return array_module(x).zeros((0,) + x.shape, dtype=x.dtype)


class _View(OpDef):
    inputs = ("X",)
    outputs = ("Out", "XShape?")
    grad_inputs = ("XShape", "Out@GRAD")
    lod_outputs = {"Out": share_lod_if_rows_kept("X", "Out")}

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        ctx.set_output("Out", self.out_shape(ctx, x.shape), x.dtype)
        ctx.set_output("XShape", (0,) + tuple(x.shape), x.dtype)

    def forward(self, x, **attrs):
        return self.view(x, **attrs), _xshape(x)

    @staticmethod
    def backward(xshape, dout, **attrs):
        return dout.reshape(xshape.shape[1:])


def _resolve_shape(in_shape, shape):
    """Paddle's reshape rule: 0 copies the input dim, one -1 is inferred from the rest (a
    0 copying an unknown build-time dim is no second -1)."""
    if [int(d) for d in shape].count(-1) > 1:
        raise ValueError("reshape: at most one -1 in shape %s" % list(shape))
    return [in_shape[i] if d == 0 else int(d) for i, d in enumerate(shape)]


@register
class Reshape2(_View):
    """The target shape comes from, by priority: ShapeTensor (a list of 1-element int
    tensors), Shape (one 1-D int tensor), the `shape` attr."""
    type = "reshape2"
    inputs = ("X", "Shape?", "ShapeTensor*?")
    attrs = {"shape": []}
    no_grad = ("Shape", "ShapeTensor")

    def out_shape(self, ctx, in_shape):
        if ctx.has_input("ShapeTensor") or ctx.has_input("Shape"):
            # Known only at run time; the rank is known unless Shape's length is not.
            rank = ctx.input_count("ShapeTensor") or ctx.input_shape("Shape")[0]
            return [-1] * (rank if rank >= 0 else len(ctx.attr("shape")))
        shape = _resolve_shape(in_shape, ctx.attr("shape"))
        known_in = all(d >= 0 for d in in_shape)
        if -1 in shape and known_in:
            rest = numel([d for d in shape if d != -1])
            shape[shape.index(-1)] = numel(in_shape) // rest if rest else 0
        if known_in and all(d >= 0 for d in shape) and numel(shape) != numel(in_shape):
            ctx.fail("cannot reshape X %r of shape %s (%d elements) to %s"
                     % (ctx.input_var("X").name, list(in_shape), numel(in_shape),
                        ctx.attr("shape")))
        return shape

    def forward(self, x, shape_input=None, shape_tensor=None, shape=()):
        if shape_tensor:
            shape = [int(to_host(t).reshape(-1)[0]) for t in shape_tensor]
        elif shape_input is not None:
            shape = to_host(shape_input).reshape(-1).tolist()
        return x.reshape(_resolve_shape(x.shape, shape)), _xshape(x)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 2, 3, 4)}, {"shape": [0, -1]})
        yield Sample({"X": rand(rng, 6, 4)}, {"shape": [2, 3, 4]})
        yield Sample({"X": rand(rng, 6, 4), "Shape": np.array([4, -1], "int32")})
        yield Sample({"X": rand(rng, 6, 4),
                      "ShapeTensor": [np.array([3], "int32"), np.array([8], "int64")]})


@register
class Transpose2(_View):
    type = "transpose2"
    lod_outputs = {}
    attrs = {"axis": []}

    def out_shape(self, ctx, in_shape):
        axis = ctx.attr("axis")
        ctx.expect(sorted(axis) == list(range(len(in_shape))),
                   "axis %s is not a permutation of the %d dims of X %r"
                   % (axis, len(in_shape), ctx.input_var("X").name))
        return [in_shape[a] for a in axis]

    def view(self, x, axis=()):
        if x.ndim == 0:     # ascontiguousarray would make it 1-D; a 0-D X is its transpose
            return x.copy()
        return array_module(x).ascontiguousarray(x.transpose(axis))

    @staticmethod
    def backward(xshape, dout, axis=()):
        # copy(order="C"), not xp.ascontiguousarray: numpy does not hand that function to
        # a double backward's stand-in (Recorded)
        return dout.transpose(np.argsort(axis).tolist()).copy(order="C")

    def samples(self, rng):
        yield Sample({"X": rand(rng, 2, 3, 4)}, {"axis": [2, 0, 1]})
        # the compiled kernel's case: the last axis kept (attention's heads)
        yield Sample({"X": rand(rng, 2, 3, 4, 5)}, {"axis": [0, 2, 1, 3]})


@register
class Flatten2(_View):
    """flatten2: X -> [prod(dims[:axis]), prod(dims[axis:])]."""
    type = "flatten2"
    attrs = {"axis": 1}

    def out_shape(self, ctx, s):
        a = ctx.attr("axis")
        ctx.expect(0 <= a <= len(s), "axis %d is out of range for X %r of rank %d (expected "
                   "in [0, %d])" % (a, ctx.input_var("X").name, len(s), len(s)))
        return [numel(s[:a]) if all(d >= 0 for d in s[:a]) else -1,
                numel(s[a:]) if all(d >= 0 for d in s[a:]) else -1]

    def view(self, x, axis=1):
        return x.reshape(numel(x.shape[:axis]), -1)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 2, 3, 4)}, {"axis": 1})


@register
class FlattenContiguousRange(_View):
    type = "flatten_contiguous_range"
    attrs = {"start_axis": 1, "stop_axis": -1}

    def out_shape(self, ctx, s):
        a = ctx.check_axis("X", ctx.attr("start_axis"), attr="start_axis")
        b = ctx.check_axis("X", ctx.attr("stop_axis"), attr="stop_axis")
        ctx.expect(a <= b, "start_axis %d comes after stop_axis %d in X %r of rank %d"
                   % (ctx.attr("start_axis"), ctx.attr("stop_axis"), ctx.input_var("X").name,
                      len(s)))
        mid = s[a:b + 1]
        return list(s[:a]) + [numel(mid) if all(d >= 0 for d in mid) else -1] + list(s[b + 1:])

    def view(self, x, start_axis=1, stop_axis=-1):
        a, b = start_axis % x.ndim, stop_axis % x.ndim
        return x.reshape(x.shape[:a] + (-1,) + x.shape[b + 1:])

    def samples(self, rng):
        yield Sample({"X": rand(rng, 2, 3, 4, 2)}, {"start_axis": 1, "stop_axis": 2})


def _squeeze_shape(shape, axes):
    nd = len(shape)
    axes = [a % nd for a in axes] if axes else [i for i, d in enumerate(shape) if d == 1]
    return [d for i, d in enumerate(shape) if not (i in axes and d == 1)]


def _unsqueeze_shape(shape, axes):
    out = list(shape)
    for a in axes:
        a = a if a >= 0 else a + len(out) + 1
        out.insert(a, 1)
    return out


@register
class Squeeze2(_View):
    type = "squeeze2"
    attrs = {"axes": []}

    def out_shape(self, ctx, s):
        for a in ctx.attr("axes"):
            ctx.check_axis("X", a, attr="axes item")
        return _squeeze_shape(s, ctx.attr("axes"))

    def view(self, x, axes=()):
        return x.reshape(_squeeze_shape(x.shape, axes))

    def samples(self, rng):
        yield Sample({"X": rand(rng, 2, 1, 3, 1)}, {"axes": [1]})
        yield Sample({"X": rand(rng, 2, 1, 3, 1)}, {"axes": []})


@register
class Unsqueeze2(_View):
    """The axes come from, by priority: AxesTensorList (1-element int tensors), AxesTensor
    (a 1-D int tensor), the `axes` attr; from tensors Out's dims are known at run time."""
    type = "unsqueeze2"
    inputs = ("X", "AxesTensor?", "AxesTensorList*?")
    attrs = {"axes": []}
    no_grad = ("AxesTensor", "AxesTensorList")

    def out_shape(self, ctx, s):
        if ctx.has_input("AxesTensor") or ctx.has_input("AxesTensorList"):
            n = runtime_rank(ctx, "AxesTensor", "AxesTensorList", ctx.attr("axes"))
            return [-1] * (len(s) + n) if n >= 0 else [-1]
        axes = ctx.attr("axes")
        for i, a in enumerate(axes):   # each inserted dim widens the range of the next
            ctx.check_axis("X", a, rank_extra=i + 1, attr="axes item")
        return _unsqueeze_shape(s, axes)

    def forward(self, x, axes_tensor=None, axes_list=None, axes=()):
        axes = runtime_ints(axes_tensor, axes_list, axes)
        return x.reshape(_unsqueeze_shape(x.shape, axes)), _xshape(x)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 2, 3)}, {"axes": [0, 2]})


class _FirstVersion:
    """Paddle's first version of a view op (flatten, squeeze, unsqueeze; 1.8 and 2.0 still
    register them): Out only, no XShape; the grad reads X for its shape."""
    outputs = ("Out",)
    grad_inputs = ("X", "Out@GRAD")
    grad_shape_only = ("X",)

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        ctx.set_output("Out", self.out_shape(ctx, x.shape), x.dtype)

    def forward(self, x, *args, **attrs):
        return super().forward(x, *args, **attrs)[0]

    @staticmethod
    def backward(x, dout, **attrs):
        return dout.reshape(x.shape)


@register
class Flatten(_FirstVersion, Flatten2):
    type = "flatten"


@register
class Squeeze(_FirstVersion, Squeeze2):
    type = "squeeze"


@register
class Unsqueeze(_FirstVersion, Unsqueeze2):
    type = "unsqueeze"
