"""The install builds every Cython kernel, and the dispatch honours REFIMPL_KERNELS."""
import pytest

from refimpl import _kernels
from refimpl._kernels.table import KERNELS
from refimpl.dispatch import select_kernel
from refimpl.ops.registry import all_op_types, get_op_def


@pytest.mark.skipif(_kernels.backend() == "numpy", reason="numpy references only")
def test_every_compiled_kernel_module_is_built():
    assert _kernels.compiled_modules() == list(_kernels._COMPILED)


def test_every_declared_kernel_exists():
    modules = set(_kernels._COMPILED)
    types = set(all_op_types())
    for t, entry in KERNELS.items():
        assert t in types, t
        for spec in entry.compiled.values():
            assert spec.partition(":")[0] in modules, (t, spec)


def test_numpy_backend_binds_references(monkeypatch):
    monkeypatch.setenv("REFIMPL_KERNELS", "numpy")
    op = get_op_def("conv2d")
    kernel = select_kernel("conv2d", "forward", {}, "float32")
    assert kernel.fn == op.forward and not kernel.compiled
    monkeypatch.setenv("REFIMPL_KERNELS", "fortran")
    with pytest.raises(ValueError, match="REFIMPL_KERNELS must be"):
        _kernels.backend()
