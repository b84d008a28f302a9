"""Paddle 3's PIR program json written by refimpl (specs/paddle_formats.md, "PIR program"):
profile 3's save_inference_model writes it as Paddle 3.3.1 does (the ProgramDesc under
pir_utils.OldIrGuard / FLAGS_enable_pir_api off, and in profiles 1.8 and 2.0); refimpl reads
it back to the same outputs, and Paddle 3.3.1's load_inference_model (PIR mode) computes
them too."""
import json
import os

import numpy as np
import pytest

import refimpl as paddle
from refimpl import model_tools, static
from refimpl.fluid import flags
from refimpl.framework.paddle_formats import pir_program
from refimpl.framework.program import Program, program_guard
from refimpl.framework.scope import Scope, scope_guard
from refimpl.framework.serialization import SerializationError

from helpers import tool_module

PADDLE3 = os.environ.get("REFIMPL_PADDLE3_PYTHON", "/opt/paddle311/bin/python")


def _every_op_program():
    """The tool's program that uses every op the PIR writer translates."""
    return tool_module("pir_op_facts").every_op_program(paddle)


def _inputs(rng, batch=3):
    return {"x": rng.standard_normal([batch, 4]).astype("float32"),
            "img": rng.standard_normal([batch, 1, 6, 6]).astype("float32"),
            "ids": rng.randint(0, 10, [batch, 3]).astype("int64")}


def _saved_every_op_model(prefix):
    """Save the every-op program (batch-norm statistics off 0 / 1) with save_inference_model;
    (the program's own outputs on inputs, the inputs)."""
    main, feeds, fetches, startup = _every_op_program()
    exe = static.Executor()
    rng = np.random.RandomState(0)
    scope = Scope()
    with scope_guard(scope):
        exe.run(startup)
        for var in main.list_vars():
            if var.persistable and "batch_norm" in var.name:
                scope._values[var.name] = scope._values[var.name] + rng.rand(
                    *scope._values[var.name].shape).astype("float32")
        static.save_inference_model(prefix, feeds, fetches, exe, program=main)
        inputs = _inputs(rng)
        test_program = main.clone(for_test=True)
        expected = exe.run(test_program, feed=inputs, fetch_list=fetches)
    return [np.asarray(e) for e in expected], inputs


@pytest.mark.paddle("3")
def test_profile3_save_inference_model_writes_pir_json_that_reads_back(tmp_path):
    prefix = str(tmp_path / "every" / "model")
    expected, inputs = _saved_every_op_model(prefix)
    assert sorted(os.listdir(tmp_path / "every")) == ["model.json", "model.pdiparams",
                                                      "model.pdmanifest"]
    with open(prefix + ".json", "rb") as f:
        doc = json.loads(f.read())
    assert doc["base_code"] == {"magic": "pir", "trainable": True, "version": 4}
    ops = [op["#"] for op in doc["program"]["regions"][0]["blocks"][0]["ops"]]
    assert ops.count("1.data") == 3 and ops.count("1.fetch") == len(expected)
    assert {"1.matmul", "1.conv2d", "1.batch_norm_", "1.pool2d", "1.layer_norm", "0.combine",
            "1.full_int_array", "1.split", "0.split"} <= set(ops)
    exe = static.Executor()
    with scope_guard(Scope()):
        program, feeds, fetches = static.load_inference_model(prefix, exe)
        got = exe.run(program, feed=inputs, fetch_list=fetches)
    assert feeds == ["x", "img", "ids"] and len(got) == len(expected)
    for i, (g, e) in enumerate(zip(got, expected)):
        np.testing.assert_allclose(np.asarray(g), e, rtol=1e-5, atol=1e-6, err_msg="output %d" % i)


def _mlp():
    main, startup = Program(), Program()
    with program_guard(main, startup):
        x = static.data("x", [None, 4], "float32")
        y = static.nn.fc(x, 3)
    exe = static.Executor()
    exe.run(startup)
    return main, x, y, exe


@pytest.mark.paddle("3")
def test_legacy_program_desc_stays_available_in_profile3(tmp_path):
    main, x, y, exe = _mlp()
    with paddle.pir_utils.OldIrGuard():
        assert not paddle.pir_utils.pir_enabled()
        static.save_inference_model(str(tmp_path / "guard" / "m"), [x], [y], exe, program=main)
    assert paddle.pir_utils.pir_enabled()
    assert sorted(os.listdir(tmp_path / "guard"))[0] == "m.pdiparams"
    assert os.path.exists(tmp_path / "guard" / "m.pdmodel")
    flags.set_flags({"FLAGS_enable_pir_api": False})
    try:
        static.save_inference_model(str(tmp_path / "flag" / "m"), [x], [y], exe, program=main)
    finally:
        flags.set_flags({"FLAGS_enable_pir_api": True})
    assert os.path.exists(tmp_path / "flag" / "m.pdmodel")
    assert not os.path.exists(tmp_path / "flag" / "m.json")


