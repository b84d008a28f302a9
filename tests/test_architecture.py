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
    assert kept and int(kept.group(1)) >= 6 and kept.group(2) == "0", result.stdout


ALLOWED_IN_KERNELS = re.compile(r"refimpl\.(_kernels(\.\w+)?|geometry|broadcasting|xp)$")


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(ROOT, "refimpl", "_kernels",
                                                                 "*.pyx"))),
                         ids=os.path.basename)
def test_compiled_kernels_import_only_kernels_and_leaves(path):
    with open(path) as f:
        source = f.read()
    modules = re.findall(r"^\s*(?:from|c?import)\s+(refimpl[\w.]*)", source, re.M)
    assert [m for m in modules if not ALLOWED_IN_KERNELS.match(m)] == []
