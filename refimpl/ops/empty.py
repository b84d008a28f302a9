"""empty (Paddle 2.0's paddle.empty / empty_like): a tensor of `shape` and `dtype` whose
values Paddle leaves uninitialized; refimpl fills zeros, one of the values Paddle may hand
out, so runs stay deterministic. The shape may come at run time from ShapeTensor (a 1-D
int tensor) or ShapeTensorList (1-element int tensors)."""
import numpy as np

from ..framework.dtypes import convert_dtype, to_numpy_dtype
from ._common import built_shape, runtime_ints
from .registry import OpDef, Sample, register


@register
class Empty(OpDef):
    type = "empty"
    inputs = ("ShapeTensor?", "ShapeTensorList*?")
    outputs = ("Out",)
    attrs = {"shape": [], "dtype": "float32"}
    no_grad = ("ShapeTensor", "ShapeTensorList")

    def infer_shape(self, ctx):
        shape = built_shape(ctx)
        ctx.expect(all(d >= -1 for d in shape), "shape %s has a negative dim" % shape)
        ctx.set_output("Out", tuple(shape), convert_dtype(ctx.attr("dtype")))

    @staticmethod
    def forward(shape_tensor=None, shape_list=None, shape=(), dtype="float32"):
        shape = runtime_ints(shape_tensor, shape_list, shape)
        if any(d < 0 for d in shape):
            raise ValueError("shape %s has a negative dim" % list(shape))
        return np.zeros(tuple(shape), dtype=to_numpy_dtype(dtype))

    def samples(self, rng):
        yield Sample({}, {"shape": [2, 3], "dtype": "float64"}, grad=False)
        yield Sample({"ShapeTensor": np.array([3, 1], "int64")}, {"dtype": "int32"}, grad=False,
                     name="shape_tensor")
