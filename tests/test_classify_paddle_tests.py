"""tools/classify_paddle_tests.py: the scope rules, the hand rows kept, and --check's
problems, on a made-up unittests folder (Paddle's files stay out of this repository)."""
import os

import pytest

from helpers import tool_module


@pytest.fixture
def tool():
    return tool_module("classify_paddle_tests")


@pytest.fixture
def unittests(tmp_path):
    files = {"test_mul_op.py": "unittest.main()", "test_dist_mnist.py": "unittest.main()",
             "mkldnn/test_conv2d_mkldnn_op.py": "unittest.main()",
             "test_dist_base.py": "class Base: pass", "test_new_api.py": "unittest.main()",
             "test_helper_only.py": "class NoMain: pass"}
    for name, text in files.items():
        os.makedirs(os.path.dirname(str(tmp_path / name)), exist_ok=True)
        (tmp_path / name).write_text(text)
    return str(tmp_path)


def test_rules_lists_and_hand_rows(tool, unittests, tmp_path):
    tsv = str(tmp_path / "scope.tsv")
    hand = {"test_new_api.py": {"category": "in-scope-fail", "reason": "no such layer"}}
    rows = {r["file"]: r for r in tool.classify(unittests, hand)}
    assert rows["test_mul_op.py"]["category"] == "listed-static"       # in the run list
    assert rows["test_dist_mnist.py"]["category"] == "out-distributed"
    assert rows["test_dist_base.py"]["category"] == "out-distributed"  # rule before no-tests
    assert rows["mkldnn/test_conv2d_mkldnn_op.py"]["category"] == "out-accelerator"
    assert rows["test_helper_only.py"]["category"] == "out-no-tests"
    assert rows["test_new_api.py"]["reason"] == "no such layer"
    tool.write_tsv(list(rows.values()), tsv)
    assert tool.check(unittests, tool.read_tsv(tsv)) == []


def test_check_names_every_problem(tool, unittests, tmp_path):
    tsv = str(tmp_path / "scope.tsv")
    rows = tool.classify(unittests, {})
    for r in rows:
        if r["file"] == "test_dist_mnist.py":
            r["category"] = "in-scope-fail"                           # against the rule
    tool.write_tsv([r for r in rows if r["file"] != "test_mul_op.py"], tsv)
    problems = tool.check(unittests, tool.read_tsv(tsv))
    assert "test_mul_op.py: not in the tsv" in problems
    assert any(p.startswith("test_dist_mnist.py: the tsv says in-scope-fail") for p in problems)
    assert "test_new_api.py: in scope, not listed, and no hand category" in problems
