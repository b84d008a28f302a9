"""fluid.get_flags / set_flags: Paddle's global FLAGS_* settings, by name.

refimpl keeps the values so scripts that read or set them run; none changes how refimpl
computes (its memory and threading choices are BuildStrategy / ExecutionStrategy
fields). An environment variable FLAGS_x sets the starting value, as in Paddle.
"""
import os

__all__ = ["get_flags", "set_flags"]

# Paddle 2.0's public flags and their CPU defaults
_DEFAULTS = {
    "FLAGS_allocator_strategy": "auto_growth",
    "FLAGS_benchmark": False,
    "FLAGS_call_stack_level": 1,
    "FLAGS_check_nan_inf": False,
    "FLAGS_conv_workspace_size_limit": 512,
    "FLAGS_cpu_deterministic": False,
    "FLAGS_cudnn_deterministic": False,
    "FLAGS_cudnn_exhaustive_search": False,
    "FLAGS_eager_delete_scope": True,
    "FLAGS_eager_delete_tensor_gb": 0.0,
    "FLAGS_enable_cublas_tensor_op_math": False,
    "FLAGS_enable_parallel_graph": False,
    "FLAGS_fast_eager_deletion_mode": True,
    "FLAGS_fraction_of_cpu_memory_to_use": 1.0,
    "FLAGS_fraction_of_gpu_memory_to_use": 0.92,
    "FLAGS_free_idle_chunk": False,
    "FLAGS_fuse_parameter_groups_size": 3,
    "FLAGS_fuse_parameter_memory_size": -1.0,
    "FLAGS_gpu_memory_limit_mb": 0,
    "FLAGS_init_allocated_mem": False,
    "FLAGS_initial_cpu_memory_in_mb": 500,
    "FLAGS_inner_op_parallelism": 0,
    "FLAGS_max_inplace_grad_add": 0,
    "FLAGS_memory_fraction_of_eager_deletion": 1.0,
    "FLAGS_paddle_num_threads": 1,
    "FLAGS_reader_queue_speed_test_mode": False,
    "FLAGS_rpc_deadline": 180000,
    "FLAGS_selected_gpus": "",
    "FLAGS_sync_nccl_allreduce": True,
    "FLAGS_use_mkldnn": False,
    "FLAGS_use_pinned_memory": True,
    "FLAGS_use_system_allocator": False,
}


def _convert(name, value, where):
    """`value` as the flag's type (bool, int, float or str), or a TypeError."""
    kind = type(_DEFAULTS[name])
    if kind in (bool, str):
        ok = isinstance(value, kind)
    else:
        ok = isinstance(value, (int, float) if kind is float else int) and \
            not isinstance(value, bool)
    if not ok:
        raise TypeError("%s: %s takes a %s, got %r" % (where, name, kind.__name__, value))
    return kind(value)


def _from_environment(name):
    """The flag's value from the text of the environment variable of its name."""
    text, kind = os.environ[name].strip(), type(_DEFAULTS[name])
    booleans = {"1": True, "true": True, "0": False, "false": False}
    try:
        value = booleans[text.lower()] if kind is bool else kind(text)
    except (KeyError, ValueError):
        raise ValueError("environment variable %s=%r: expected a %s"
                         % (name, text, kind.__name__)) from None
    return value


_flags = {name: _from_environment(name) if name in os.environ else default
          for name, default in _DEFAULTS.items()}


def _check_name(name, where):
    if name not in _DEFAULTS:
        raise ValueError("%s: unknown flag %r (known: %s)"
                         % (where, name, ", ".join(sorted(_DEFAULTS))))


def get_flags(flags):
    """{name: value} for a flag name or a list / tuple of them."""
    names = [flags] if isinstance(flags, str) else flags
    if not isinstance(names, (list, tuple)):
        raise TypeError("get_flags: flags must be a str or a list / tuple of str, got %s"
                        % type(flags).__name__)
    for name in names:
        _check_name(name, "get_flags")
    return {name: _flags[name] for name in names}


def set_flags(flags):
    """Set flags from a {name: value} dict (all checked before any is set)."""
    if not isinstance(flags, dict):
        raise TypeError("set_flags: flags must be a dict, got %s" % type(flags).__name__)
    for name in flags:
        _check_name(name, "set_flags")
    _flags.update({name: _convert(name, value, "set_flags") for name, value in flags.items()})
