"""paddle.fluid.compiler: CompiledProgram and its strategies."""
from ..compiler import BuildStrategy, CompiledProgram, ExecutionStrategy

__all__ = ["CompiledProgram", "BuildStrategy", "ExecutionStrategy"]
