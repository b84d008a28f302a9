"""What fleet.distributed_optimizer returns: the user's optimizer, made collective.

Dynamic mode: gradients are averaged by the DataParallel of fleet.distributed_model, so
`minimize` / `step` are the optimizer's own. Static mode: `minimize` builds the backward
and the update (through RecomputeOptimizer when strategy.recompute is set), then, as
Paddle's graph-execution meta optimizer, stores the data-parallel CompiledProgram of the
loss's program as `program._graph`: Executor.run of that program runs it on every place
of every process, gradients averaged (parameters broadcast from rank 0 on the first run).
"""
from ...compiler.compiled_program import CompiledProgram
from ...compiler.strategy import BuildStrategy
from ...dygraph.tensor import Tensor
from ...optimizer.recompute import RecomputeOptimizer
from . import _training

__all__ = ["DistributedOptimizer"]


class DistributedOptimizer:
    def __init__(self, optimizer, strategy):
        self.user_defined_optimizer = optimizer
        self.user_defined_strategy = strategy

    def minimize(self, loss, startup_program=None, parameter_list=None, no_grad_set=None):
        if isinstance(loss, Tensor):
            return self.user_defined_optimizer.minimize(loss, startup_program, parameter_list,
                                                        no_grad_set)
        _training("minimize")
        strategy = self.user_defined_strategy
        strategy._check_implemented("fleet.distributed_optimizer(...).minimize")
        optimizer = self.user_defined_optimizer
        if strategy.recompute:
            optimizer = RecomputeOptimizer(optimizer)
            optimizer._set_checkpoints(strategy.recompute_configs["checkpoints"])
        result = optimizer.minimize(loss, startup_program, parameter_list, no_grad_set)
        program = loss.block.program
        program._graph = CompiledProgram(program).with_data_parallel(
            loss_name=loss.name, build_strategy=self._build_strategy(),
            exec_strategy=strategy.execution_strategy)
        return result

    def _build_strategy(self):
        """A copy of the strategy's BuildStrategy (it is frozen once used) with the fields
        DistributedStrategy sets on it."""
        strategy, build = self.user_defined_strategy, BuildStrategy()
        for name in BuildStrategy._OPTIONS:
            setattr(build, name, getattr(strategy.build_strategy, name))
        build.sync_batch_norm = strategy.sync_batch_norm or build.sync_batch_norm
        build.fuse_all_reduce_ops = strategy.fuse_all_reduce_ops
        return build

    def __getattr__(self, name):
        # step, clear_grad, get_lr, set_lr, state_dict, ... of the user's optimizer
        return getattr(self.user_defined_optimizer, name)
