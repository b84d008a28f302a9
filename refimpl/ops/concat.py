"""concat: join the X list along `axis`; the grad splits Out@GRAD back. Out's LoD: along
axis 0 the inputs' sequences one after another (each level's lengths joined, as Paddle 1.8),
along another axis the first input's."""
import numpy as np

from ._common import rand, runtime_ints
from .registry import LoDRule, OpDef, Sample, register, share_lod


def _axis(axis_tensor, axis):
    """AxisTensor (a 1-element int tensor), when given, overrides the `axis` attr."""
    return int(np.asarray(axis_tensor).reshape(-1)[0]) if axis_tensor is not None else axis


def _joined_lod(lods, values, attrs):
    xs = lods.get("X", [])
    axis = _axis(values.get("AxisTensor"), attrs.get("axis", 0))
    if axis % max(np.ndim(values["Out"]), 1) != 0 or not all(xs) or \
            len({len(lod) for lod in xs}) != 1:
        return share_lod("X").lod(lods, values, attrs)
    return tuple(sum((tuple(lod[level]) for lod in xs), ()) for level in range(len(xs[0])))


@register
class Concat(OpDef):
    type = "concat"
    lod_outputs = {"Out": LoDRule(_joined_lod, share_lod("X").level)}
    inputs = ("X*", "AxisTensor?")
    outputs = ("Out",)
    attrs = {"axis": 0}
    no_grad = ("AxisTensor",)
    grad_inputs = ("X*", "AxisTensor?", "Out@GRAD")

    def infer_shape(self, ctx):
        xs = ctx.input_vars("X")
        nd = len(xs[0].shape)
        for v in xs[1:]:
            ctx.expect(len(v.shape) == nd, "X %r has rank %d, expected %d"
                       % (v.name, len(v.shape), nd))
        ctx.check_same_dtype("X")
        if ctx.has_input("AxisTensor"):
            ctx.set_output("Out", [-1] * nd, xs[0].dtype)   # the axis is known at run time
            return
        axis = ctx.check_axis("X", ctx.attr("axis"))
        out = list(xs[0].shape)
        for v in xs[1:]:
            for i, (a, b) in enumerate(zip(out, v.shape)):
                if i != axis and a >= 0 and b >= 0 and a != b:
                    ctx.fail("X %r has shape %s, expected dim %d = %d"
                             % (v.name, list(v.shape), i, a))
        sizes = [v.shape[axis] for v in xs]
        out[axis] = sum(sizes) if all(s >= 0 for s in sizes) else -1
        ctx.set_output("Out", out, xs[0].dtype)

    @staticmethod
    def forward(xs, axis_tensor=None, axis=0):
        return np.concatenate(xs, axis=_axis(axis_tensor, axis))

    @staticmethod
    def backward(xs, axis_tensor, dout, axis=0):
        axis = _axis(axis_tensor, axis)
        cuts = np.cumsum([x.shape[axis] for x in xs])[:-1]
        # copy(order="C"): numpy does not hand np.ascontiguousarray to a double backward's
        # stand-in
        return [p.copy(order="C") for p in np.split(dout, cuts, axis=axis)]

    def samples(self, rng):
        yield Sample({"X": [rand(rng, 2, 3), rand(rng, 2, 2)]}, {"axis": 1})
        yield Sample({"X": [rand(rng, 1, 3), rand(rng, 2, 3), rand(rng, 1, 3)]}, {"axis": 0})
        yield Sample({"X": [rand(rng, 2, 1), rand(rng, 2, 3)],
                      "AxisTensor": np.array([-1], "int32")})


@register
class Split(OpDef):
    """AxisTensor (1-element) overrides `axis` and SectionsTensorList (1-element int
    tensors) `sections`; then the pieces' sizes along the axis are known at run time."""
    type = "split"
    inputs = ("X", "AxisTensor?", "SectionsTensorList*?")
    outputs = ("Out*",)
    attrs = {"axis": 0, "num": 0, "sections": []}
    no_grad = ("AxisTensor", "SectionsTensorList")
    grad_inputs = ("AxisTensor?", "Out@GRAD*")

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        n_out = len(ctx.op.outputs["Out"])
        if ctx.has_input("AxisTensor"):
            for i in range(n_out):
                ctx.set_output("Out", [-1] * len(x.shape), x.dtype, i)
            return
        axis = ctx.check_axis("X", ctx.attr("axis"))
        if ctx.has_input("SectionsTensorList"):
            sizes = [-1] * n_out
        else:
            sizes = self._sizes(x.shape[axis], ctx.attr("num"), ctx.attr("sections"), n_out)
        if x.shape[axis] >= 0 and -1 not in sizes and sum(sizes) != x.shape[axis]:
            ctx.fail("sections %s do not add up to dim %d (%d) of X %r"
                     % (sizes, axis, x.shape[axis], x.name))
        for i, s in enumerate(sizes):
            shape = list(x.shape)
            shape[axis] = s
            ctx.set_output("Out", shape, x.dtype, i)

    @staticmethod
    def _sizes(total, num, sections, n_out):
        if sections:
            sections = list(sections)
            if -1 in sections and total >= 0:
                sections[sections.index(-1)] = total - (sum(sections) + 1)
            return sections
        n = num or n_out
        return [total // n if total >= 0 else -1] * n

    @staticmethod
    def forward(x, axis_tensor=None, sections_list=None, axis=0, num=0, sections=()):
        axis = _axis(axis_tensor, axis) % x.ndim
        sections = runtime_ints(None, sections_list, sections)
        sizes = Split._sizes(x.shape[axis], num, sections, num or len(sections))
        return [np.ascontiguousarray(p)
                for p in np.split(x, np.cumsum(sizes)[:-1], axis=axis)]

    @staticmethod
    def backward(axis_tensor, douts, axis=0, num=0, sections=()):
        return np.concatenate(douts, axis=_axis(axis_tensor, axis))

    def samples(self, rng):
        yield Sample({"X": rand(rng, 4, 6)}, {"axis": 1, "num": 3})
        # unequal pieces: forward only (the generic gradient check stacks cotangents)
        yield Sample({"X": rand(rng, 5, 2)}, {"axis": 0, "sections": [2, 3]}, grad=False)
