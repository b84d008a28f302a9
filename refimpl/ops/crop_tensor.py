"""crop_tensor (fluid.layers.crop_tensor): Out = X[offsets : offsets + shape] in every dim.

shape comes from the 1-D int tensor Shape, else the 1-element int tensors ShapeTensor,
else the attr; offsets from Offsets, else OffsetsTensor, else the attr (default 0s). A
shape entry of -1 reaches X's end (X's dim less the offset). Every crop must lie inside X
(Paddle 1.8.5's message). The gradient places Out@GRAD at the crop, zeros elsewhere."""
import numpy as np

from ._common import rand, runtime_ints
from .registry import OpDef, Sample, register


def _crop_window(x, shape_t, offsets_t, shape_list, offsets_list, offsets, shape):
    """The slices of X the op crops, from the run-time shape and offsets."""
    shape = runtime_ints(shape_t) if shape_t is not None else runtime_ints(None, shape_list,
                                                                           shape)
    offsets = runtime_ints(offsets_t) if offsets_t is not None else \
        runtime_ints(None, offsets_list, offsets or [0] * x.ndim)
    if len(shape) != x.ndim or len(offsets) != x.ndim:
        raise ValueError("crop_tensor: shape %s and offsets %s need one entry per dim of X "
                         "%s" % (shape, offsets, list(x.shape)))
    window = []
    for i, (o, d, n) in enumerate(zip(offsets, shape, x.shape)):
        d = n - o if d == -1 else d
        if o < 0 or d <= 0 or o + d > n:
            raise ValueError(
                "crop_tensor: the value (%d) of the %dth element for shape (%d) should be "
                "less than or equal to the size of %dth dimension of the input (%d), and the "
                "offset (%d) not negative; X is %s" % (o + d, i, d, i, n, o, list(x.shape)))
        window.append(slice(o, o + d))
    return tuple(window)


@register
class CropTensor(OpDef):
    type = "crop_tensor"
    inputs = ("X", "Shape?", "Offsets?", "ShapeTensor*?", "OffsetsTensor*?")
    outputs = ("Out",)
    attrs = {"offsets": [], "shape": []}
    no_grad = ("Shape", "Offsets", "ShapeTensor", "OffsetsTensor")
    grad_inputs = ("X", "Shape?", "Offsets?", "ShapeTensor*?", "OffsetsTensor*?", "Out@GRAD")

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        rank = len(x.shape)
        if ctx.has_input("Shape") or (ctx.has_input("ShapeTensor") and not ctx.attr("shape")):
            shape = [-1] * rank
        else:
            shape = list(ctx.attr("shape"))
            ctx.expect(len(shape) == rank, "shape %s needs one entry per dim of X %r %s"
                       % (shape, x.name, list(x.shape)))
            # a 0 stands for a ShapeTensor entry, known at run time only
            shape = [-1 if d == 0 else d for d in shape]
        offsets = [-1] * rank if ctx.has_input("Offsets") or ctx.has_input("OffsetsTensor") \
            else list(ctx.attr("offsets")) or [0] * rank
        ctx.expect(len(offsets) == rank, "offsets %s need one entry per dim of X %r %s"
                   % (offsets, x.name, list(x.shape)))
        shape_at_run_time = ctx.has_input("Shape") or ctx.has_input("ShapeTensor")
        out = []
        for d, o, n in zip(shape, offsets, x.shape):
            if d == -1:
                d = n - o if n >= 0 and o >= 0 and not shape_at_run_time else -1
            ctx.expect(d < 0 or n < 0 or o < 0 or o + d <= n,
                       "shape %s at offsets %s does not lie inside X %r %s"
                       % (shape, offsets, x.name, list(x.shape)))
            out.append(d)
        ctx.set_output("Out", out, x.dtype)

    @staticmethod
    def forward(x, shape_t, offsets_t, shape_list, offsets_list, offsets=(), shape=()):
        window = _crop_window(x, shape_t, offsets_t, shape_list, offsets_list, offsets, shape)
        return np.array(x[window])

    @staticmethod
    def backward(x, shape_t, offsets_t, shape_list, offsets_list, dout, offsets=(), shape=()):
        window = _crop_window(x, shape_t, offsets_t, shape_list, offsets_list, offsets, shape)
        dx = np.zeros_like(x)
        dx[window] = dout
        return dx

    def samples(self, rng):
        yield Sample({"X": rand(rng, 4, 5)}, {"shape": [2, 3], "offsets": [1, 2]})
        yield Sample({"X": rand(rng, 4, 5)}, {"shape": [-1, 3], "offsets": [1, 2]},
                     name="to_the_end")
        yield Sample({"X": rand(rng, 3, 4, 5), "Shape": np.array([2, 2, -1], "int32"),
                      "Offsets": np.array([1, 0, 2], "int32")}, name="by_tensors")
        yield Sample({"X": rand(rng, 3, 4),
                      "ShapeTensor": [np.array([2], "int32"), np.array([3], "int64")],
                      "OffsetsTensor": [np.array([1], "int32"), np.array([0], "int32")]},
                     {"shape": [2, 0], "offsets": [1, -1]}, name="by_tensor_lists")
