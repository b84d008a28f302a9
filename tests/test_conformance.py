"""The conformance oracle: golden generation is reproducible, the shipped goldens match
the registry, refimpl passes all of its own cases on every kernel backend, and the
checker isolates crashes and timeouts and reports failures with their error."""
import json
import os
import textwrap

import numpy as np
import pytest

from refimpl.conformance import check as check_mod
from refimpl.conformance.cli import main as cli_main
from refimpl.conformance.generate import diff_goldens, generate
from refimpl.conformance.store import GOLDEN_DIR, INDEX_NAME, read_index, read_npz, write_npz


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    """Goldens generated from the current registry, twice, into two directories."""
    a, b = tmp_path_factory.mktemp("golden_a"), tmp_path_factory.mktemp("golden_b")
    generate(str(a))
    generate(str(b))
    return str(a), str(b)


def test_regeneration_is_byte_identical(fresh):
    a, b = fresh
    names = sorted(os.listdir(a))
    assert INDEX_NAME in names and any(n.endswith(".npz") for n in names)
    assert names == sorted(os.listdir(b))
    for n in names:
        with open(os.path.join(a, n), "rb") as fa, open(os.path.join(b, n), "rb") as fb:
            assert fa.read() == fb.read(), "%s differs between two generations" % n


def test_shipped_goldens_are_current(fresh):
    problems = diff_goldens(fresh[0], GOLDEN_DIR)
    assert not problems, ("the shipped goldens are stale against the op registry / "
                          "scenarios; run `python -m refimpl conformance generate` and commit "
                          "refimpl/conformance/golden:\n  " + "\n  ".join(problems[:20]))


def test_goldens_load_without_pickle_and_hold_the_reference(fresh):
    index = read_index(fresh[0])
    by_id = {c["id"]: c for c in index["cases"]}
    case = by_id["op/elementwise_add/2_axis1"]
    arrays = read_npz(os.path.join(fresh[0], case["file"]))   # allow_pickle=False inside
    k = case["key"]
    x, y = arrays[k + "/in/X/0"], arrays[k + "/in/Y/0"]
    cot = arrays[k + "/cot/Out/0"]
    assert case["attrs"] == {"axis": 1} and y.shape == (3,)
    np.testing.assert_array_equal(arrays[k + "/out/Out/0"], x + y[None, :, None])
    np.testing.assert_array_equal(arrays[k + "/grad/X/0"], cot)
    np.testing.assert_allclose(arrays[k + "/grad/Y/0"], cot.sum(axis=(0, 2)), rtol=1e-12)
    mul = by_id["op/mul/0"]
    m = read_npz(os.path.join(fresh[0], mul["file"]))
    np.testing.assert_allclose(m["0/out/Out/0"], m["0/in/X/0"] @ m["0/in/Y/0"], rtol=1e-12)
    np.testing.assert_allclose(m["0/grad/Y/0"], m["0/in/X/0"].T @ m["0/cot/Out/0"],
                               rtol=1e-12)
    assert all(c["kind"] in ("op", "scenario") for c in index["cases"])
    total = sum(os.path.getsize(os.path.join(fresh[0], n)) for n in os.listdir(fresh[0]))
    assert total < 5 * 2 ** 20, "goldens grew to %d bytes" % total


@pytest.mark.parametrize("kernels", ["numpy", "cython"])
def test_refimpl_passes_all_its_cases(kernels, monkeypatch):
    monkeypatch.setenv("REFIMPL_KERNELS", kernels)
    report = check_mod.check("refimpl", GOLDEN_DIR, timeout=120)
    bad = [(r["id"], r["status"], r["message"]) for r in report["cases"]
           if r["status"] != "pass"]
    assert not bad, "refimpl (%s kernels) fails its own goldens:\n%s" % (
        kernels, "\n".join("%s %s %s" % b for b in bad))
    assert report["summary"]["pass"] == len(read_index(GOLDEN_DIR)["cases"])
    assert report["implementation"]["kernels"] == kernels


@pytest.mark.parametrize("kernels", ["numpy", "cython"])
def test_refimpl_dynamic_mode_passes_all_op_and_eager_scenario_cases(kernels, monkeypatch):
    """--mode dynamic: every op case on eager Tensors (LayerHelper.append_op, paddle.grad)
    and the optimizer scenarios trained eagerly; only static-program scenarios and the op
    cases that feed a LoD (eager Tensors carry none) skip."""
    monkeypatch.setenv("REFIMPL_KERNELS", kernels)
    report = check_mod.check("refimpl", GOLDEN_DIR, timeout=120, mode="dynamic")
    bad = [(r["id"], r["status"], r["message"]) for r in report["cases"]
           if r["status"] not in ("pass", "skipped")]
    assert not bad, "refimpl's dynamic mode (%s kernels) fails:\n%s" % (
        kernels, "\n".join("%s %s %s" % b for b in bad))
    skipped = sorted(r["id"] for r in report["cases"] if r["status"] == "skipped")
    lod_cases = {c["id"] for c in read_index(GOLDEN_DIR)["cases"]
                 if any(any(lods) for lods in c.get("lods", {}).get("in", {}).values())}
    assert lod_cases and lod_cases <= set(skipped)
    assert skipped and all((i.startswith("class/") and "optimizer/sgd" not in i) or
                           i in lod_cases for i in skipped), skipped
    assert report["implementation"]["mode"] == "dynamic"


