"""Runs a CompiledProgram (placeholder: single place, no passes yet)."""
from ..executor import _as_results

__all__ = ["run_compiled"]


def run_compiled(compiled, executor, feed, fetch_names, scope, return_numpy):
    if compiled._build_strategy is not None:
        compiled._build_strategy._finalize()
    outs = executor._run_program(compiled._program, feed or {}, fetch_names, scope)
    return _as_results(outs, return_numpy)
