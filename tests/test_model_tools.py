"""python -m refimpl dump-model / check-model (specs/model_tools.md)."""
import json
import os

import numpy as np
import pytest

from refimpl import model_tools, versions
from refimpl.__main__ import main as cli

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "paddle_models")
P18 = os.path.join(FIXTURES, "paddle1.8.5")
P3 = os.path.join(FIXTURES, "paddle3.3.1")
PADDLE3 = os.environ.get("REFIMPL_PADDLE3_PYTHON", "/opt/paddle311/bin/python")


@pytest.mark.parametrize("path, model, params", [
    (os.path.join(P18, "mlp_infer"), "__model__", None),
    (os.path.join(P18, "mlp_infer", "__model__"), "__model__", None),
    (os.path.join(P18, "conv_infer_combined"), "__model__", "__params__"),
    (os.path.join(P3, "conv_infer", "model"), "model.pdmodel", "model.pdiparams"),
    (os.path.join(P3, "conv_pir_infer", "model"), "model.json", "model.pdiparams"),
    (os.path.join(P3, "conv_pir_infer", "model.json"), "model.json", "model.pdiparams"),
    (os.path.join(P3, "conv_pir_infer"), "model.json", "model.pdiparams"),
])
def test_models_are_found_as_prefix_file_or_directory(path, model, params):
    files = model_tools.locate(path)
    assert os.path.basename(files.model) == model
    assert (files.params and os.path.basename(files.params)) == params


def test_check_model_runs_refimpl_on_given_inputs(tmp_path, capsys):
    x = os.path.join(P18, "mlp_input.npy")
    report = model_tools.check(os.path.join(P18, "mlp_infer_combined"), inputs={"x": np.load(x)})
    assert report["ok"] and report["missing_ops"] == []
    assert report["inputs"] == {"x": {"dtype": "float32", "shape": [5, 4], "given": True}}
    assert report["outputs"][0]["shape"] == [5, 3] and report["outputs"][0]["finite"]
    out = str(tmp_path / "report.json")
    assert cli(["check-model", os.path.join(P18, "mlp_infer_combined"), "--input",
                "x=" + x, "--json", out]) == 0
    printed = capsys.readouterr().out
    assert "input:   x float32 [5, 4] (given)" in printed and "result:  ok" in printed
    assert json.load(open(out))["outputs"][0]["name"] == "save_infer_model/scale_0.tmp_1"


def test_check_model_random_inputs_follow_the_feed_targets():
    report = model_tools.check(os.path.join(P3, "misc_pir_infer", "model"), batch=3, seed=1)
    assert report["inputs"] == {"x": {"dtype": "float32", "shape": [3, 4], "given": False}}
    assert report["ok"] and report["outputs"][0]["shape"] == [3, 3]


def test_check_model_runs_refimpl_as_the_paddle_compared_or_that_wrote_the_file():
    assert [model_tools.profile_of(v) for v in ("1.8.5", "2.6.2", "3.3.1")] == \
        ["1.8", "2.0", "3"]
    assert model_tools.check(os.path.join(P3, "misc_pir_infer", "model"))["profile"] == "3"
    # a ProgramDesc compared with no Paddle: the current profile
    assert model_tools.check(os.path.join(P18, "mlp_infer"))["profile"] == versions.current()


def test_check_model_names_the_ops_refimpl_lacks(tmp_path, capsys):
    from refimpl.framework.paddle_formats import program_desc
    with open(os.path.join(P18, "mlp_infer", "__model__"), "rb") as f:
        desc = program_desc.decode_desc(f.read())
    for op in desc["blocks"][0]["ops"]:
        if op["type"] == "relu":
            op["type"] = "custom_relu"
    path = tmp_path / "model.pdmodel"
    path.write_bytes(program_desc.encode_desc(desc))
    assert cli(["check-model", str(path), "--params", str(path)]) == 1
    printed = capsys.readouterr().out
    assert "refimpl lacks ops: custom_relu" in printed and "FAILED" in printed


def test_check_model_reports_bad_files(tmp_path, capsys):
    bad = tmp_path / "m.pdmodel"
    bad.write_bytes(b"\x0a\x05\x08")
    assert cli(["check-model", str(bad)]) == 2
    assert "runs past the end" in capsys.readouterr().err
    assert cli(["check-model", str(tmp_path / "nothing")]) == 2


def test_compare_reports_differences():
    want = np.array([[1.0, 2.0], [0.0, -4.0]], "float32")
    same = model_tools.compare(want.copy(), want, 1e-5, 1e-6)
    assert same["ok"] and same["max_abs"] == 0.0
    off = model_tools.compare(want + np.array([[0, 0], [1e-3, 0]], "float32"), want, 1e-5, 1e-6)
    assert not off["ok"] and off["max_abs"] == pytest.approx(1e-3)
    assert off["max_rel"] == pytest.approx(1e-3 / 1e-6, rel=1e-3)      # |b| = 0 -> atol
    shape = model_tools.compare(want[:1], want, 1e-5, 1e-6)
    assert not shape["ok"] and shape["max_abs"] is None
    ids = np.array([3, 1], "int64")
    dtype = model_tools.compare(ids.astype("float64"), ids, 1e-5, 1e-6)     # equal values
    assert not dtype["ok"] and dtype["max_abs"] == 0.0 and dtype["paddle_dtype"] == "int64"


@pytest.mark.skipif(not os.path.exists(PADDLE3), reason="Paddle 3.3.1 is not installed at %s"
                                                        % PADDLE3)
def test_check_model_against_real_paddle(capsys):
    assert cli(["check-model", os.path.join(P18, "conv_infer"), "--paddle-python",
                PADDLE3]) == 0
    printed = capsys.readouterr().out
    assert "paddle:  3.3.1" in printed and "max abs" in printed and "ok" in printed


def test_dump_model_prints_readable_json(capsys):
    assert cli(["dump-model", os.path.join(P3, "mlp_infer", "model")]) == 0
    dumped = json.loads(capsys.readouterr().out)
    assert dumped["format"] == "refimpl.program" and dumped["feed_names"] == ["x"]
    assert [op["type"] for op in dumped["blocks"][0]["ops"]][:2] == ["mul", "elementwise_add"]
    # --desc: the ProgramDesc itself, also of programs refimpl cannot build
    assert cli(["dump-model", "--desc", os.path.join(P18, "mlp_adam_checkpoint",
                                                      "model.pdmodel")]) == 0
    desc = json.loads(capsys.readouterr().out)
    assert desc["version"] == {"version": 1008005}
    assert "cross_entropy_grad2" in {op["type"] for op in desc["blocks"][0]["ops"]}