MISBEHAVING_IMPL = """
    # refimpl, except that some ops crash the process, hang, raise, or are missing
    import os, sys, time
    import refimpl
    from refimpl.framework import program

    _append_op = program.Block.append_op

    def append_op(self, type, *args, **kwargs):
        if type == "relu":
            os._exit(3)
        if type == "scale":
            time.sleep(60)
        if type == "mean":
            raise ValueError("mean is broken here")
        if type == "sum":
            raise ValueError('Operator "sum" has not been registered.')
        return _append_op(self, type, *args, **kwargs)

    program.Block.append_op = append_op
    sys.modules[__name__] = refimpl
"""


def test_checker_isolates_crashes_timeouts_errors_and_missing_ops(tmp_path, monkeypatch):
    (tmp_path / "badpaddle.py").write_text(textwrap.dedent(MISBEHAVING_IMPL))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    xfails = tmp_path / "xfails.txt"
    xfails.write_text("op/mean/*   # documented divergence\n")
    report = check_mod.check("badpaddle", GOLDEN_DIR,
                             patterns=["op/relu/", "op/scale/", "op/mean/", "op/sum/", "op/mul/"],
                             timeout=3, expectations=check_mod.read_expectations(str(xfails)))
    status = {}
    for r in report["cases"]:
        status.setdefault(r["id"].split("/")[1], set()).add(r["status"])
    assert status == {"relu": {"error"}, "scale": {"error"}, "mean": {"xfail"},
                      "sum": {"skipped"}, "mul": {"pass"}}
    messages = {r["id"].split("/")[1]: r["message"] for r in report["cases"]}
    assert "exited with status 3" in messages["relu"]
    assert "time limit" in messages["scale"]
    assert "mean is broken here" in messages["mean"]
    assert report["groups"]["op/mul"]["pass"] == 3
    assert check_mod.failed(report)


def test_lod_cases_feed_and_compare_lod(fresh, tmp_path):
    """A sequence op's case stores its inputs' LoD (no lengths slot) and its outputs'
    LoD; a wrong expected output LoD fails the case, naming both."""
    index = read_index(fresh[0])
    case = next(c for c in index["cases"] if c["id"] == "op/ctc_align/0")
    assert set(case["inputs"]) == {"Input"} and set(case["outputs"]) == {"Output"}
    assert case["lods"] == {"in": {"Input": [[[5, 0, 4]]]}, "out": {"Output": [[[2, 0, 2]]]}}
    arrays = read_npz(os.path.join(fresh[0], case["file"]))
    np.testing.assert_array_equal(arrays["0/out/Output/0"].ravel(), [1, 1, 2, 3])
    assert check_mod.check("refimpl", fresh[0], patterns=["op/ctc_align/0"])[
        "summary"]["pass"] == 1
    golden = tmp_path / "golden"
    generate(str(golden))
    index = read_index(str(golden))
    next(c for c in index["cases"] if c["id"] == "op/ctc_align/0")["lods"]["out"] = {
        "Output": [[[2, 1, 1]]]}
    with open(str(golden / INDEX_NAME), "w") as f:
        json.dump(index, f)
    r, = check_mod.check("refimpl", str(golden), patterns=["op/ctc_align/0"])["cases"]
    assert r["status"] == "fail"
    assert "0/lod/Output/0: LoD [[2, 0, 2]], expected [[2, 1, 1]]" in r["message"]


def test_a_profiles_own_output_lod_is_expected_of_that_profile(fresh):
    """generate_proposals/1_all_big under 1.8 keeps no proposal for its second image
    (Paddle 1.8.5: LoD [[8, 0]], RpnRoisLod [8, 8]); profile 3 keeps one zero box."""
    from refimpl.conformance.compare import compare
    index = read_index(fresh[0])
    case = next(c for c in index["cases"] if c["id"] == "op/generate_proposals/1_all_big")
    assert case["lods"]["out"]["RpnRois"] == [[[8, 1]]]
    assert case["profile_lods"]["1.8"]["RpnRois"] == [[[8, 0]]]
    expected = read_npz(os.path.join(fresh[0], case["file"]))
    np.testing.assert_array_equal(expected["1@1.8/out/RpnRoisLod/0"], [8, 8])
    actual = {k: v for k, v in expected.items() if k.startswith("1/")}
    actual.update({"1/out/%s/0" % s: expected["1@1.8/out/%s/0" % s]
                   for s in ("RpnRois", "RpnRoiProbs", "RpnRoisLod")})
    actual.update({"1/lod/%s/0" % s: [[8, 0]] for s in ("RpnRois", "RpnRoiProbs")})
    assert compare(case, expected, actual, "1.8")["status"] == "pass"
    result = compare(case, expected, actual, "3")
    assert "1/lod/RpnRois/0: LoD [[8, 0]], expected [[8, 1]]" in result["message"]