@pytest.mark.paddle("2.0")
def test_profile2_writes_program_desc_and_has_no_pir_flag(tmp_path):
    main, x, y, exe = _mlp()
    static.save_inference_model(str(tmp_path / "m"), [x], [y], exe, program=main)
    assert os.path.exists(tmp_path / "m.pdmodel") and not os.path.exists(tmp_path / "m.json")
    with pytest.raises(ValueError, match="not a public flag of Paddle 2.0"):
        flags.get_flags("FLAGS_enable_pir_api")
    with paddle.pir_utils.OldIrGuard():          # accepted, changes nothing
        assert not paddle.pir_utils.pir_enabled()


@pytest.mark.paddle("3")
def test_ops_without_a_pir_translation_are_refused_before_writing(tmp_path):
    main, startup = Program(), Program()
    with program_guard(main, startup):
        x = static.data("x", [None, 4], "float32")
        y = paddle.argsort(x, axis=1)
    with pytest.raises(SerializationError, match=r"op \d+ \(argsort\): refimpl does not write "
                                                 r"op argsort as PIR"):
        static.save_inference_model(str(tmp_path / "m"), [x], [y], static.Executor(),
                                    program=main)
    assert not os.path.exists(tmp_path / "m.json")


def test_attributes_get_the_types_paddle_declares():
    # pool2d's strides are int64 items, conv2d's int32; a float attribute is float32
    assert pir_program._attr_json("0.a_array", "0.a_i64", [2, 2]) == \
        {"#": "0.a_array", "D": [{"#": "0.a_i64", "D": 2}, {"#": "0.a_i64", "D": 2}]}
    assert pir_program._attr_json("0.a_f32", None, 0.9)["D"] == float(np.float32(0.9))
    assert pir_program._attr_json("1.a_dtype", None, "float64") == {"#": "1.a_dtype",
                                                                    "D": "float64"}


@pytest.mark.slow
@pytest.mark.paddle("3")
@pytest.mark.skipif(not os.path.exists(PADDLE3), reason="Paddle 3.3.1 is not installed at %s"
                                                        % PADDLE3)
def test_paddle3_loads_refimpls_pir_json_and_computes_its_outputs(tmp_path):
    prefix = str(tmp_path / "model")
    expected, inputs = _saved_every_op_model(prefix)
    names, outputs, version = model_tools.run_paddle(PADDLE3, model_tools.locate(prefix),
                                                     inputs, 300)
    assert version == "3.3.1" and len(outputs) == len(expected) == 26
    for i, (got, want) in enumerate(zip(outputs, expected)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=names[i])
    # the CLI's report: every output, one-number results included, matches in shape too
    report = model_tools.check(prefix, PADDLE3, inputs)
    assert report["ok"] and report["profile"] == "3", report


@pytest.mark.slow
@pytest.mark.paddle("3")
@pytest.mark.skipif(not os.path.exists(PADDLE3), reason="Paddle 3.3.1 is not installed at %s"
                                                        % PADDLE3)
def test_mul_of_tensors_that_are_not_matrices_is_reshaped_around_a_matmul(tmp_path):
    """fc's mul with num_flatten_dims 2 on [N, 3, 4], with X [N, 2, 3, 3] flattened, and on
    a matrix: Paddle 3.3.1 computes refimpl's outputs."""
    main, startup = Program(), Program()
    with program_guard(main, startup):
        x = static.data("x", [None, 3, 4], "float32")
        img = static.data("img", [None, 2, 3, 3], "float32")
        outs = [static.nn.fc(x, 5, num_flatten_dims=2), static.nn.fc(img, 4),
                static.nn.fc(x, 2)]
    exe = static.Executor()
    rng = np.random.RandomState(3)
    inputs = {"x": rng.standard_normal([2, 3, 4]).astype("float32"),
              "img": rng.standard_normal([2, 2, 3, 3]).astype("float32")}
    with scope_guard(Scope()):
        exe.run(startup)
        prefix = str(tmp_path / "m")
        static.save_inference_model(prefix, [x, img], outs, exe, program=main)
        expected = exe.run(main.clone(for_test=True), feed=inputs, fetch_list=outs)
    _, got, _ = model_tools.run_paddle(PADDLE3, model_tools.locate(prefix), inputs, 300)
    assert [g.shape for g in got] == [(2, 3, 5), (2, 4), (2, 2)]
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, np.asarray(e), rtol=1e-5, atol=1e-6)
