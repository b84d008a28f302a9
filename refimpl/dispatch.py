"""Which function runs an op: `select_kernel(op_type, which, attrs, dtype)`, the one entry
point that the executor's binder (and an eager tape) asks. It combines the op's definition
(refimpl.ops: the numpy reference) with the kernel table (refimpl._kernels.table: compiled
drop-ins, out and in-place variants, CuPy kernels) and the kernel backend (REFIMPL_KERNELS),
for the device the op runs on ("cpu", or "gpu": CuPy arrays, specs/gpu.md).

A call costs a few dictionary lookups: callers select once per op they bind, never per run.
"""
from collections import namedtuple

import numpy as np

from ._kernels import backend, load_kernel
from ._kernels.table import FOLDED_CHAINS, FOLDED_UPDATES, KERNELS, WHICH, OpKernels
from .framework import mt19937
from .framework.lod import lod_of
from .ops.registry import get_op_def
from .xp import is_device_array, to_device, to_host

__all__ = ["Kernel", "select_kernel", "select_folded_update", "select_folded_chain", "kernels_of", "is_collective", "SavedForGrad", "WHICH",
           "DEVICES", "host_staged", "map_arrays"]

DEVICES = ("cpu", "gpu")

_NONE = OpKernels()

# the random ops' std::mt19937_64 draws (framework/mt19937.py) run compiled where built
mt19937.use_kernel_loader(lambda name: load_kernel("mt19937:" + name))


class Kernel(namedtuple("Kernel", "fn keywords compiled")):
    """A selected function: `fn(*inputs, **attrs, **runtime)`, where `runtime` holds the
    keywords named in `keywords` (a subset of alloc, need, saved, group: see
    refimpl/_kernels/table.py); `compiled` says whether it is a Cython or CuPy kernel
    (not a numpy variant or the reference)."""


class SavedForGrad:
    """A forward kernel's hand-off to its grad op within one run: `value` was computed
    from the input array `key`. The grad op takes it only if its own input is that very
    array, else it recomputes (the executor links only pairs whose inputs nothing
    rewrites in between, so this is a second guard)."""
    __slots__ = ("key", "value")

    def __init__(self):
        self.key = self.value = None

    def put(self, key, value):
        self.key, self.value = key, value

    def take(self, key):
        """The saved value if it was computed from `key`, else None; either way it is
        released, so it lives no longer than from the forward to the grad op."""
        value = self.value if self.key is key else None
        self.key = self.value = None
        return value

    @property
    def nbytes(self):
        """Bytes of the arrays held (an array, or arrays inside tuples, lists and dicts)."""
        def count(v):
            if isinstance(v, dict):
                v = list(v.values())
            if isinstance(v, (tuple, list)):
                return sum(count(item) for item in v)
            return getattr(v, "nbytes", 0)
        return count(self.value)



def kernels_of(op_type):
    """The kernel table's entry for op_type (a forward op type); empty when it has none."""
    return KERNELS.get(op_type, _NONE)


def is_collective(op_type):
    """Whether op_type talks to the other devices (its forward or its grad op's)."""
    if op_type.endswith("_grad"):
        op_type = op_type[:-len("_grad")]
    return kernels_of(op_type).collective


def _reference(op_def, which):
    """The op definition's own function for `which`, or None: the reference forward and
    backward, and a forward that is a numpy ufunc writing into a buffer of its input's
    dtype (a ufunc whose result dtype differs, as abs of complex, has a table entry)."""
    if which in ("forward", "backward"):
        return getattr(op_def, which, None)
    if which == "forward_out" and isinstance(getattr(op_def, "forward", None), np.ufunc):
        ufunc = op_def.forward

        def forward_out(x, alloc=None):
            return ufunc(x, out=alloc(x.shape, x.dtype))
        return forward_out
    return None


def _numpy_choice(op_type, which):
    """(fn, compiled=False) without compiled kernels: the table's numpy variant, else the
    reference's; None when the op has neither."""
    fn = kernels_of(op_type).numpy.get(which)
    return fn if fn is not None else _reference(get_op_def(op_type), which)


_fallen_back = {}   # (device, op_type, which) -> the kernel its factory made


def _made_with_fallback(device, op_type, which, factory, fallback):
    """The kernel `factory` (a falls_back entry) makes, given `fallback()`, once."""
    key = (device, op_type, which)
    if key not in _fallen_back:
        _fallen_back[key] = factory(fallback())
    return _fallen_back[key]


def _compiled(op_type, which, entry):
    spec = entry.compiled.get(which)
    if spec is None:
        return None
    fn = load_kernel(spec)
    if fn is None or which not in entry.falls_back:
        return fn
    return _made_with_fallback("cpu", op_type, which, fn,
                               lambda: _numpy_choice(op_type, which))


