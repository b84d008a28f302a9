"""paddle.pir (Paddle 3): its program IR's Python API. refimpl's programs are one IR
(pir_utils; in_pir_mode() is False): pir.core's program_guard and default programs are
the static API's, and a program's values (Value, and OpResult, Paddle 3.0-beta's name of an
op's result before 3.0 made it a Value) are its Variables."""
from . import core
from ..framework.program import Variable as Value

OpResult = Value

__all__ = ["core", "Value", "OpResult"]
