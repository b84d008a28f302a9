"""Everything about running ops fast: the kernel table (table.py), numpy out and in-place
variants (out_variants.py) and the compiled kernels (*.pyx), which this module loads.

Each compiled kernel is a drop-in for an op's numpy reference (same arguments, same
results within the op's tolerances). `REFIMPL_KERNELS=numpy` disables them all so the
references alone run; the default `cython` uses every compiled kernel that was built.
refimpl.dispatch picks an op's function. Nothing here imports the ops or the framework.
"""
import importlib
import os
import warnings

__all__ = ["backend", "load_kernel", "compiled_modules"]

# recurrent.py is Python over the compiled blas and lstm_cell modules: it loads only where
# they are built
_COMPILED = ("blas", "im2col", "winograd", "matmul", "pool", "softmax_ce", "batch_norm", "optim",
             "fused", "activation", "elementwise", "layer_norm", "lstm_cell", "recurrent", "mt19937",
             "softmax", "transpose", "sum")


def backend():
    name = os.environ.get("REFIMPL_KERNELS", "cython")
    if name not in ("numpy", "cython"):
        raise ValueError("REFIMPL_KERNELS must be 'numpy' or 'cython', got %r" % name)
    return name


_cache = {}


def load_kernel(spec, required=False):
    """'module:function' in refimpl._kernels, or None (numpy backend, or not built).
    `required`: an ImportError instead of None (CuPy kernels, asked for on a GPU)."""
    if backend() == "numpy" and not required:
        return None
    if spec in _cache:
        return _cache[spec]
    module, _, func = spec.partition(":")
    try:
        fn = getattr(importlib.import_module("refimpl._kernels." + module), func)
    except ImportError as e:
        if required:
            raise ImportError("kernel %s does not import (%s): install the GPU extra, "
                              "pip install -e '.[gpu]'" % (spec, e)) from e
        warnings.warn("compiled kernel %s is not built (%s); using the numpy reference. "
                      "Run `pip install -e .` to build the kernels." % (spec, e))
        fn = None
    _cache[spec] = fn
    return fn


def compiled_modules():
    """Names of the compiled kernel modules that import (for tests and diagnostics)."""
    found = []
    for m in _COMPILED:
        try:
            importlib.import_module("refimpl._kernels." + m)
            found.append(m)
        except ImportError:
            pass
    return found

