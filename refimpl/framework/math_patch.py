"""Python operators on static Variables (x + y, x * 2, x @ y, x < y, -x, x.astype) build ops."""
import numbers

from . import mode
from .layer_helper import LayerHelper

_SCALAR_AS_SCALE = {
    # op_type: (scale, bias) for `x op s`, and for `s op x` (reverse)
    "elementwise_add": (lambda s: (1.0, s), lambda s: (1.0, s)),
    "elementwise_sub": (lambda s: (1.0, -s), lambda s: (-1.0, s)),
    "elementwise_mul": (lambda s: (s, 0.0), lambda s: (s, 0.0)),
    "elementwise_div": (lambda s: (1.0 / s, 0.0), None),
}


_COMPARE = ("less_than", "less_equal", "greater_than", "greater_equal")


def scale(x, factor, bias=0.0):
    attrs = {"scale": float(factor), "bias": float(bias), "bias_after_scale": True}
    if mode.dynamic:
        out = mode.eager.run_eagerly("scale", {"X": [x]}, attrs)
        if out is not None:
            return out
    helper = LayerHelper("scale")
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(type="scale", inputs={"X": [x]}, outputs={"Out": [out]}, attrs=attrs)
    return out


def cast(x, dtype):
    from .dtypes import convert_dtype
    helper = LayerHelper("cast")
    out = helper.create_variable_for_type_inference(convert_dtype(dtype))
    helper.append_op(type="cast", inputs={"X": [x]}, outputs={"Out": [out]},
                     attrs={"in_dtype": x.dtype.name, "out_dtype": convert_dtype(dtype)})
    return out


def _constant_like(x, value):
    helper = LayerHelper("fill_constant")
    out = helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    helper.append_op(type="fill_constant", outputs={"Out": [out]},
                     attrs={"shape": [1], "value": float(value), "dtype": x.dtype.name})
    return out


def binary_op(x, other, op_type, reverse=False):
    if isinstance(other, numbers.Number) and not isinstance(other, bool):
        rule = _SCALAR_AS_SCALE.get(op_type)
        rule = rule and rule[1 if reverse else 0]
        if rule is not None:
            s, b = rule(float(other))
            return scale(x, s, b)
        other = _constant_like(x, other)
    a, b = (other, x) if reverse else (x, other)
    # matmul_v2 (x @ y) has no `axis`; elementwise and compare ops broadcast numpy-style
    attrs = {} if op_type == "matmul_v2" else {"axis": -1}
    if mode.dynamic:
        out = mode.eager.run_eagerly(op_type, {"X": [a], "Y": [b]}, attrs)
        if out is not None:
            return out
    helper = LayerHelper(op_type)
    out = helper.create_variable_for_type_inference("bool" if op_type in _COMPARE else a.dtype)
    helper.append_op(type=op_type, inputs={"X": [a], "Y": [b]}, outputs={"Out": [out]},
                     attrs=attrs)
    return out
