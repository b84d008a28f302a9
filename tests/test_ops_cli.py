"""`python -m refimpl ops [NAME]`: every op type findable from its name: its definition (the
line that writes its type string), its one spec page, its kernels and which one runs, its
gradient, samples, golden cases and tests."""
import json
import os
import re
import subprocess
import sys

import pytest

from refimpl import op_index
from refimpl.conformance.store import GOLDEN_DIR
from refimpl.dispatch import select_kernel
from refimpl.ops.registry import get_op_def

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FORWARD_TYPES = op_index.forward_types()


def _lines(argv):
    out = []
    rc = op_index.main(argv, out=out.append)
    return rc, "\n".join(out).splitlines()


def _field(lines, name):
    return next(line.split(None, 1)[1] for line in lines if line.split()[:1] == [name])


def _golden_cases(op_type):
    with open(os.path.join(GOLDEN_DIR, "index.json")) as f:
        return sum(c["kind"] == "op" and c["op"] == op_type for c in json.load(f)["cases"])


def test_every_op_type_is_on_exactly_one_spec_page():
    pages = op_index._spec_pages()
    assert {t: p for t, p in pages.items() if len(p) > 1} == {}
    assert sorted(set(FORWARD_TYPES) - set(pages)) == []
    assert sorted(set(pages) - set(FORWARD_TYPES)) == []   # no page names a missing op
    for (page,) in pages.values():
        assert os.path.isfile(os.path.join(ROOT, page)), page


@pytest.mark.parametrize("op_type", FORWARD_TYPES)
def test_the_definition_line_writes_the_type_string(op_type):
    """Grepping an op's type string finds it (factory-made activations included)."""
    path, line = op_index._definition(get_op_def(op_type))
    with open(path) as f:
        text = f.read().splitlines()[line - 1]
    assert re.search(r"""["']%s["']""" % re.escape(op_type), text), (path, line, text)


def test_one_op_in_full():
    rc, lines = _lines(["conv2d"])
    assert rc == 0 and lines[0] == "conv2d"
    source = _field(lines, "defined")
    path, line = source.split(":")
    with open(os.path.join(ROOT, path)) as f:
        assert 'type = "conv2d"' in f.read().splitlines()[int(line) - 1]
    assert _field(lines, "spec") == "specs/ops/conv.md"
    compiled = select_kernel("conv2d", "forward", {}, "float32").compiled
    forward = [line for line in lines if " forward " in line + " "]
    assert any(line.lstrip().startswith("*" if compiled else "forward") and
               "compiled im2col:conv2d_forward" in line for line in forward)
    assert any(line.lstrip().startswith("forward" if compiled else "*") and
               "reference refimpl.ops.conv_nd.Conv2D.forward" in line for line in forward)
    assert _field(lines, "gradient").startswith("conv2d_grad (backward at refimpl/ops/conv_nd.py:")
    assert _field(lines, "samples") == "3; golden cases %d" % _golden_cases("conv2d")
    tests = _field(lines, "tests").split(", ")
    assert tests[0] == "tests/test_ops.py" and "tests/test_conv_pool.py" in tests


def test_a_grad_type_shows_its_forward_and_a_factory_made_op_its_line():
    rc, lines = _lines(["sigmoid_grad"])
    assert rc == 0 and lines[0] == "sigmoid"
    path, line = _field(lines, "defined").split(":")
    with open(os.path.join(ROOT, path)) as f:
        assert '_unary("sigmoid"' in f.read().splitlines()[int(line) - 1]
    assert _field(lines, "gradient").startswith("sigmoid_grad")


def test_an_op_without_gradient_or_kernels():
    rc, lines = _lines(["accuracy"])
    assert rc == 0
    assert _field(lines, "gradient") == "none"
    kernels = lines[lines.index(next(l for l in lines if l.lstrip().startswith("kernels"))) + 1:]
    assert kernels[0].split() == ["*", "forward", "reference",
                                  "refimpl.ops.accuracy.Accuracy.forward"]


def test_an_unknown_name_is_an_error_with_suggestions():
    rc, lines = _lines(["conv2dd"])
    assert rc == 2
    assert lines == ["refimpl ops: no op type 'conv2dd'; did you mean conv2d, conv2d_grad, "
                     "conv3d?"]


def test_the_listing_has_one_line_per_op_with_every_column():
    rc, lines = _lines([])
    assert rc == 0
    header, rows = lines[0].split(), lines[1:]
    assert header[:3] == ["op", "defined", "spec"] and header[-4:] == ["grad", "samples",
                                                                      "goldens", "tests"]
    assert [r.split()[0] for r in rows] == FORWARD_TYPES
    conv2d = next(r for r in rows if r.split()[0] == "conv2d").split()
    assert conv2d[2] == "specs/ops/conv.md" and conv2d[-3:] == [
        "3", str(_golden_cases("conv2d")), conv2d[-1]]
    assert all(r.split()[2] != "-" for r in rows)


def test_the_command_line_honours_the_kernel_backend():
    env = dict(os.environ, PYTHONPATH=ROOT, REFIMPL_KERNELS="numpy")
    result = subprocess.run([sys.executable, "-m", "refimpl", "ops", "relu"], cwd=ROOT,
                            env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "(REFIMPL_KERNELS=numpy; * = runs now)" in result.stdout
    assert re.search(r"\*\s+forward\s+reference refimpl.ops.relu.Relu.forward", result.stdout)
    assert re.search(r"\*\s+forward_inplace\s+numpy variant "
                     r"refimpl._kernels.out_variants.relu_inplace", result.stdout)
