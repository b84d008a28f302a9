"""BuildStrategy and ExecutionStrategy: option holders, as seeds 000 and 002 document. Every
option checks its value when set: a wrong type or range raises at once, naming the option,
the value and what is allowed, instead of training as if it were the default. Paddle 1.8's
further options are accepted with their 1.8 meaning (specs/build_strategy.md,
specs/execution_strategy.md)."""
import copy
import enum
import numbers

import numpy as np

from ..framework.place import DeviceType

__all__ = ["BuildStrategy", "ExecutionStrategy"]


class _Option:
    """One option: its default, the Python types it takes, `valid(value)` for the range,
    `convert(value)` for what is stored, and `allowed`, what an error message says."""

    def __init__(self, default, types, allowed, valid=lambda value: True, convert=None):
        self.default, self.types, self.allowed = default, types, allowed
        self.valid, self.convert = valid, convert or (lambda value: value)


_BOOLS = (bool, np.bool_)


def _flag(default):
    """True or False (numpy booleans too, and 0 / 1 as Paddle's bindings take them)."""
    return _Option(default, _BOOLS + (numbers.Integral,), "True or False",
                   valid=lambda value: isinstance(value, _BOOLS) or value in (0, 1),
                   convert=bool)


def _count(default, least):
    """An integer >= `least` (not a bool)."""
    return _Option(default, (numbers.Integral,), "an integer >= %d" % least,
                   valid=lambda value: not isinstance(value, _BOOLS) and value >= least,
                   convert=int)


def _member(default, enum_cls):
    return _Option(default, (enum_cls,), " or ".join(
        "BuildStrategy.%s.%s" % (enum_cls.__name__, m.name) for m in enum_cls))


class _Options:
    """The attribute protocol both strategies share: `_OPTIONS` maps name -> _Option."""
    _OPTIONS = {}

    def __init__(self):
        object.__setattr__(self, "_frozen", False)
        for name, option in self._OPTIONS.items():
            object.__setattr__(self, name, copy.copy(option.default))   # lists/sets of its own

    def __setattr__(self, name, value):
        cls = type(self).__name__
        option = self._OPTIONS.get(name)
        if option is None:
            raise AttributeError("%s has no option %r; options: %s"
                                 % (cls, name, ", ".join(sorted(self._OPTIONS))))
        if self._frozen:
            raise RuntimeError("%s is finalized: it was used to build a CompiledProgram, so %r "
                               "can no longer be changed" % (cls, name))
        if not isinstance(value, option.types) or not option.valid(value):
            error = ValueError if isinstance(value, option.types) else TypeError
            raise error("%s.%s = %r (%s) is not allowed: expected %s"
                        % (cls, name, value, type(value).__name__, option.allowed))
        object.__setattr__(self, name, option.convert(value))

    def _finalize(self):
        object.__setattr__(self, "_frozen", True)

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__,
                           ", ".join("%s=%r" % (k, getattr(self, k)) for k in self._OPTIONS))


class BuildStrategy(_Options):
    class ReduceStrategy(enum.IntEnum):
        AllReduce = 0
        Reduce = 1

    class GradientScaleStrategy(enum.IntEnum):
        CoeffNumDevice = 0
        One = 1
        Customized = 2

    _OPTIONS = {
        "reduce_strategy": _member(ReduceStrategy.AllReduce, ReduceStrategy),
        "gradient_scale_strategy": _member(GradientScaleStrategy.CoeffNumDevice,
                                           GradientScaleStrategy),
        "debug_graphviz_path": _Option("", (str,), "a path (str); '' writes no graph"),
        "enable_sequential_execution": _flag(False),
        "fuse_broadcast_ops": _flag(False),
        "fuse_elewise_add_act_ops": _flag(False),
        "fuse_relu_depthwise_conv": _flag(False),
        "fuse_bn_act_ops": _flag(False),
        "fuse_bn_add_act_ops": _flag(False),
        "fuse_all_optimizer_ops": _flag(False),
        "fuse_all_reduce_ops": _flag(False),
        "enable_inplace": _flag(False),
        "memory_optimize": _Option(None, _BOOLS + (type(None),), "None, False or True",
                                   convert=lambda value: None if value is None else bool(value)),
        "remove_unnecessary_lock": _flag(True),
        "sync_batch_norm": _flag(False),
        "num_trainers": _count(1, 1),
        "trainer_id": _count(0, 0),
        "enable_auto_fusion": _flag(False),
        "enable_addto": _flag(False),
        "cache_runtime_context": _flag(False),
        # Paddle 1.8's options for its graph and multi-machine builders: accepted with their
        # 1.8 defaults; refimpl's one engine and its collectives do not read them
        "async_mode": _flag(False),
        "enable_backward_optimizer_op_deps": _flag(True),
        "is_distribution": _flag(False),
        "mkldnn_enabled_op_types": _Option(set(), (set, frozenset, list, tuple),
                                           "a set of op type names", convert=set),
        "nccl_comm_num": _count(1, 1),
        "trainers_endpoints": _Option([], (list, tuple), "a list of 'ip:port' strings",
                                      convert=list),
        "use_hierarchical_allreduce": _flag(False),
        "hierarchical_allreduce_inter_nranks": _count(0, 0),
    }

    def _finalize(self):
        """Used to build a CompiledProgram: options that depend on each other are checked
        together, then frozen."""
        if self.trainer_id >= self.num_trainers:
            raise ValueError("BuildStrategy.trainer_id = %d is not a trainer of "
                             "num_trainers = %d: expected 0 <= trainer_id < num_trainers"
                             % (self.trainer_id, self.num_trainers))
        super()._finalize()


class ExecutionStrategy(_Options):
    _OPTIONS = {
        "num_threads": _count(0, 0),
        "num_iteration_per_drop_scope": _count(1, 1),
        "num_iteration_per_run": _count(1, 1),
        "use_thread_barrier": _flag(False),
        "allow_op_delay": _flag(False),
        # Paddle 1.8: which of its two graph executors runs (refimpl has one; no effect),
        # and whether ops run on CUDA (refimpl follows the places given)
        "use_experimental_executor": _flag(True),
        "use_cuda": _flag(True),
        # Paddle 1.8: schedule every op but run no kernel (a run computes and fetches nothing)
        "_dry_run": _flag(False),
        # Paddle 2.0's replacement of use_cuda (a core.DeviceType; refimpl follows the
        # places given, as for use_cuda)
        "_use_device": _Option(DeviceType.CUDA, (DeviceType,),
                               "core.DeviceType.CPU, CUDA or XPU"),
    }
