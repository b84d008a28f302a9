"""Data parallelism: communicators and the multi-place engine behind CompiledProgram."""
