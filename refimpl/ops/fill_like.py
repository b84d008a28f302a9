"""fill_any_like / fill_zeros_like / fill_zeros_like2: a tensor shaped like X, filled with a
constant."""
import numpy as np

from ..framework.dtypes import get_dtype, to_numpy_dtype
from .registry import OpDef, register, share_lod
from .tensor_array import zeros_like_value


class _FillLike(OpDef):
    inputs = ("X",)
    outputs = ("Out",)

    def infer_shape(self, ctx):
        ctx.same_as("X", "Out")


def _check_fits(value, dtype):
    """Paddle 1.8 refuses a value outside the target type's range, or NaN."""
    if dtype.kind in "fc":
        low, high = float(np.finfo(dtype).min), float(np.finfo(dtype).max)
    elif dtype.kind in "iu":
        low, high = int(np.iinfo(dtype).min), int(np.iinfo(dtype).max)   # exact vs floats
    else:
        low, high = 0, 1
    if not low <= value <= high:
        raise ValueError("the filled value %r is out of range for %s (NaN, or outside "
                         "[%s, %s])" % (value, dtype.name, low, high))


@register
class FillAnyLike(_FillLike):
    """dtype: -1 keeps X's, else a dtype name or Paddle's VarType code (as 1.8's OpTest
    passes it)."""
    type = "fill_any_like"
    attrs = {"value": 0.0, "dtype": -1}
    eager_double_attrs = ("value",)              # Paddle 3's eager full_like: a Scalar

    def infer_shape(self, ctx):
        dtype = ctx.attr("dtype")
        ctx.set_output("Out", ctx.input_shape("X"),
                       ctx.input_dtype("X") if dtype == -1 else get_dtype(dtype))

    @staticmethod
    def forward(x, value=0.0, dtype=-1):
        dtype = x.dtype if dtype == -1 else np.dtype(to_numpy_dtype(dtype))
        _check_fits(value, dtype)
        return np.full(x.shape, value, dtype=dtype)


@register
class FillZerosLike(_FillLike):
    type = "fill_zeros_like"
    lod_outputs = {"Out": share_lod("X")}

    @staticmethod
    def forward(x):
        # a tensor array's zero gradient (backward fills one for an array nobody
        # differentiated, e.g. a while loop's memory array) has no element set
        return zeros_like_value(x)


@register
class FillZerosLike2(_FillLike):
    """fill_zeros_like with an output dtype (a name or Paddle's VarType code; FP32 by
    default); X's values are not read (Paddle: no need buffer)."""
    type = "fill_zeros_like2"
    attrs = {"dtype": "float32"}

    def infer_shape(self, ctx):
        ctx.set_output("Out", ctx.input_shape("X"), get_dtype(ctx.attr("dtype")))

    @staticmethod
    def forward(x, dtype="float32"):
        return np.zeros(x.shape, dtype=to_numpy_dtype(dtype))
