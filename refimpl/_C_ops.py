"""paddle._C_ops (Paddle 2.3 and later; 3.x's op functions): `_C_ops.matmul(x, y, False,
False)`, each op under its API name with its arguments in the order of Paddle's ops.yaml
(refimpl.dygraph.op_functions.SIGNATURES; specs/c_ops.md). Dynamic mode only."""
from .dygraph.op_functions import OpFunctions as _OpFunctions

_functions = _OpFunctions("paddle._C_ops")


def __getattr__(name):
    return getattr(_functions, name)


def __dir__():
    return dir(_functions)