def test_wrong_values_fail_with_their_error(tmp_path):
    golden = tmp_path / "golden"
    generate(str(golden))
    index = read_index(str(golden))
    case = next(c for c in index["cases"] if c["id"] == "op/mul/0")
    path = str(golden / case["file"])
    arrays = read_npz(path)
    arrays["0/out/Out/0"] = arrays["0/out/Out/0"].copy()
    arrays["0/out/Out/0"][1, 2] += 0.25
    arrays["0/grad/X/0"] = arrays["0/grad/X/0"][:, :2].copy()
    write_npz(path, arrays)
    report = check_mod.check("refimpl", str(golden), patterns=["op/mul/0"])
    r, = report["cases"]
    assert r["status"] == "fail"
    assert r["max_abs"] == pytest.approx(0.25, rel=1e-9)
    assert "0/grad/X/0: shape [4, 3], expected [4, 2]" in r["message"]
    assert diff_goldens(str(golden), GOLDEN_DIR) == [
        "op/mul/0: array 0/grad/X/0 changed shape or dtype",
        "op/mul/0: array 0/out/Out/0 changed"]


def test_state_outputs_are_bound_to_their_inputs():
    # Paddle's average_accumulates writes out_sum_1 without allocating it: programs (and the
    # builder) pass in_sum_1's variable; likewise ParamOut / MomentOut of optimizer states
    from refimpl.conformance.build import _updated_state
    index = read_index(GOLDEN_DIR)
    cases = {c["id"]: c for c in index["cases"]}
    avg, mom = cases["op/average_accumulates/0"], cases["op/momentum/0"]
    assert {s: _updated_state(avg, s) for s in avg["outputs"]} == {
        "out_%s" % k: "in_%s" % k for k in ("num_accumulates", "num_updates",
                                            "old_num_accumulates", "sum_1", "sum_2", "sum_3")}
    assert _updated_state(mom, "ParamOut") == "Param"
    assert _updated_state(mom, "VelocityOut") == "Velocity"
    shaped = dict(avg, outputs=dict(avg["outputs"], out_sum_1=["float64[3, 2]"]))
    assert _updated_state(shaped, "out_sum_1") is None


def test_error_messages_lead_with_paddle_1_8s_summary():
    from refimpl.conformance.worker import error_text
    stack = "C++ Call Stacks:\n" + "0   frame\n" * 300
    e = RuntimeError(stack + "Error Message Summary:\nError: Attribute 'nms_eta' is required!")
    text = error_text(e)
    assert text.startswith("RuntimeError: Error Message Summary:\nError: Attribute 'nms_eta' "
                           "is required!\nC++ Call Stacks:")
    assert error_text(ValueError("plain")) == "ValueError: plain"


def test_cli_list_check_and_stale_detection(tmp_path, capsys):
    assert cli_main(["list", "-k", "op/mul/*"]) == 0
    assert capsys.readouterr().out.split() == [c["id"] for c in read_index()["cases"]
                                               if c["id"].startswith("op/mul/")]
    assert cli_main(["list", "--lod", "-k", "op/sequence_pool/", "-k", "op/relu/"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert listed and all(i.startswith("op/sequence_pool/") for i in listed)   # relu: no LoD
    report_path = tmp_path / "report.json"
    assert cli_main(["check", "-k", "op/scale", "--report", str(report_path)]) == 0
    out = capsys.readouterr().out
    assert "op/scale" in out and "total" in out
    report = json.loads(report_path.read_text())
    assert report["summary"]["pass"] == report["groups"]["op/scale"]["pass"] > 0
    golden = tmp_path / "golden"
    generate(str(golden))
    assert cli_main(["generate", "--out", str(golden), "--check"]) == 0
    os.remove(str(golden / "op_relu.npz"))
    index = read_index(str(golden))
    index["cases"] = [c for c in index["cases"] if c.get("op") != "relu"]
    with open(str(golden / INDEX_NAME), "w") as f:
        json.dump(index, f)
    capsys.readouterr()
    assert cli_main(["generate", "--out", str(golden), "--check"]) == 1
    out = capsys.readouterr().out
    assert "op/relu/0: not in the shipped goldens" in out and "are stale" in out


def test_nan_where_nan_is_expected_counts_as_exact():
    # check_finite_and_unscale's Out holds inf * 0 = NaN where X held inf
    from refimpl.conformance.compare import compare
    case = {"key": "0", "rtol": 1e-7, "atol": 1e-9}
    want = np.array([1.0, np.nan, np.inf])
    expected = {"0/in/X/0": want, "0/out/Out/0": want}
    result = compare(case, expected, {"0/out/Out/0": want.copy()})
    assert (result["status"], result["max_abs"], result["max_rel"]) == ("pass", 0.0, 0.0)
    result = compare(case, expected, {"0/out/Out/0": np.array([1.0, 2.0, np.inf])})
    assert result["status"] == "fail" and "0/out/Out/0: max abs err inf" in result["message"]
