"""fill_constant: a tensor of `shape` filled with `value`. The shape may come at run time
from ShapeTensor (a 1-D int tensor) or ShapeTensorList (1-element int tensors), the value
from ValueTensor (1 element): Paddle's optional inputs."""
import numpy as np

from ..framework.dtypes import convert_dtype, to_numpy_dtype
from ._common import built_shape, runtime_ints
from .registry import OpDef, register


@register
class FillConstant(OpDef):
    type = "fill_constant"
    inputs = ("ValueTensor?", "ShapeTensor?", "ShapeTensorList*?")
    outputs = ("Out",)
    attrs = {"shape": [1], "value": 0.0, "dtype": "float32", "force_cpu": False,
             "str_value": ""}
    eager_double_attrs = ("value",)              # Paddle 3's eager full: a Scalar
    pir_double_attrs = ("value",)                # its PIR full: a double Scalar attribute
    no_grad = ("ValueTensor", "ShapeTensor", "ShapeTensorList")

    def infer_shape(self, ctx):
        shape = built_shape(ctx)
        ctx.set_output("Out", tuple(shape), convert_dtype(ctx.attr("dtype")))

    @staticmethod
    def forward(value_tensor=None, shape_tensor=None, shape_list=None, shape=(1,), value=0.0,
                dtype="float32", force_cpu=False, str_value=""):
        if value_tensor is not None:
            v = np.asarray(value_tensor).reshape(-1)[0]
        else:
            v = _parsed(str_value, dtype) if str_value else value
        if shape_tensor is not None or shape_list:
            shape = runtime_ints(shape_tensor, shape_list, shape)
        negative = [i for i, d in enumerate(shape) if d < 0]
        if negative:
            # Paddle 3.3.1's words (its test_zeros_op looks for them)
            raise ValueError("shape %s has a negative dim: each value of attribute 'shape' is "
                             "expected to be no less than 0, got shape[%d] = %d"
                             % (list(shape), negative[0], shape[negative[0]]))
        return np.full(tuple(shape), v, dtype=to_numpy_dtype(dtype))   # a name or a code


def _parsed(str_value, dtype):
    """The value `str_value` spells, as Paddle's kernel reads it: an int64 / int32 output's
    integer text exactly (2**60 + 1 has no double), any other as a double."""
    if np.issubdtype(to_numpy_dtype(dtype), np.integer):
        try:
            return int(str_value)
        except ValueError:      # "2.5" for an int tensor: the double, truncated by np.full
            pass
    return float(str_value)


@register
class Fill(OpDef):
    """fill: a tensor of `shape` holding `value`, its elements in row-major order. The
    attribute is a list of float32 (Paddle's vector<float>), each converted to dtype; the
    kernel reads the first prod(shape) of them."""
    type = "fill"
    inputs = ()
    outputs = ("Out",)
    attrs = {"value": [], "shape": [], "dtype": "float32", "force_cpu": False}

    def infer_shape(self, ctx):
        shape, count = ctx.attr("shape"), len(ctx.attr("value"))
        ctx.expect(all(d >= 0 for d in shape), "shape %s has a negative dim" % list(shape))
        # Paddle's kernel reads past a shorter list; refimpl refuses it
        ctx.expect(count >= int(np.prod(shape)), "value has %d elements, fewer than the %d "
                   "of shape %s" % (count, int(np.prod(shape)), list(shape)))
        ctx.set_output("Out", tuple(shape), convert_dtype(ctx.attr("dtype")))

    @staticmethod
    def forward(value=(), shape=(), dtype="float32", force_cpu=False):
        values = np.asarray(value, np.float32)[:int(np.prod(shape))]
        return values.astype(to_numpy_dtype(dtype)).reshape(tuple(shape))
