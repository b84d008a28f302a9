"""fluid.get_flags / set_flags: Paddle's global FLAGS_* settings, by name; and
fluid.core.globals(), a dict-like view of all of them.

refimpl keeps the values so scripts that read or set them run; only FLAGS_check_nan_inf
(and, under Paddle 3, FLAGS_enable_pir_api: static_sparse_gradients) changes how refimpl runs (plans built while it is on check every op's outputs:
executor/nan_inf.py; its memory and threading choices are BuildStrategy /
ExecutionStrategy fields). An environment variable FLAGS_x sets the starting value, as
in Paddle.
get_flags / set_flags take the public flags only; which flags are public depends on the
Paddle version (the `public_flags` switch, specs/versions.md).
"""
import os

from .. import versions
from ..executor.nan_inf import set_checking

__all__ = ["get_flags", "set_flags", "globals_view"]

# Paddle's flags (2.0's public ones, plus those only 1.8 had) and their CPU defaults
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
    # 2.0's (and 3.3.1's) public flag for the eager engine's gradient summing order; refimpl
    # sums in one fixed order already (specs/dygraph.md), so it changes nothing
    "FLAGS_sort_sum_gradient": False,
    "FLAGS_sync_nccl_allreduce": True,
    "FLAGS_use_mkldnn": False,
    "FLAGS_use_pinned_memory": True,
    "FLAGS_use_system_allocator": False,
    "FLAGS_enable_rpc_profiler": False,
    "FLAGS_free_when_no_cache_hit": False,
    "FLAGS_multiple_of_cupti_buffer_size": 1,
    "FLAGS_pe_profile_fname": "",
    "FLAGS_print_sub_graph_dir": "",
    "FLAGS_tracer_profile_fname": "xxgperf",
    # Paddle 3: programs are PIR (save_inference_model writes PIR json) while it is on
    "FLAGS_enable_pir_api": True,
    # Paddle 3: its executor runs programs as PIR (refimpl's executor runs its one IR)
    "FLAGS_enable_pir_in_executor": True,
    # Paddle 3: view functions (Tensor.unfold, as_strided, view) share their input's memory
    # while it is on; refimpl's give copies either way (specs/paddle3_index.md)
    "FLAGS_use_stride_kernel": True,
}

# Paddle 1.8.5's public flags (core.globals().is_public), measured
_PUBLIC_1_8 = frozenset((
    "FLAGS_allocator_strategy", "FLAGS_benchmark", "FLAGS_check_nan_inf",
    "FLAGS_cpu_deterministic", "FLAGS_eager_delete_tensor_gb", "FLAGS_enable_parallel_graph",
    "FLAGS_enable_rpc_profiler", "FLAGS_fraction_of_cpu_memory_to_use",
    "FLAGS_fuse_parameter_groups_size", "FLAGS_fuse_parameter_memory_size",
    "FLAGS_init_allocated_mem", "FLAGS_initial_cpu_memory_in_mb", "FLAGS_inner_op_parallelism",
    "FLAGS_memory_fraction_of_eager_deletion", "FLAGS_multiple_of_cupti_buffer_size",
    "FLAGS_paddle_num_threads", "FLAGS_pe_profile_fname", "FLAGS_print_sub_graph_dir",
    "FLAGS_reader_queue_speed_test_mode", "FLAGS_tracer_profile_fname",
    "FLAGS_use_pinned_memory", "FLAGS_use_system_allocator"))
_GONE_IN_3 = ("FLAGS_enable_rpc_profiler", "FLAGS_free_when_no_cache_hit",
              "FLAGS_multiple_of_cupti_buffer_size", "FLAGS_pe_profile_fname",
              "FLAGS_print_sub_graph_dir", "FLAGS_tracer_profile_fname")
# release/2.0's global_value_getter_setter.cc registers these two private (its
# test_get_set_flags: set_flags of FLAGS_free_idle_chunk is a ValueError) and the
# profiler ones above public
_PRIVATE_IN_2_0 = ("FLAGS_free_idle_chunk", "FLAGS_free_when_no_cache_hit")
_ONLY_3 = ("FLAGS_enable_pir_api", "FLAGS_enable_pir_in_executor", "FLAGS_use_stride_kernel")
# 3.3.1 keeps FLAGS_free_idle_chunk private too (set_flags / get_flags: ValueError)
_PUBLIC = {"1.8": _PUBLIC_1_8,
           "2.0": frozenset(n for n in _DEFAULTS if n not in _PRIVATE_IN_2_0 + _ONLY_3),
           "3": frozenset(n for n in _DEFAULTS
                          if n not in _GONE_IN_3 + ("FLAGS_free_idle_chunk",))}


def _public():
    return _PUBLIC[versions.switch("public_flags")]


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


_flags = dict(_DEFAULTS)
# the flags that act on the runtime, and where their value goes
_APPLIED = {"FLAGS_check_nan_inf": set_checking, "FLAGS_enable_pir_api": versions.set_pir_programs}


def _store(name, value):
    _flags[name] = value
    if name in _APPLIED:
        _APPLIED[name](value)


def read_environment():
    """Set the flags named by environment variables to their values (at import, and again
    at a `refimpl run` script's `import paddle`)."""
    for name in _DEFAULTS:
        if name in os.environ:
            _store(name, _from_environment(name))


read_environment()


def _check_name(name, where):
    if name not in _DEFAULTS:
        raise ValueError("%s: unknown flag %r (known: %s)"
                         % (where, name, ", ".join(sorted(_public()))))
    if name not in _public():
        raise ValueError("%s: %r is not a public flag of Paddle %s (public: %s)"
                         % (where, name, versions.current(), ", ".join(sorted(_public()))))


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
    for name, value in [(n, _convert(n, v, "set_flags")) for n, v in flags.items()]:
        _store(name, value)


class _GlobalsView:
    """core.globals(): every flag, readable; the public ones writable."""

    def __contains__(self, name):
        return name in _flags

    def keys(self):
        return list(_flags)

    def __getitem__(self, name):
        if name not in _flags:
            raise KeyError("core.globals(): no flag %r" % name)
        return _flags[name]

    def get(self, name, default=None):
        return _flags.get(name, default)

    def __setitem__(self, name, value):
        if not self.is_public(name):
            raise ValueError("core.globals(): %r is not a public flag, it cannot be set"
                             % name)
        if type(_DEFAULTS[name]) is bool and type(value) is int and value in (0, 1):
            value = bool(value)     # 1.8.5's core.globals() takes 0 / 1 for a bool flag
        _store(name, _convert(name, value, "core.globals()"))

    def is_public(self, name):
        return name in _public()


def globals_view():
    return _GlobalsView()
