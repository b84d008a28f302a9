"""paddle._legacy_C_ops (Paddle 2.3 and later): the op functions of Paddle 2.0's core.ops
under their op types, `_legacy_C_ops.matmul_v2(x, y, 'trans_x', False, 'trans_y', False)`
(refimpl.dygraph.op_functions.LegacyOpFunctions; specs/c_ops.md). Dynamic mode only."""
from .dygraph.op_functions import LegacyOpFunctions as _LegacyOpFunctions

_functions = _LegacyOpFunctions("paddle._legacy_C_ops")


def __getattr__(name):
    return getattr(_functions, name)
