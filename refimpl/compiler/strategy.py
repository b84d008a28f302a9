"""BuildStrategy and ExecutionStrategy: plain option holders, as seeds 000 and 002 document,
plus the options Paddle 1.8 had (specs/build_strategy.md, specs/execution_strategy.md)."""
import copy
import enum

__all__ = ["BuildStrategy", "ExecutionStrategy"]


class BuildStrategy:
    class ReduceStrategy(enum.IntEnum):
        AllReduce = 0
        Reduce = 1

    class GradientScaleStrategy(enum.IntEnum):
        CoeffNumDevice = 0
        One = 1
        Customized = 2

    _DEFAULTS = {
        "reduce_strategy": ReduceStrategy.AllReduce,
        "gradient_scale_strategy": GradientScaleStrategy.CoeffNumDevice,
        "debug_graphviz_path": "",
        "enable_sequential_execution": False,
        "fuse_broadcast_ops": False,
        "fuse_elewise_add_act_ops": False,
        "fuse_relu_depthwise_conv": False,
        "fuse_bn_act_ops": False,
        "fuse_bn_add_act_ops": False,
        "fuse_all_optimizer_ops": False,
        "fuse_all_reduce_ops": False,
        "enable_inplace": False,
        "memory_optimize": None,
        "remove_unnecessary_lock": True,
        "sync_batch_norm": False,
        "num_trainers": 1,
        "trainer_id": 0,
        "enable_auto_fusion": False,
        "enable_addto": False,
        "cache_runtime_context": False,
        # Paddle 1.8's options for its graph and multi-machine builders: accepted with their
        # 1.8 defaults; refimpl's one engine and its collectives do not read them
        "async_mode": False,
        "enable_backward_optimizer_op_deps": True,
        "is_distribution": False,
        "mkldnn_enabled_op_types": set(),
        "nccl_comm_num": 1,
        "trainers_endpoints": [],
        "use_hierarchical_allreduce": False,
        "hierarchical_allreduce_inter_nranks": 0,
    }

    def __init__(self):
        object.__setattr__(self, "_frozen", False)
        for k, v in self._DEFAULTS.items():
            object.__setattr__(self, k, copy.copy(v))    # lists and sets of its own

    def __setattr__(self, name, value):
        if name not in self._DEFAULTS:
            raise AttributeError("BuildStrategy has no option %r; options: %s"
                                 % (name, ", ".join(sorted(self._DEFAULTS))))
        if self._frozen:
            raise RuntimeError("BuildStrategy is finalized: it was used to build a "
                               "CompiledProgram, so %r can no longer be changed" % name)
        object.__setattr__(self, name, value)

    def _finalize(self):
        object.__setattr__(self, "_frozen", True)

    def __repr__(self):
        return "BuildStrategy(%s)" % ", ".join("%s=%r" % (k, getattr(self, k))
                                               for k in self._DEFAULTS)


class ExecutionStrategy:
    _DEFAULTS = {
        "num_threads": 0,
        "num_iteration_per_drop_scope": 1,
        "num_iteration_per_run": 1,
        "use_thread_barrier": False,
        "allow_op_delay": False,
        # Paddle 1.8: which of its two graph executors runs (refimpl has one; no effect),
        # and whether ops run on CUDA (refimpl follows the places given)
        "use_experimental_executor": True,
        "use_cuda": True,
        # Paddle 1.8: schedule every op but run no kernel (a run computes and fetches nothing)
        "_dry_run": False,
    }

    def __init__(self):
        for k, v in self._DEFAULTS.items():
            object.__setattr__(self, k, v)

    def __setattr__(self, name, value):
        if name not in self._DEFAULTS:
            raise AttributeError("ExecutionStrategy has no option %r; options: %s"
                                 % (name, ", ".join(sorted(self._DEFAULTS))))
        object.__setattr__(self, name, value)
