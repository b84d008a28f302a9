"""CompiledProgram: a Program plus the BuildStrategy passes applied to it, and
optionally data parallelism over several places (with_data_parallel)."""
import difflib

from ..framework.place import as_place
from ..framework.program import Program, Variable
from .strategy import BuildStrategy, ExecutionStrategy

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
        _check_loss_name(self._program, loss_name)
        for name, value, cls in (("build_strategy", build_strategy, BuildStrategy),
                                 ("exec_strategy", exec_strategy, ExecutionStrategy)):
            if value is not None and not isinstance(value, cls):
                raise TypeError("with_data_parallel: %s: expected %s, got %s"
                                % (name, cls.__name__, type(value).__name__))
        if places is not None:   # a place that cannot exist fails here, not at the run
            for place in places if isinstance(places, (list, tuple)) else [places]:
                as_place(place)
        self._is_data_parallel = True
        self._loss_name = loss_name
        if build_strategy is not None:
            self._build_strategy = build_strategy
        self._exec_strategy = exec_strategy
        self._share_vars_from = share_vars_from
        self._places = places
        return self

    def _run(self, executor, feed, fetch_names, scope, return_numpy, return_merged=True):
        from ..parallel.engine import run_compiled
        return run_compiled(self, executor, feed, fetch_names, scope, return_numpy,
                            return_merged)


def _check_loss_name(program, loss_name):
    """Paddle 1.8.5 asserts a loss name for a program with a backward part; a name that is
    no variable of the program is refused (Paddle 1.8.5 ignores its value: its gradient
    scaling finds the loss gradient by op role), with the closest names suggested."""
    if isinstance(loss_name, Variable):
        raise TypeError("with_data_parallel: loss_name must be the loss variable's name "
                        "(loss_name=loss.name), got the Variable %r itself" % loss_name.name)
    block = program.global_block()
    if loss_name is None:
        if any(op.type.endswith("_grad") for op in block.ops):
            raise ValueError("with_data_parallel: the loss name of CompiledProgram is None; "
                             "the program has a backward part, so give loss_name=loss.name "
                             "(Paddle 1.8: \"The loss name should be set if CompiledProgram "
                             "contains backward part.\")")
        return
    if not isinstance(loss_name, str):
        raise TypeError("with_data_parallel: loss_name must be a str (loss.name), got %s"
                        % type(loss_name).__name__)
    if block._find_var_recursive(loss_name) is None:
        names = [n for n in block.vars if "@" not in n]      # not gradients
        close = difflib.get_close_matches(loss_name, names, n=3, cutoff=0.5)
        raise ValueError("with_data_parallel: loss_name %r is not a variable of the program%s"
                         % (loss_name, "; did you mean %s?" % " or ".join(map(repr, close))
                            if close else " (give loss_name=loss.name)"))
