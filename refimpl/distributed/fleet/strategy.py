"""fleet.DistributedStrategy: the fields Paddle 2.0 users set, each checked when set
(the BuildStrategy protocol: a wrong type or range raises at once). What refimpl maps onto
its machinery is honoured; fields that only tune NCCL, cuDNN or parameter servers are
accepted and have no effect; turning on a feature refimpl does not implement raises
NotImplementedError naming it (specs/distributed.md#fleet)."""
import copy
import numbers

from ...compiler.strategy import (_BOOLS, BuildStrategy, ExecutionStrategy, _count, _flag,
                                  _Option, _Options)

__all__ = ["DistributedStrategy"]


def _positive(default):
    return _Option(default, (numbers.Real,), "a number > 0",
                   valid=lambda value: not isinstance(value, _BOOLS) and value > 0,
                   convert=float)


def _instance(cls):
    return _Option(None, (cls,), "a %s" % cls.__name__)


# Features refimpl does not implement: setting one True is a NotImplementedError.
NOT_IMPLEMENTED = {
    "amp": "automatic mixed precision",
    "localsgd": "local SGD",
    "adaptive_localsgd": "adaptive local SGD",
    "dgc": "deep gradient compression",
    "gradient_merge": "gradient merge",
    "lars": "the LARS optimizer meta-strategy",
    "lamb": "the LAMB optimizer meta-strategy (use paddle.optimizer.Lamb)",
    "pipeline": "pipeline parallelism",
    "sharding": "sharding",
    "elastic": "elastic training",
    "auto": "automatic strategy search",
    "fp16_allreduce": "float16 gradient allreduce",
}

# Each *_configs field: its keys and defaults (Paddle 2.0's). Setting one updates the keys
# given, as Paddle does.
CONFIGS = {
    "recompute_configs": {"checkpoints": []},
    "amp_configs": {"init_loss_scaling": 32768.0, "incr_every_n_steps": 1000,
                    "decr_every_n_nan_or_inf": 2, "incr_ratio": 2.0, "decr_ratio": 0.8,
                    "use_dynamic_loss_scaling": True, "custom_white_list": [],
                    "custom_black_list": [], "custom_black_varnames": []},
    "localsgd_configs": {"k_steps": 1, "begin_step": 1},
    "adaptive_localsgd_configs": {"init_k_steps": 1, "begin_step": 1},
    "gradient_merge_configs": {"k_steps": 1, "avg": True},
    "dgc_configs": {"rampup_begin_step": 0, "rampup_step": 1, "sparsity": [0.999]},
    "pipeline_configs": {"micro_batch_size": 1},
    "a_sync_configs": {"k_steps": -1, "max_merge_var_num": 1, "send_queue_size": 16,
                       "independent_recv_thread": False, "min_send_grad_num_before_recv": 1,
                       "thread_pool_size": 1, "send_wait_times": 1,
                       "runtime_split_send_recv": False, "launch_barrier": True,
                       "heter_worker_device_guard": "cpu", "lr_decay_steps": 10},
    "lars_configs": {"lars_coeff": 0.001, "lars_weight_decay": 0.0005, "epsilon": 0.0,
                     "exclude_from_weight_decay": []},
    "lamb_configs": {"lamb_weight_decay": 0.01, "exclude_from_weight_decay": []},
    "sharding_configs": {"fuse_broadcast_MB": 32.0},
}


class DistributedStrategy(_Options):
    """Honoured: sync_batch_norm, fuse_all_reduce_ops, build_strategy, execution_strategy
    (static mode: the CompiledProgram's), fuse_grad_size_in_MB, last_comm_group_size_MB,
    find_unused_parameters (dynamic mode: DataParallel's buckets and unused parameters),
    recompute with recompute_configs (static mode: RecomputeOptimizer). Accepted without
    effect: a_sync (parameter servers only), the NCCL and cuDNN fields."""

    _OPTIONS = dict(
        {name: _flag(False) for name in NOT_IMPLEMENTED},
        recompute=_flag(False),
        sync_batch_norm=_flag(False),
        fuse_all_reduce_ops=_flag(True),
        fuse_grad_size_in_MB=_positive(32.0),
        fuse_grad_size_in_TFLOPS=_positive(50.0),
        last_comm_group_size_MB=_positive(1.0),
        find_unused_parameters=_flag(False),
        a_sync=_flag(True),
        sync_nccl_allreduce=_flag(True),
        nccl_comm_num=_count(1, 1),
        use_hierarchical_allreduce=_flag(False),
        hierarchical_allreduce_inter_nranks=_count(1, 1),
        cudnn_exhaustive_search=_flag(False),
        conv_workspace_size_limit=_count(512, 0),
        cudnn_batchnorm_spatial_persistent=_flag(False),
        build_strategy=_instance(BuildStrategy),
        execution_strategy=_instance(ExecutionStrategy),
        **{name: _Option(None, (dict,), "a dict with keys among %s" % sorted(keys))
           for name, keys in CONFIGS.items()})

    def __init__(self):
        super().__init__()
        object.__setattr__(self, "build_strategy", BuildStrategy())
        object.__setattr__(self, "execution_strategy", ExecutionStrategy())
        for name, defaults in CONFIGS.items():
            object.__setattr__(self, name, copy.deepcopy(defaults))

    def __setattr__(self, name, value):
        if name in CONFIGS:
            value = self._merged_configs(name, value)
        super().__setattr__(name, value)
        if name in NOT_IMPLEMENTED and value:
            object.__setattr__(self, name, False)
            raise NotImplementedError("DistributedStrategy.%s = True: %s is not implemented "
                                      "in refimpl" % (name, NOT_IMPLEMENTED[name]))

    def _merged_configs(self, name, value):
        """The current `name` dict updated with `value`'s keys, each checked against its
        default's type."""
        if not isinstance(value, dict):
            raise TypeError("DistributedStrategy.%s must be a dict, got %s"
                            % (name, type(value).__name__))
        defaults, merged = CONFIGS[name], dict(getattr(self, name))
        for key, v in value.items():
            if key not in defaults:
                raise ValueError("DistributedStrategy.%s: unknown key %r; keys: %s"
                                 % (name, key, sorted(defaults)))
            expected = type(defaults[key])
            ok = isinstance(v, (list, tuple)) if expected is list else (
                isinstance(v, numbers.Real) and not isinstance(v, _BOOLS)
                if expected is float else isinstance(v, expected) and (
                    expected is bool or not isinstance(v, _BOOLS)))
            if not ok:
                raise TypeError("DistributedStrategy.%s[%r] = %r (%s): expected %s"
                                % (name, key, v, type(v).__name__, expected.__name__))
            merged[key] = list(v) if expected is list else expected(v)
        return merged
