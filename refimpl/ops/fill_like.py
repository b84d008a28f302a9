"""fill_any_like / fill_zeros_like: a tensor shaped like X, filled with a constant."""
import numpy as np

from .registry import OpDef, register, share_lod


class _FillLike(OpDef):
    inputs = ("X",)
    outputs = ("Out",)

    def infer_shape(self, ctx):
        ctx.same_as("X", "Out")


@register
class FillAnyLike(_FillLike):
    type = "fill_any_like"
    attrs = {"value": 0.0, "dtype": -1}

    @staticmethod
    def forward(x, value=0.0, dtype=-1):
        return np.full(x.shape, value, dtype=x.dtype if dtype == -1 else dtype)


@register
class FillZerosLike(_FillLike):
    type = "fill_zeros_like"
    lod_outputs = {"Out": share_lod("X")}

    @staticmethod
    def forward(x):
        return np.zeros_like(x)
