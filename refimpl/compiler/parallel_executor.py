"""ParallelExecutor (seed 001): Executor + with_data_parallel in one object."""
from .compiled_program import CompiledProgram
from .strategy import BuildStrategy
from ..executor import Executor
from ..framework.place import cpu_places, cuda_places
from ..framework.program import default_main_program
from ..framework.scope import global_scope

__all__ = ["ParallelExecutor"]


class ParallelExecutor:
    def __init__(self, use_cuda, loss_name=None, main_program=None, share_vars_from=None,
                 exec_strategy=None, build_strategy=None, num_trainers=1, trainer_id=0,
                 scope=None):
        if share_vars_from is not None and not isinstance(share_vars_from, ParallelExecutor):
            raise TypeError("share_vars_from must be a ParallelExecutor, got %s"
                            % type(share_vars_from).__name__)
        places = cuda_places() if use_cuda else cpu_places()
        if num_trainers != 1 or trainer_id != 0:
            build_strategy = build_strategy if build_strategy is not None else BuildStrategy()
            build_strategy.num_trainers = num_trainers
            build_strategy.trainer_id = trainer_id
        self._scope = scope if scope is not None else global_scope()
        self._compiled = CompiledProgram(main_program or default_main_program())
        self._compiled.with_data_parallel(
            loss_name=loss_name, build_strategy=build_strategy, exec_strategy=exec_strategy,
            share_vars_from=share_vars_from._compiled if share_vars_from else None,
            places=places)
        self._exe = Executor(places[0])

    @property
    def device_count(self):
        return len(self._compiled._places)

    def run(self, fetch_list, feed=None, feed_dict=None, return_numpy=True):
        if feed is None and feed_dict is not None:
            feed = feed_dict
        return self._exe.run(self._compiled, feed=feed, fetch_list=fetch_list,
                             scope=self._scope, return_numpy=return_numpy)

    def drop_local_exe_scopes(self):
        ds = self._compiled._device_sets.get(id(self._scope))
        if ds is not None:
            ds.drop_local_scopes()

    def _need_create_local_exe_scopes(self):
        return id(self._scope) not in self._compiled._device_sets
