"""Operators, one per module, found by the registry (see registry.py)."""
from .registry import OpDef, Sample, all_op_types, get_op_def, register

__all__ = ["OpDef", "Sample", "all_op_types", "get_op_def", "register"]
