"""Small building blocks shared by layer functions."""
from ..framework.layer_helper import LayerHelper
from ..framework.program import Variable

__all__ = ["unary", "check_variable"]


def check_variable(x, arg, layer):
    if not isinstance(x, Variable):
        raise TypeError("%s: argument %r must be a static Variable, got %s"
                        % (layer, arg, type(x).__name__))


def unary(op_type, x, attrs=None, name=None, out_dtype=None):
    """Append `op_type`(X=x) -> Out and return Out."""
    check_variable(x, "x", op_type)
    helper = LayerHelper(op_type, name=name)
    out = helper.create_variable_for_type_inference(out_dtype or x.dtype)
    helper.append_op(type=op_type, inputs={"X": [x]}, outputs={"Out": [out]},
                     attrs=attrs or {})
    return out
