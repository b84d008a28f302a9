"""paddle.jit.dy2static: the run-time functions of converted code (Paddle 2.0's names:
convert_operators, convert_call, to_static_variable) and refimpl's source conversion
(ast_transformer). specs/jit.md, "Dygraph to static"."""
from . import convert_operators
from .convert_call_func import convert_call
from .convert_operators import *  # noqa: F401,F403  (2.0's public names)
from .convert_operators import Undefined, range_condition, to_static_variable, value_of

__all__ = convert_operators.__all__ + ["convert_call", "to_static_variable"]
