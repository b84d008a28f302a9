"""refimpl under numpy 1.x, which pyproject.toml declares (numpy>=1.23) and Paddle 1.8 users
have. Set REFIMPL_NUMPY1_PYTHON to an interpreter with numpy 1.x and refimpl's test
requirements (README: "numpy 1.x"); these tests then run there, on both kernel backends, the
tests that cover what numpy 1.x does differently. Skipped when it is not set (CI)."""
import os
import subprocess

import pytest

NUMPY1_PYTHON = os.environ.get("REFIMPL_NUMPY1_PYTHON")
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

pytestmark = pytest.mark.skipif(not NUMPY1_PYTHON, reason="REFIMPL_NUMPY1_PYTHON is not set")

# each one failed under numpy 1.26 before its fix:
NUMPY1_DIFFERENCES = [
    # np.count_nonzero returns a Python int (dist's p = 0)
    "tests/test_ops.py::test_executor_matches_reference_and_infer_shape[dist]",
    # value-based casting: a 0-D float32 times a Python float is a float64 (matmul's grad)
    "tests/test_kernels_blas.py::test_batched_matmul_matches_the_reference",
    # numpy 1.24-1.26 lack np.bool; numpy 1.x still has np.product
    "tests/test_runner.py::test_paddle_18_runner_restores_numpy_1_aliases",
    "tests/test_runner.py::test_importing_refimpl_leaves_numpy_alone",
]


def test_the_interpreter_has_numpy_1():
    version = subprocess.run([NUMPY1_PYTHON, "-c", "import numpy; print(numpy.__version__)"],
                             capture_output=True, text=True, timeout=120)
    assert version.returncode == 0, version.stderr
    assert version.stdout.startswith("1."), version.stdout


@pytest.mark.parametrize("backend", ["cython", "numpy"])
def test_numpy_1_differences_pass(backend):
    env = dict(os.environ, REFIMPL_KERNELS=backend,
               PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("REFIMPL_NUMPY1_PYTHON")   # no recursion: this file skips itself there
    r = subprocess.run([NUMPY1_PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
                       + NUMPY1_DIFFERENCES, capture_output=True, text=True, cwd=REPO,
                       env=env, timeout=1200)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    compiled_only = 1 if backend == "numpy" else 0    # the blas kernel test skips itself
    assert "%d passed" % (len(NUMPY1_DIFFERENCES) - compiled_only) in r.stdout, \
        r.stdout[-1000:]
