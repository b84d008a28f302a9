"""The install builds every Cython kernel, the dispatch honours REFIMPL_KERNELS, and the
kernels' OpenMP team gets its short spin."""
import os
import subprocess
import sys

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


_SPIN_PROBE = """
import os
def gomp_mapped():
    return any("libgomp" in line for line in open("/proc/self/maps"))
import numpy
before = gomp_mapped()
import refimpl._kernels.blas
print(before, gomp_mapped(), os.environ.get("GOMP_SPINCOUNT"))
"""


@pytest.mark.parametrize("given, spin", [
    ({}, _kernels.TEAM_SPIN_COUNT),
    ({"GOMP_SPINCOUNT": "5"}, "5"),                # the user's count
    ({"OMP_WAIT_POLICY": "ACTIVE"}, "None"),       # the user's policy, with its own count
])
def test_team_spin_count_is_set_before_the_openmp_runtime_loads(given, spin):
    """libgomp reads GOMP_SPINCOUNT once, when it loads: no module before refimpl's kernels
    (numpy included) has loaded it, and by then the kernels' short spin is in the
    environment unless the user chose a count or a wait policy."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY")}
    env.update(given)
    out = subprocess.run([sys.executable, "-c", _SPIN_PROBE], capture_output=True, text=True,
                         env=env, timeout=120, check=True).stdout.split()
    assert out == ["False", "True", spin]
