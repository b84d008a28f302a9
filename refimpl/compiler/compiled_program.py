"""CompiledProgram: a Program plus the BuildStrategy passes applied to it, and
optionally data parallelism over several places (with_data_parallel). Running one compiles
it (compile_program: one program per place) and hands the programs to the executor's
multi-place runner, one per scope."""
import copy
import difflib

from ..executor.multi_place import MultiPlaceRunner
from ..framework.place import CUDAPlace, as_place, cpu_places, cuda_places, device_of
from ..framework.ir_graph import Graph
from ..framework.program import OpRole, Program, Variable, grad_var_name
from .pipeline import compile_program
from .strategy import BuildStrategy, ExecutionStrategy

__all__ = ["CompiledProgram", "resolve_places"]


def resolve_places(places, executor_place=None):
    """The places list: as given (Place objects or 'cpu' / 'gpu:x' strings), else CPU_NUM
    CPU places (every GPU when the Executor runs on one). All of one kind, the Executor's
    (Paddle: "Place type not match")."""
    if places is None:
        return cuda_places() if isinstance(executor_place, CUDAPlace) else cpu_places()
    resolved = [as_place(p) for p in (places if isinstance(places, (list, tuple)) else [places])]
    if not resolved:
        raise ValueError("places is empty")
    kinds = {type(p) for p in resolved}
    if len(kinds) > 1 or executor_place is not None and type(executor_place) not in kinds:
        raise ValueError("places %s: every place must be of one kind, the Executor's (%r); "
                         "Paddle says \"Place type not match. You may set wrong type of "
                         "places.\"" % (resolved, executor_place))
    return resolved


def _check_strategy(api, name, value, cls):
    if value is not None and not isinstance(value, cls):
        raise TypeError("%s: %s: expected %s, got %s"
                        % (api, name, cls.__name__, type(value).__name__))


