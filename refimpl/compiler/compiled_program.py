"""CompiledProgram: a Program plus the BuildStrategy passes applied to it, and
optionally data parallelism over several places (with_data_parallel). Running one compiles
it (compile_program: one program per place) and hands the programs to the executor's
multi-place runner, one per scope."""
from ..executor.multi_place import MultiPlaceRunner
from ..framework.place import CPUPlace, CUDAPlace, cpu_places
from ..framework.program import Program, grad_var_name
from .pipeline import compile_program
from .strategy import BuildStrategy

__all__ = ["CompiledProgram", "resolve_places"]


def resolve_places(places):
    """The places list: as given (Place objects or 'cpu' / 'gpu:x' strings), else CPU_NUM."""
    if places is None:
        return cpu_places()
    resolved = []
    for p in places if isinstance(places, (list, tuple)) else [places]:
        if isinstance(p, str):
            kind, _, idx = p.partition(":")
            if kind == "cpu":
                resolved.append(CPUPlace())
            elif kind == "gpu":
                resolved.append(CUDAPlace(int(idx or 0)))
            else:
                raise ValueError("places: %r is not 'cpu' or 'gpu:x'" % p)
        else:
            resolved.append(p)
    if not resolved:
        raise ValueError("places is empty")
    return resolved


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
        self._device_sets = {}    # id(scope) -> its MultiPlaceRunner

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
        runner = self._device_sets.get(id(scope))
        if runner is None or runner.version != self._program._version or \
                runner.scope is not scope:
            runner = self._runner(scope)
            self._device_sets[id(scope)] = runner
        return runner.run(feed, fetch_names, return_numpy)

    def _runner(self, scope):
        strategy = self._build_strategy or BuildStrategy()
        strategy._finalize()
        places = resolve_places(self._places) if self._is_data_parallel else [None]
        loss = self._loss_name

        def compile_places(fetch_names, ranks, nranks):
            return compile_program(self._program, strategy, ranks, nranks, loss,
                                   set(fetch_names) | {loss} - {None})

        required = {}
        if self._is_data_parallel and loss is not None and strategy.gradient_scale_strategy \
                == BuildStrategy.GradientScaleStrategy.Customized:
            required[grad_var_name(loss)] = ("gradient_scale_strategy is Customized: feed %r "
                                             "(one value per device)" % grad_var_name(loss))
        source = self._share_vars_from
        return MultiPlaceRunner(
            compile_places, len(places), self._is_data_parallel, strategy, self._exec_strategy,
            scope, share_from=(lambda: source._device_sets.get(id(scope))) if source else None,
            required_feeds=required, version=self._program._version)
