"""Operators, one per module, found by the registry (see registry.py). Loading this
package installs the registry as the IR's source of op definitions."""
from ..framework.program import install_op_definitions
from .registry import OpDef, Sample, all_op_types, get_op_def, register

install_op_definitions(get_op_def, all_op_types)

__all__ = ["OpDef", "Sample", "all_op_types", "get_op_def", "register"]
