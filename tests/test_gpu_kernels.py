"""The CuPy kernels without a GPU: the dispatch chooses them for a GPU, and every kernel's
CUDA source compiles with NVRTC (which needs no device). Their numbers: tests/test_gpu.py."""
import importlib
import inspect

import pytest

from refimpl._kernels.table import KERNELS
from refimpl.dispatch import select_kernel
from refimpl.ops.registry import get_op_def

cupy = pytest.importorskip("cupy", reason="CuPy is not installed (pip install -e '.[gpu]')")

GPU_ENTRIES = sorted((op_type, which, spec) for op_type, entry in KERNELS.items()
                     for which, spec in entry.gpu.items())
HOT = {"mul", "matmul_v2", "conv2d", "depthwise_conv2d", "pool2d",
       "softmax_with_cross_entropy", "batch_norm", "sgd", "momentum", "adam",
       "fused_elemwise_add_relu", "relu", "gelu", "rnn", "layer_norm", "softmax", "dropout",
       "lookup_table", "lookup_table_v2"}


def test_the_hot_ops_have_cupy_kernels():
    assert {op for op, _, _ in GPU_ENTRIES} == HOT


@pytest.mark.parametrize("op_type,which,spec", GPU_ENTRIES)
def test_dispatch_chooses_the_cupy_kernel_on_a_gpu(monkeypatch, op_type, which, spec):
    monkeypatch.setenv("REFIMPL_KERNELS", "cython")   # (numpy: the references, below)
    module, _, name = spec.partition(":")
    fn = getattr(importlib.import_module("refimpl._kernels." + module), name)
    kernel = select_kernel(op_type, which, {}, "float32", device="gpu")
    if which in KERNELS[op_type].falls_back:   # fn: a factory given the reference
        assert inspect.unwrap(kernel.fn) is getattr(get_op_def(op_type), which)
        assert kernel.fn is not inspect.unwrap(kernel.fn) and kernel.compiled
        # the factory's function, not the CPU's (softmax has both)
        assert fn.__module__ in _modules_of(kernel.fn)
        assert fn.__module__ not in _modules_of(select_kernel(op_type, which, {}, "float32").fn)
        return
    # (wrapped where the op has one-number results, to give them the profile's shape)
    assert inspect.unwrap(kernel.fn) is fn and kernel.compiled
    assert "saved" not in kernel.keywords and "alloc" not in kernel.keywords
    cpu = select_kernel(op_type, which, {}, "float32")
    assert inspect.unwrap(cpu.fn) is not fn


def _modules_of(fn):
    """The modules of `fn` and of every function it wraps."""
    modules = set()
    while fn is not None:
        modules.add(fn.__module__)
        fn = getattr(fn, "__wrapped__", None)
    return modules


def test_gpu_ok_and_the_numpy_backend_fall_back_to_the_reference(monkeypatch):
    monkeypatch.setenv("REFIMPL_KERNELS", "cython")
    adaptive = select_kernel("pool2d", "forward", {"adaptive": True}, "float32", device="gpu")
    assert adaptive.compiled
    assert not select_kernel("conv2d", "forward", {}, "float16", device="gpu").compiled
    monkeypatch.setenv("REFIMPL_KERNELS", "numpy")
    assert not select_kernel("mul", "forward", {}, "float32", device="gpu").compiled


def test_an_unknown_device_is_refused():
    with pytest.raises(ValueError, match="device must be one of"):
        select_kernel("relu", "forward", {}, "float32", device="tpu")


def _definitions():
    for module in {spec.partition(":")[0] for _, _, spec in GPU_ENTRIES}:
        importlib.import_module("refimpl._kernels." + module)
    from refimpl._kernels.gpu.source import DEFINITIONS
    return DEFINITIONS


def _nvrtc():
    try:
        from cupy_backends.cuda.libs import nvrtc
        nvrtc.getVersion()
    except Exception as e:     # the NVRTC wheel missing: pip install -e '.[gpu]' has it
        pytest.skip("NVRTC is not loadable (%s)" % e)
    return nvrtc


@pytest.mark.parametrize("definition", _definitions(), ids=lambda d: d[1])
def test_kernel_source_compiles_with_nvrtc(definition):
    from refimpl._kernels.gpu.source import check_source
    nvrtc = _nvrtc()
    program = nvrtc.createProgram(check_source(definition), definition[1] + ".cu", [], [])
    try:
        nvrtc.compileProgram(program, ["-arch=compute_70", "-std=c++14"])
    except Exception:
        pytest.fail("%s does not compile:\n%s" % (definition[1],
                                                   nvrtc.getProgramLog(program)))


def _raw_kernel_tables():
    from refimpl._kernels.gpu import batch_norm, conv, pool, softmax_ce
    from refimpl._kernels.gpu import layer_norm, softmax
    return [("conv " + op, t) for op, t in conv._KERNELS.items()] + [
        ("pool " + op, t) for op, t in pool._KERNELS.items()] + [
        ("layer_norm" + op, t) for op, t in layer_norm._KERNELS.items()] + [
        ("softmax_ce", softmax_ce._FORWARD), ("bn stats", batch_norm._STATS),
        ("bn grad sums", batch_norm._GRAD_SUMS), ("softmax", softmax._FORWARD),
        ("softmax grad", softmax._BACKWARD)]


@pytest.mark.parametrize("what,table", _raw_kernel_tables(),
                         ids=lambda v: v if isinstance(v, str) else "")
def test_each_dtype_gets_the_raw_kernel_declared_for_its_c_type(what, table):
    # (a float64 array handed to the float instantiation reads garbage; it happened)
    ctypes = {"float32": "float", "float64": "double"}
    assert set(table) == set(ctypes), what
    for dtype, kernel in table.items():
        params = kernel.code.split('extern "C" __global__ void %s(' % kernel.name)[1]
        assert params.split("*")[0].split()[-1] == ctypes[dtype], (kernel.name, dtype)
