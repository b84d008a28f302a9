"""CompiledProgram, BuildStrategy, ExecutionStrategy, and compile_program: a program made
into one program per place by pure rewrites (passes, the data-parallel rewrite)."""
from .strategy import BuildStrategy, ExecutionStrategy
from .compiled_program import CompiledProgram
from .pipeline import compile_program

__all__ = ["CompiledProgram", "BuildStrategy", "ExecutionStrategy", "compile_program"]
