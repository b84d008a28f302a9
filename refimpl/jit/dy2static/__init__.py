"""paddle.jit.dy2static: the run-time functions of converted code (Paddle 2.0's names:
convert_operators', convert_call, to_static_variable; and refimpl's value_of,
range_condition, convert_ifelse_return and Undefined, which refimpl's converted code
calls) and refimpl's source conversion (ast_transformer). specs/jit.md, "Dygraph to
static"."""
from . import convert_operators
from .convert_call_func import convert_call
from .convert_operators import (Undefined, cast_bool_if_necessary, convert_assert,
                                convert_ifelse, convert_ifelse_return, convert_len, convert_logical_and,
                                convert_logical_not, convert_logical_or, convert_print,
                                convert_shape_compare, convert_var_dtype, convert_var_shape,
                                convert_while_loop, range_condition, to_static_variable,
                                value_of)

__all__ = convert_operators.__all__ + ["convert_call", "to_static_variable", "Undefined",
                                       "range_condition", "value_of",
                                       "convert_ifelse_return"]
