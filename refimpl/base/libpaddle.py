"""paddle.base.libpaddle (Paddle 3): the C++ core's extension module, whose classes
paddle.base.core holds under the same names (libpaddle.CPUPlace is core.CPUPlace), and its
`pir` submodule. refimpl's programs are one IR (pir_utils): a program's variables are its
values, so pir.Value (and OpResult, the name Paddle 3.0-beta gave an op's result before
3.0 made it a Value) is the program Variable class."""
import types

from ..fluid.core import CPUPlace, CUDAPinnedPlace, CUDAPlace, CustomPlace, Place
from ..pir import OpResult, Value

__all__ = ["CPUPlace", "CUDAPlace", "CUDAPinnedPlace", "CustomPlace", "Place", "pir"]

pir = types.ModuleType("paddle.base.libpaddle.pir", "A program's values (Value, OpResult).")
pir.Value, pir.OpResult = Value, OpResult
