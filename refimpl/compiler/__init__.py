"""CompiledProgram, BuildStrategy, ExecutionStrategy."""
from .strategy import BuildStrategy, ExecutionStrategy
from .compiled_program import CompiledProgram

__all__ = ["CompiledProgram", "BuildStrategy", "ExecutionStrategy"]
