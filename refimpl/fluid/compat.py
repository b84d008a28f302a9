"""fluid names kept for 1.x scripts: one_hot, places, version checks, deprecated no-ops."""
import re
import warnings

from ..framework.place import CUDAPinnedPlace, cpu_places
from ..layers.common import append_op_out, check_variable
from ..layers.embedding import one_hot_inputs

__all__ = ["one_hot", "cuda_pinned_places", "require_version", "load_op_library",
           "memory_optimize", "release_memory"]



def one_hot(input, depth, allow_out_of_range=False):
    """fluid.one_hot: ids of any shape -> shape + [depth] float32 (op one_hot_v2; the
    fluid.layers.one_hot spelling replaces a last dim of 1 instead); `depth` an int or a
    [1] int Variable."""
    check_variable(input, "input", "one_hot")
    inputs, depth = one_hot_inputs(input, depth)
    return append_op_out("one_hot_v2", inputs,
                         {"depth": depth, "allow_out_of_range": allow_out_of_range},
                         out_dtype="float32", stop_gradient=True)


def cuda_pinned_places(device_count=None):
    """`device_count` CUDAPinnedPlaces; by default CPU_NUM of them, as cpu_places."""
    return [CUDAPinnedPlace() for _ in cpu_places(device_count)]


def _version_parts(version, arg):
    if not isinstance(version, str):
        raise TypeError("require_version: %s must be a str, got %s"
                        % (arg, type(version).__name__))
    if not re.fullmatch(r"\d+(\.\d+){0,3}", version):
        raise ValueError("require_version: %s must look like '1.8' or '2.0.0', got %r"
                         % (arg, version))
    parts = [int(p) for p in version.split(".")]
    return parts + [0] * (4 - len(parts))


def require_version(min_version, max_version=None):
    """Raise unless min_version <= paddle.version (<= max_version): the release the
    version profile follows (paddle.version, which scripts may change); 0.0.0 (a
    development build) skips the check with a warning, as in Paddle."""
    from .. import version
    low = _version_parts(min_version, "min_version")
    high = _version_parts(max_version, "max_version") if max_version is not None else None
    parts = [version.major, version.minor, version.patch, version.rc]
    if all(str(p) == "0" for p in parts):
        warnings.warn("PaddlePaddle version in [%s, %s] required, but 0.0.0 installed: a "
                      "development build, the check is skipped" % (min_version, max_version))
        return
    installed = [int(p) for p in parts]
    if installed < low or (high is not None and installed > high):
        wanted = ">= %s" % min_version + (" and <= %s" % max_version if high else "")
        raise Exception("VersionError: PaddlePaddle %s is required; refimpl follows "
                        "PaddlePaddle %s" % (wanted, ".".join(map(str, parts[:3]))))


def load_op_library(lib_filename):
    raise NotImplementedError(
        "load_op_library(%r): refimpl cannot load custom C++ operators; write the op as a "
        "Python module refimpl/ops/<op>.py (docs/DEVELOPING.md) or use "
        "paddle.static.py_func" % (lib_filename,))


def memory_optimize(input_program, skip_opt_set=None, print_log=False, level=0,
                    skip_grads=True):
    """Deprecated in Paddle 1.8, where it does nothing: warns and does nothing."""
    warnings.warn("fluid.memory_optimize is deprecated and does nothing; use "
                  "BuildStrategy.memory_optimize (CompiledProgram)", DeprecationWarning)


def release_memory(input_program, skip_opt_set=None):
    """Deprecated in Paddle 1.8, where it does nothing: warns and does nothing."""
    warnings.warn("fluid.release_memory is deprecated and does nothing (temporaries are "
                  "freed after their last use)", DeprecationWarning)