def select_kernel(op_type, which="forward", attrs=None, dtype=None, device="cpu"):
    """The function that runs `which` (one of WHICH) of forward op type `op_type` for these
    attrs (the op's, defaults included; None: any) and main input dtype name (the first
    floating-point input's, else the first input's; None: any) on `device` (one of
    DEVICES), as a Kernel; None when the op has no such variant (out and
    in-place variants are optional). On the CPU: the compiled kernel when the backend is
    `cython`, it is built and `fast_ok`; else the numpy variant or the reference. On a GPU:
    see select_gpu_kernel."""
    if which not in WHICH:
        raise ValueError("which must be one of %s, got %r" % (list(WHICH), which))
    if device == "gpu":
        return select_gpu_kernel(op_type, which, attrs, dtype)
    if device != "cpu":
        raise ValueError("device must be one of %s, got %r" % (list(DEVICES), device))
    entry = kernels_of(op_type)
    fn, compiled = None, False
    if backend() == "cython" and which in entry.compiled and _allowed(entry.fast_ok, op_type,
                                                                       attrs, dtype):
        fn = _compiled(op_type, which, entry)
        compiled = fn is not None
    if fn is None:
        fn = _numpy_choice(op_type, which)
        if fn is None:
            return None
    keywords = set()
    if which.endswith("_out"):
        keywords.add("alloc")
    from_table = compiled or fn is entry.numpy.get(which)
    if which.startswith("backward") and entry.partial_grads and from_table:
        keywords.add("need")
    if which in ("forward", "backward") and entry.saves_for_grad and compiled:
        keywords.add("saved")
    if entry.collective:
        keywords.add("group")
    return Kernel(_version_shaped(op_type, which, fn), frozenset(keywords), compiled)


def _version_shaped(op_type, which, fn):
    """`fn` giving one-number results in the version profile's shape ([1] or 0-D)."""
    shaped_by = get_op_def(op_type + "_grad") if which.startswith("backward") \
        else get_op_def(op_type)
    return shaped_by.with_version_shapes(fn)


def select_folded_update(op_type, update_type, attrs=None, dtype=None):
    """(kernel, the forward op's input slot it updates) running the grad op of `op_type`
    and the `update_type` op right after it as one call (table.FOLDED_UPDATES), on the
    CPU when the backend is `cython`, the kernel is built and both ops' fast_ok take these
    attrs (the grad op's) and dtype; else None."""
    entry = FOLDED_UPDATES.get((op_type, update_type))
    if entry is None or backend() != "cython" or not (
            _allowed(kernels_of(op_type).fast_ok, op_type, attrs, dtype)
            and _allowed(kernels_of(update_type).fast_ok, update_type, {}, dtype)):
        return None
    fn = load_kernel(entry["kernel"])
    return None if fn is None else (fn, entry["param_slot"])


def select_folded_chain(op_types, attrs, dtype=None):
    """The kernel running the ops of types `op_types` (consecutive in a plan; their attrs
    `attrs`, one dict each) as one call (table.FOLDED_CHAINS), on the CPU when the backend
    is `cython`, the kernel is built and each op's fast_ok (its forward type's) takes its
    attrs and `dtype`; else None."""
    spec = FOLDED_CHAINS.get(tuple(op_types))
    if spec is None or backend() != "cython":
        return None
    for op_type, op_attrs in zip(op_types, attrs):
        forward = op_type[:-len("_grad")] if op_type.endswith("_grad") else op_type
        if not _allowed(kernels_of(forward).fast_ok, forward, op_attrs, dtype):
            return None
    return load_kernel(spec)


def _allowed(ok, op_type, attrs, dtype):
    """Whether `ok` (a table entry's fast_ok or gpu_ok) takes these attrs and dtype."""
    return attrs is None or ok(dict(get_op_def(op_type).attrs, **attrs), dtype)


_staged = {}   # (op_type, which) -> the reference wrapped by host_staged


def select_gpu_kernel(op_type, which="forward", attrs=None, dtype=None):
    """What runs an op on CuPy arrays: the table's CuPy kernel (unless REFIMPL_KERNELS=numpy,
    or `gpu_ok` refuses these attrs and dtype); else the reference itself when it is
    array-generic (OpDef.xp_generic) or collective (the communicator moves device arrays);
    else the reference on host copies (host_staged). No out or in-place variants: a GPU
    run allocates through CuPy's memory pool instead."""
    entry = kernels_of(op_type)
    keywords = {"group"} if entry.collective else set()
    spec = entry.gpu.get(which)
    if spec is not None and backend() != "numpy" and _allowed(entry.gpu_ok, op_type, attrs,
                                                                      dtype):
        if which.startswith("backward") and entry.partial_grads:
            keywords.add("need")
        fn = load_kernel(spec, required=True)
        if which in entry.falls_back:     # a factory, given the reference it falls back to
            fn = _made_with_fallback("gpu", op_type, which, fn,
                                     lambda: getattr(get_op_def(op_type), which))
        return Kernel(_version_shaped(op_type, which, fn), frozenset(keywords), True)
    if which not in ("forward", "backward"):
        return None
    op_def = get_op_def(op_type)
    fn = getattr(op_def, which, None)
    if fn is None:
        return None
    if not (op_def.xp_generic or entry.collective):
        key = (op_type, which)
        if key not in _staged:
            _staged[key] = host_staged(fn)
        fn = _staged[key]
    return Kernel(_version_shaped(op_type, which, fn), frozenset(keywords), False)


def host_staged(fn):
    """`fn` (a numpy reference) run on host copies of its array arguments, its array
    results copied to the current GPU: how an op without a CuPy path runs on a GPU. A
    result carrying a LoD stays on the host, where a LoD value lives (framework/lod.py)."""
    def run_on_host(*args, **attrs):
        return map_arrays(_to_device_unless_lod,
                          fn(*[map_arrays(to_host, a) for a in args], **attrs))
    run_on_host.__wrapped__ = fn
    return run_on_host


def _to_device_unless_lod(value):
    return value if lod_of(value) else to_device(value)


def map_arrays(move, value):
    """`value` with `move` applied to each array in it (nested in lists and tuples)."""
    if isinstance(value, (list, tuple)):
        return type(value)(map_arrays(move, v) for v in value)
    if isinstance(value, (np.ndarray, np.generic)) or is_device_array(value):
        return move(value)
    return value
