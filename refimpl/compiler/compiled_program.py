"""CompiledProgram: a Program plus the BuildStrategy passes applied to it, and
optionally data parallelism over several places (with_data_parallel)."""
from ..framework.program import Program

__all__ = ["CompiledProgram"]


class CompiledProgram:
    def __init__(self, program_or_graph, build_strategy=None):
        if not isinstance(program_or_graph, Program):
            raise TypeError("CompiledProgram takes a Program, got %s"
                            % type(program_or_graph).__name__)
        self._program = program_or_graph
        self._build_strategy = build_strategy
        self._exec_strategy = None
        self._is_data_parallel = False
        self._loss_name = None
        self._share_vars_from = None
        self._places = None
        self._device_sets = {}    # id(scope) -> the engine's compiled state

    def with_data_parallel(self, loss_name=None, build_strategy=None, exec_strategy=None,
                           share_vars_from=None, places=None):
        if share_vars_from is not None and not isinstance(share_vars_from, CompiledProgram):
            raise TypeError("share_vars_from must be a CompiledProgram, got %s"
                            % type(share_vars_from).__name__)
        if self._is_data_parallel:
            raise RuntimeError("with_data_parallel has already been called on this "
                               "CompiledProgram")
        self._is_data_parallel = True
        self._loss_name = loss_name
        if build_strategy is not None:
            self._build_strategy = build_strategy
        self._exec_strategy = exec_strategy
        self._share_vars_from = share_vars_from
        self._places = places
        return self

    def _run(self, executor, feed, fetch_names, scope, return_numpy):
        from ..parallel.engine import run_compiled
        return run_compiled(self, executor, feed, fetch_names, scope, return_numpy)
