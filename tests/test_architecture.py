"""The architecture of docs/ARCHITECTURE.md holds: `lint-imports` keeps every import-linter
contract of pyproject.toml (a layers contract and forbidden contracts), and the compiled
kernels' sources (which import-linter does not read) import only kernels and leaves."""
import glob
import os
import re
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _lint_imports():
    found = shutil.which("lint-imports")
    if found:
        return [found]
    pytest.importorskip("importlinter", reason="import-linter is in the test extra")
    return [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command;"
            " sys.exit(lint_imports_command())"]


def test_every_import_linter_contract_is_kept():
    env = dict(os.environ, PYTHONPATH=ROOT)
    result = subprocess.run(_lint_imports() + ["--no-cache"], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    kept = re.search(r"Contracts: (\d+) kept, (\d+) broken", result.stdout)
    assert kept and int(kept.group(1)) >= 7 and kept.group(2) == "0", result.stdout


def test_every_part_of_refimpl_is_in_the_layers_contract():
    """A new top-level module or package must take its place in the picture."""
    tomllib = pytest.importorskip("tomllib")
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        contracts = tomllib.load(f)["tool"]["importlinter"]["contracts"]
    layers, = [c["layers"] for c in contracts if c["type"] == "layers"]
    placed = {name.strip("() ") for layer in layers for name in re.split(r"[|:]", layer)}
    package = os.path.join(ROOT, "refimpl")
    parts = {name[:-3] if name.endswith(".py") else name for name in os.listdir(package)
             if (name.endswith(".py") and name != "__init__.py")
             or os.path.isfile(os.path.join(package, name, "__init__.py"))}
    assert sorted(parts - placed) == []


ALLOWED_IN_KERNELS = re.compile(r"refimpl\.(_kernels(\.\w+)?|geometry|broadcasting|xp)$")


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(ROOT, "refimpl", "_kernels",
                                                                 "*.pyx"))),
                         ids=os.path.basename)
def test_compiled_kernels_import_only_kernels_and_leaves(path):
    with open(path) as f:
        source = f.read()
    modules = re.findall(r"^\s*(?:from|c?import)\s+(refimpl[\w.]*)", source, re.M)
    assert [m for m in modules if not ALLOWED_IN_KERNELS.match(m)] == []
