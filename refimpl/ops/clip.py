"""clip: X limited to [min, max]; the gradient passes where X is inside."""
import numpy as np

from .. import versions
from ._common import rand
from .registry import OpDef, Sample, register, share_lod


def _bound(tensor, attr):
    """A 1-element Min / Max tensor, when given, overrides the attr (as in Paddle); read
    with .item(), which a device array answers too."""
    return float(tensor.reshape(-1)[0].item()) if tensor is not None else attr


# X's dtypes by `clip_dtypes`: Paddle 1.8 / 2.0 register float and double kernels (their
# layers take float16 too); Paddle 3.3.1 takes int32 and int64 as well
_X_DTYPES = {"floats": ("float16", "float32", "float64"),
             "floats_and_ints": ("float16", "float32", "float64", "int32", "int64")}


@register
class Clip(OpDef):
    """Min / Max (1-element tensors, optional) override the min / max attrs."""
    type = "clip"
    lod_outputs = {"Out": share_lod("X")}
    inputs = ("X", "Min?", "Max?")
    outputs = ("Out",)
    attrs = {"min": -1.0, "max": 1.0}
    eager_double_attrs = ("min", "max")          # Paddle 3's eager clip: Scalars
    no_grad = ("Min", "Max")
    grad_inputs = ("X", "Min?", "Max?", "Out@GRAD")

    def infer_shape(self, ctx):
        ctx.check_dtype("X", _X_DTYPES[versions.switch("clip_dtypes")])
        if not (ctx.has_input("Min") or ctx.has_input("Max")):
            ctx.expect(ctx.attr("min") <= ctx.attr("max"),
                       "min %s must be <= max %s" % (ctx.attr("min"), ctx.attr("max")))
        ctx.same_as("X", "Out")

    @staticmethod
    def forward(x, min_tensor=None, max_tensor=None, min=-1.0, max=1.0):
        return np.clip(x, _bound(min_tensor, min), _bound(max_tensor, max)).astype(x.dtype)

    @staticmethod
    def backward(x, min_tensor, max_tensor, dout, min=-1.0, max=1.0):
        return dout * ((x > _bound(min_tensor, min)) & (x < _bound(max_tensor, max)))

    def samples(self, rng):
        x = rand(rng, 4, 5)
        x[np.abs(np.abs(x) - 0.5) < 0.05] = 0.2
        yield Sample({"X": x}, {"min": -0.5, "max": 0.5})
        yield Sample({"X": x, "Min": np.array([-0.5]), "Max": np.array([0.5])},
                     {"min": -9.0, "max": -8.0}, name="bound_tensors")
