"""fill_constant: a tensor of `shape` filled with `value` (no inputs)."""
import numpy as np

from .registry import OpDef, register


@register
class FillConstant(OpDef):
    type = "fill_constant"
    inputs = ()
    outputs = ("Out",)
    attrs = {"shape": [1], "value": 0.0, "dtype": "float32", "force_cpu": False,
             "str_value": ""}

    def infer_shape(self, ctx):
        ctx.set_output("Out", tuple(ctx.attr("shape")), ctx.attr("dtype"))

    @staticmethod
    def forward(shape=(1,), value=0.0, dtype="float32", force_cpu=False, str_value=""):
        v = float(str_value) if str_value else value
        return np.full(tuple(shape), v, dtype=dtype)
