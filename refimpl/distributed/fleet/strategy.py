"""fleet.DistributedStrategy: the fields Paddle 2.0 users set, each checked when set
(the BuildStrategy protocol: a wrong type or range raises at once). What refimpl maps onto
its machinery is honoured; fields that only tune NCCL, cuDNN or parameter servers are
accepted and have no effect; turning on a feature refimpl does not implement raises
NotImplementedError naming it (specs/distributed.md#fleet)."""
import copy
import numbers

from ...compiler.strategy import (_BOOLS, BuildStrategy, ExecutionStrategy, _count, _flag,
                                  _Option, _Options)
from ...framework import atomic_file
from . import prototxt

__all__ = ["DistributedStrategy"]


def _positive(default):
    return _Option(default, (numbers.Real,), "a number > 0",
                   valid=lambda value: not isinstance(value, _BOOLS) and value > 0,
                   convert=float)


def _instance(cls):
    return _Option(None, (cls,), "a %s" % cls.__name__)


# Features refimpl does not implement: a strategy that turns one on may be set, saved and
# loaded, but distributed_optimizer (dynamic mode) or its minimize (static mode) raises
# NotImplementedError naming it.
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

# Each *_configs field: its keys and defaults (Paddle 2.0's distributed_strategy.proto).
# Setting one updates the keys given, as Paddle does; an unknown key is an error.
CONFIGS = {
    "recompute_configs": {"checkpoints": [], "enable_offload": False, "checkpoint_shape": []},
    "amp_configs": {"init_loss_scaling": 32768.0, "incr_every_n_steps": 1000,
                    "decr_every_n_nan_or_inf": 2, "incr_ratio": 2.0, "decr_ratio": 0.8,
                    "use_dynamic_loss_scaling": True, "custom_white_list": [],
                    "custom_black_list": [], "custom_black_varnames": []},
    "localsgd_configs": {"k_steps": 1, "begin_step": 1},
    "adaptive_localsgd_configs": {"init_k_steps": 1, "begin_step": 1},
    "gradient_merge_configs": {"k_steps": 1, "avg": True},
    "dgc_configs": {"rampup_begin_step": 0, "rampup_step": 1, "sparsity": [0.999]},
    "pipeline_configs": {"micro_batch": 1},
    "a_sync_configs": {"k_steps": -1, "max_merge_var_num": 1, "send_queue_size": 16,
                       "independent_recv_thread": False, "min_send_grad_num_before_recv": 1,
                       "thread_pool_size": 1, "send_wait_times": 1,
                       "runtime_split_send_recv": False, "launch_barrier": True,
                       "heter_worker_device_guard": "cpu", "lr_decay_steps": 10},
    "lars_configs": {"lars_coeff": 0.001, "lars_weight_decay": 0.0005, "epsilon": 0.0,
                     "exclude_from_weight_decay": []},
    "lamb_configs": {"lamb_weight_decay": 0.01, "exclude_from_weight_decay": []},
    "sharding_configs": {"fuse_broadcast_MB": 32.0, "hybrid_dp": False, "sharding_group_size": 8},
}


# The BuildStrategy and ExecutionStrategy fields 2.0's message keeps (saved and loaded).
_PROTO_SUBSTRATEGIES = {
    "build_strategy": ("enable_sequential_execution", "fuse_elewise_add_act_ops",
                       "fuse_bn_act_ops", "fuse_relu_depthwise_conv", "fuse_broadcast_ops",
                       "fuse_all_optimizer_ops", "enable_inplace",
                       "enable_backward_optimizer_op_deps", "cache_runtime_context",
                       "fuse_bn_add_act_ops", "enable_auto_fusion", "enable_addto"),
    "execution_strategy": ("num_threads", "num_iteration_per_drop_scope",
                           "num_iteration_per_run", "use_thread_barrier"),
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
        cudnn_exhaustive_search=_flag(True),
        conv_workspace_size_limit=_count(4000, 0),
        cudnn_batchnorm_spatial_persistent=_flag(True),
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
        # what was set, as the message's presence: the fields and each config's keys
        object.__setattr__(self, "_set_fields", {})

    def __setattr__(self, name, value):
        if name not in self._OPTIONS:       # 2.0's error type for a name it does not have
            raise TypeError("%s is not a attribute of DistributedStrategy; its fields: %s"
                            % (name, ", ".join(sorted(self._OPTIONS))))
        given = value
        if name in CONFIGS:
            value = self._merged_configs(name, value)
        super().__setattr__(name, value)
        keys = self._set_fields.setdefault(name, [])
        if name in CONFIGS:
            self._set_fields[name] = [k for k in CONFIGS[name] if k in keys or k in given]
        if name == "a_sync":        # as Paddle 2.0's setter
            self.a_sync_configs = {"k_steps": 0}

    def save_to_prototxt(self, output):
        """Write the fields set so far to the file `output` in protobuf's text format, as
        Paddle writes its DistributedStrategy message (fleet/prototxt.py)."""
        fields = []
        for name in prototxt.FIELDS:
            if name not in self._set_fields:
                continue
            value = getattr(self, name)
            if name in CONFIGS:
                value = tuple((k, value[k]) for k in self._set_fields[name])
            elif name in _PROTO_SUBSTRATEGIES:
                value = tuple((k, getattr(value, k)) for k in _PROTO_SUBSTRATEGIES[name])
            fields.append((name, value))
        atomic_file.write_bytes(output, prototxt.dump(fields).encode("utf-8"))

    def load_from_prototxt(self, pb_file):
        """Set the fields a file of save_to_prototxt's format names (each checked as when
        set by hand)."""
        with open(pb_file, encoding="utf-8") as f:
            read = prototxt.load(f.read())
        for name, value in read.items():
            if name not in prototxt.FIELDS:
                raise ValueError("DistributedStrategy.load_from_prototxt(%r): unknown field %r"
                                 % (pb_file, name))
            if name in _PROTO_SUBSTRATEGIES:
                strategy = type(getattr(self, name))()
                for key, v in value.items():
                    setattr(strategy, key, v)
                value = strategy
            elif name in CONFIGS:
                value = {k: [v] if isinstance(CONFIGS[name].get(k), list)
                         and not isinstance(v, list) else v for k, v in value.items()}
            setattr(self, name, value)

    def _check_implemented(self, what):
        """Raise NotImplementedError naming the features this strategy turns on that
        refimpl does not implement."""
        enabled = [name for name in NOT_IMPLEMENTED if getattr(self, name)]
        if enabled:
            raise NotImplementedError("%s: %s" % (what, "; ".join(
                "DistributedStrategy.%s = True: %s is not implemented in refimpl"
                % (name, NOT_IMPLEMENTED[name]) for name in enabled)))

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
