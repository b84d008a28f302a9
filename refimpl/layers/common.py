"""Small building blocks shared by layer functions."""
from ..framework.layer_helper import LayerHelper
from ..framework.program import Variable

__all__ = ["unary", "binary", "check_variable", "append_op_out", "as_list"]


def check_variable(x, arg, layer):
    if not isinstance(x, Variable):
        raise TypeError("%s: argument %r must be a static Variable, got %s"
                        % (layer, arg, type(x).__name__))


def as_list(v):
    if v is None:
        return []
    return list(v) if isinstance(v, (list, tuple)) else [v]


def append_op_out(op_type, inputs, attrs=None, name=None, out_dtype=None, out_slot="Out",
                  extra_outputs=(), stop_gradient=False, layer_type=None):
    """Append `op_type` with one main output (plus named extra outputs); return the main one
    (and the extras, in order, when any are requested). Outputs are named after
    `layer_type` (default: the op type), as Paddle names them after the API's LayerHelper."""
    for slot, values in inputs.items():
        for v in as_list(values):
            check_variable(v, slot, layer_type or op_type)
    helper = LayerHelper(layer_type or op_type, name=name)
    first = next(v for vs in inputs.values() for v in as_list(vs))
    dtype = out_dtype or first.dtype
    out = helper.create_variable_for_type_inference(dtype, stop_gradient=stop_gradient)
    outputs = {out_slot: [out]}
    extras = []
    for slot, ex_dtype in extra_outputs:
        v = helper.create_variable_for_type_inference(ex_dtype or dtype, stop_gradient=True)
        outputs[slot] = [v]
        extras.append(v)
    helper.append_op(type=op_type, inputs=inputs, outputs=outputs, attrs=attrs or {})
    return (out, *extras) if extras else out


def unary(op_type, x, attrs=None, name=None, out_dtype=None, layer_type=None):
    """Append `op_type`(X=x) -> Out and return Out."""
    check_variable(x, "x", layer_type or op_type)
    return append_op_out(op_type, {"X": [x]}, attrs, name, out_dtype, layer_type=layer_type)


def binary(op_type, x, y, axis=-1, act=None, name=None):
    check_variable(x, "x", op_type)
    check_variable(y, "y", op_type)
    out = append_op_out(op_type, {"X": [x], "Y": [y]}, {"axis": axis}, name)
    return LayerHelper(op_type).append_activation(out, act)