class CompiledProgram:
    def __init__(self, program_or_graph, build_strategy=None):
        if isinstance(program_or_graph, Graph):
            # as in Paddle, a CompiledProgram of a graph has no Program (`_program` None)
            self._program = None
            self._program_to_run = program_or_graph._program
        elif isinstance(program_or_graph, Program):
            self._program = self._program_to_run = program_or_graph
        else:
            raise TypeError("CompiledProgram takes a Program or a core.Graph, got %s"
                            % type(program_or_graph).__name__)
        _check_strategy("CompiledProgram", "build_strategy", build_strategy, BuildStrategy)
        self._build_strategy = build_strategy
        self._exec_strategy = None
        self._is_data_parallel = False
        self._loss_name = None
        self._share_vars_from = None
        self._places = None
        self._compiled_for = None  # (scope, place) of the first _compile
        self._device_sets = {}    # id(scope) -> its MultiPlaceRunner
        self._is_inference = False
        self._predictor = None    # _with_inference_optimize's

    def _with_inference_optimize(self, config):
        """Run through the predictor of an inference config (core.NativeConfig /
        AnalysisConfig naming a saved inference model) instead of the program: Executor.run
        then feeds it a list of PaddleTensors and returns the predictor's outputs, as Paddle
        1.8 / 2.0."""
        if self._is_data_parallel:
            raise TypeError("CompiledProgram: _with_inference_optimize after "
                            "with_data_parallel; a program is compiled for one of them")
        if not hasattr(config, "_create_predictor"):
            raise TypeError("CompiledProgram._with_inference_optimize: config must be a "
                            "core.NativeConfig or AnalysisConfig, got %s"
                            % type(config).__name__)
        self._is_inference = True
        self._predictor = config._create_predictor()
        return self

    def with_data_parallel(self, loss_name=None, build_strategy=None, exec_strategy=None,
                           share_vars_from=None, places=None):
        if share_vars_from is not None and not isinstance(share_vars_from, CompiledProgram):
            raise TypeError("share_vars_from must be a CompiledProgram, got %s"
                            % type(share_vars_from).__name__)
        if self._is_data_parallel:
            raise RuntimeError("with_data_parallel has already been called on this "
                               "CompiledProgram")
        _check_loss_name(self._program_to_run, loss_name)
        for name, value, cls in (("build_strategy", build_strategy, BuildStrategy),
                                 ("exec_strategy", exec_strategy, ExecutionStrategy)):
            _check_strategy("with_data_parallel", name, value, cls)
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

    def _compile(self, scope, place):
        """Compile for `scope` and `place` (Executor.run does it on the first run). As in
        Paddle, a CompiledProgram is compiled once: compiling it again for another scope or
        place is a ValueError, and a share_vars_from source must be data parallel and
        compiled already. Returns self."""
        if self._compiled_for is not None:
            bound_scope, bound_place = self._compiled_for
            if scope is not None and scope is not bound_scope:
                raise ValueError("CompiledProgram._compile: cannot compile program with "
                                 "different scope (it was compiled for another Scope)")
            if place is not None and place != bound_place:
                raise ValueError("CompiledProgram._compile: cannot compile program with "
                                 "different place (compiled for %r, got %r)"
                                 % (bound_place, place))
            return self
        source = self._share_vars_from
        if self._is_data_parallel and source is not None:
            if not source._is_data_parallel:
                raise ValueError("share_vars_from: the shared CompiledProgram is not data "
                                 "parallel, so it has no variables to share")
            if source._compiled_for is None:
                raise ValueError("share_vars_from: the shared CompiledProgram is not compiled "
                                 "and executed yet, so there are no variables to share; "
                                 "run it before this one")
        self._compiled_for = (scope, place)
        self._device_sets[id(scope)] = self._runner(scope, place)
        return self

    def _with_program(self, program):
        """A copy running `program` (Executor.run(use_prune=True)'s pruned one) with the
        same strategies and places, not compiled yet."""
        new = copy.copy(self)
        new._program = new._program_to_run = program
        new._compiled_for = None
        new._device_sets = {}
        return new

    @property
    def _local_scopes(self):
        """Paddle's Python-side list: the shared program's per-place scopes under
        share_vars_from, else [] (Paddle 1.8.5 measured: [] after a data-parallel run, its
        core executor's local_scopes() holding the 2 place scopes; 2.0's compiler.py the
        same; 2.0's test_eager_deletion_delete_vars reads an undefined name in a loop over
        it)."""
        source = self._share_vars_from
        return source._place_scopes() if source is not None else []

    def _place_scopes(self):
        """The per-place scopes of the compiled program (one per place; each holds the
        place's values, and after a run its execution scope as its kid); [] before the
        first run."""
        if self._compiled_for is None:
            return []
        return list(self._device_sets[id(self._compiled_for[0])].place_scopes)

    @property
    def _executor(self):
        """Paddle's core ParallelExecutor of the compiled program, as far as Paddle's own
        tests read it (2.0's test_lr_scheduler: `_executor.local_scopes()`); None before
        the first run, as Paddle's attribute is unset then."""
        if self._compiled_for is None:
            return None
        return _CoreParallelExecutor(self)

    def _run(self, executor, feed, fetch_names, scope, return_numpy, return_merged=True):
        if self._is_inference:
            return self._predictor.run(feed)
        strategy = self._exec_strategy
        if strategy is not None and strategy._dry_run:
            if fetch_names:
                raise ValueError("ExecutionStrategy._dry_run runs no op, so nothing can be "
                                 "fetched; got fetch_list %s" % list(fetch_names))
            return []
        self._compile(scope, executor.place)
        runner = self._device_sets[id(scope)]
        if runner.version != self._program_to_run._version:
            runner = self._runner(scope, executor.place)
            self._device_sets[id(scope)] = runner
        return runner.run(feed, fetch_names, return_numpy, return_merged)

    def _runner(self, scope, executor_place):
        strategy = self._build_strategy or BuildStrategy()
        strategy._finalize()
        places = resolve_places(self._places, executor_place) if self._is_data_parallel \
            else [executor_place]
        if len(places) > 1 and _has_optimizer_in_control_flow(self._program_to_run):
            raise NotImplementedError("If optimizer is used in control flow, training on "
                                      "multi-places is not supported now.")
        loss = self._loss_name

        def compile_places(fetch_names, ranks, nranks):
            return compile_program(self._program_to_run, strategy, ranks, nranks, loss,
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
            required_feeds=required, version=self._program_to_run._version,
            source_program=self._program_to_run,
            inference=not any(op.attrs.get("op_role", 0) & (OpRole.Backward | OpRole.Optimize)
                              for op in self._program_to_run.global_block().ops),
            device_ids=[device_of(p) if p is not None else None for p in places],
            persistable=[n for n, v in self._program_to_run.global_block().vars.items()
                         if v.persistable])


class _CoreParallelExecutor:
    """The view CompiledProgram._executor gives: the per-place scopes."""

    def __init__(self, compiled):
        self._compiled = compiled

    def local_scopes(self):
        return self._compiled._place_scopes()


def _has_optimizer_in_control_flow(program):
    """Whether an optimizer's update ops run in a control-flow block of the global block's
    ops (minimize called in a cond / case branch): Paddle 1.8.5 trains such a program on
    one place only."""
    for op in program.global_block().ops:
        if "sub_block" in op.attrs and any(
                inner._is_optimize_op() for inner in program.block(op.attrs["sub_block"]).ops):
            return True
    return False


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
