"""Files refimpl saves load in real Paddle 1.8.5 and 3.3.1 and give the same values:
inference models (every version profile's ProgramDesc, combined and separate parameters)
computing refimpl's outputs, static.save checkpoints (pickles and the training program),
paddle.save objects. Runs each Paddle interpreter once for the module; skips (saying why)
where one is not installed. REFIMPL_PADDLE18_PYTHON / REFIMPL_PADDLE3_PYTHON point
elsewhere."""
import os
import subprocess

import numpy as np
import pytest

import refimpl as paddle
from refimpl import fluid, model_tools, static
from refimpl.framework.paddle_formats import grad_ops, program_desc, safe_pickle
from refimpl.framework.program import Program, program_guard
from refimpl.framework.scope import Scope, scope_guard
from refimpl.static import io as static_io

from test_paddle_formats import control_flow_program

ENV = {"1.8.5": "REFIMPL_PADDLE18_PYTHON", "3.3.1": "REFIMPL_PADDLE3_PYTHON"}
PYTHONS = {"1.8.5": os.environ.get(ENV["1.8.5"], "/opt/paddle18/bin/python"),
           "3.3.1": os.environ.get(ENV["3.3.1"], "/opt/paddle311/bin/python")}
PROFILES = ("1.8", "2.0", "3")


def _nets():
    def mlp():
        x = fluid.data("x", [None, 4], "float32")
        return x, fluid.layers.fc(fluid.layers.fc(x, 8, act="relu"), 3, act="softmax")

    def conv():
        img = fluid.data("img", [None, 1, 6, 6], "float32")
        b = fluid.layers.batch_norm(fluid.layers.conv2d(img, 2, 3, padding=1), act="relu")
        return img, fluid.layers.fc(fluid.layers.pool2d(b, 2, "max", 2), 3)

    def misc():
        x = fluid.data("x", [None, 4], "float32")
        h = fluid.layers.gelu(fluid.layers.layer_norm(fluid.layers.fc(x, 6)))
        t = fluid.layers.transpose(fluid.layers.reshape(h, [-1, 2, 3]), [0, 2, 1])
        f = fluid.layers.flatten(fluid.layers.concat([t, fluid.layers.scale(t, 2.0, 0.5)],
                                                     axis=2))
        d = fluid.layers.dropout(fluid.layers.tanh(f) + fluid.layers.sigmoid(f), 0.3)
        centered = d - fluid.layers.reduce_mean(d, dim=1, keep_dim=True)
        return x, fluid.layers.softmax(fluid.layers.fc(centered, 3))
    return {"mlp": mlp, "conv": conv, "misc": misc}


def _save_inference_models(root):
    """Each net (initialized, batch-norm statistics moved off 0 / 1), saved as
    save_inference_model does, as each profile's ProgramDesc with combined parameters, and
    (mlp) as a fluid.io directory with one file per parameter. {case: (files, input,
    refimpl's output)}."""
    cases = {}
    rng = np.random.RandomState(0)
    for name, net in _nets().items():
        main, startup = Program(), Program()
        with program_guard(main, startup), fluid.unique_name.guard():
            x, y = net()
        scope = Scope()
        exe = static.Executor()
        with scope_guard(scope):
            exe.run(startup)
            for var in main.list_vars():
                if var.persistable and "batch_norm" in var.name:
                    scope._values[var.name] = scope._values[var.name] + rng.rand(
                        *scope._values[var.name].shape).astype("float32")
            inputs = {x.name: rng.standard_normal([3] + list(x.shape[1:])).astype("float32")}
            prefix = os.path.join(root, name, "saved")
            static.save_inference_model(prefix, [x], [y], exe, program=main)
            files = model_tools.locate(prefix)
            cases[name + "/save_inference_model"] = (files, inputs,
                                                     model_tools.run_refimpl(files, inputs)[1])
            pruned, feeds, fetches = static_io.normalize_program(main, [x], [y])
            values = {v.name: scope._values[v.name] for v in pruned.list_vars()
                      if v.persistable}
            for profile in PROFILES:
                directory = os.path.join(root, name, "profile" + profile)
                os.makedirs(directory)
                with open(os.path.join(directory, "__model__"), "wb") as f:
                    f.write(program_desc.encode_program(pruned, feeds, fetches, profile))
                static_io.save_vars_files(directory, values, "__params__")
                cases["%s/profile %s" % (name, profile)] = (
                    model_tools.locate(directory), inputs, cases[name + "/save_inference_model"][2])
            if name == "mlp":       # fluid.io.save_inference_model(dirname) of 1.8
                directory = os.path.join(root, name, "separate")
                static_io.save_inference_files(directory, pruned, feeds, fetches)
                files = model_tools.locate(directory)
                assert files.params is None
                cases[name + "/separate files"] = (files, inputs,
                                                   cases[name + "/save_inference_model"][2])
    return cases


def _save_checkpoint_and_object(root):
    """A trained MLP with Adam saved by static.save, and a paddle.save of a nested object:
    (prefix, program, {name: value}, object path, object)."""
    main, startup = Program(), Program()
    with program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.data("x", [None, 4], "float32")
        label = fluid.data("label", [None, 1], "int64")
        prob = fluid.layers.fc(fluid.layers.fc(x, 8, act="relu"), 3, act="softmax")
        loss = fluid.layers.mean(fluid.layers.cross_entropy(prob, label))
        fluid.optimizer.Adam(0.01).minimize(loss)
    scope = Scope()
    rng = np.random.RandomState(1)
    exe = static.Executor()
    prefix = os.path.join(root, "ckpt", "model")
    with scope_guard(scope):
        exe.run(startup)
        for _ in range(2):
            exe.run(main, feed={"x": rng.randn(5, 4).astype("float32"),
                                "label": rng.randint(0, 3, (5, 1)).astype("int64")})
        static.save(main, prefix)
    state = {v.name: scope._values[v.name] for v in main.list_vars() if v.persistable}
    obj = {"weights": {"w": np.arange(6, dtype="float32").reshape(2, 3),
                       "b": np.zeros(3, "float64")},
           "step": 7, "lr": 0.5, "name": "adam", "flags": [True, None, (1, 2)],
           "ids": np.array([3, 4], "int64"), "scalar": np.array(2.5, "float32")}
    obj_path = os.path.join(root, "obj.pdparams")
    paddle.save(obj, obj_path)
    control_flow, _ = control_flow_program()
    static.save_to_file(os.path.join(root, "ckpt", "control_flow.pdmodel"),
                        program_desc.encode_program(control_flow))
    return prefix, main, state, obj_path, obj


# run inside Paddle: its view of the checkpoint and of the object, as a pickle
_READ_CHECKPOINT = r"""
import pickle, sys
import numpy as np
import paddle
prefix, obj_path, out = sys.argv[1:4]
control_flow_path = prefix[:-len("model")] + "control_flow.pdmodel"
read = lambda path: open(path, "rb").read()
if paddle.__version__.startswith("1."):
    import paddle.fluid as fluid
    state = fluid.io.load_program_state(prefix)
    program = fluid.Program.parse_from_string(read(prefix + ".pdmodel"))
    control_flow = fluid.Program.parse_from_string(read(control_flow_path))
    with open(obj_path, "rb") as f:
        obj = pickle.load(f)                # what 1.8's fluid.load does with a .pdparams
else:
    paddle.enable_static()
    with paddle.pir_utils.OldIrGuard():
        state = paddle.static.load_program_state(prefix)
        program = paddle.static.Program.parse_from_string(read(prefix + ".pdmodel"))
        control_flow = paddle.static.Program.parse_from_string(read(control_flow_path))
    obj = paddle.load(obj_path, return_numpy=True)
sub_blocks = [(op.type, op._block_attr_id("sub_block")) for op in
              control_flow.global_block().ops if op.has_attr("sub_block")]
with open(out, "wb") as f:
    pickle.dump({"state": state, "ops": [op.type for op in program.global_block().ops],
                 "parameters": sorted(p.name for p in program.global_block().all_parameters()),
                 "obj": obj, "blocks": [b.parent_idx for b in control_flow.blocks],
                 "sub_blocks": sub_blocks}, f, protocol=2)
"""


@pytest.fixture(scope="module", params=sorted(PYTHONS))
def paddle_run(request, tmp_path_factory):
    """(release, {case: (refimpl's outputs, Paddle's run)}, the checkpoint and object saved,
    Paddle's view of them) for one real Paddle, started twice."""
    release = request.param
    python = PYTHONS[release]
    if not os.path.exists(python):
        pytest.skip("Paddle %s is not installed at %s (set %s to its Python)"
                    % (release, python, ENV[release]))
    root = str(tmp_path_factory.mktemp("interop-" + release))
    # ProgramDescs under every profile (profile 3 writes a PIR json only for the ops its
    # writer covers, not flatten2: specs/paddle_formats.md)
    with scope_guard(Scope()), paddle.pir_utils.OldIrGuard():
        cases = _save_inference_models(root)
        checkpoint = _save_checkpoint_and_object(root)
    ran = model_tools.run_paddle_many(python, [(files, inputs) for files, inputs, _ in
                                               cases.values()], 600)
    results = {case: (expected, got) for (case, (_, _, expected)), got in
               zip(cases.items(), ran)}
    out = os.path.join(root, "paddle_view.pkl")
    done = subprocess.run([python, "-c", _READ_CHECKPOINT, checkpoint[0], checkpoint[3], out],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    with open(out, "rb") as f:
        view = safe_pickle.loads(f.read())
    return release, results, checkpoint, view


def test_inference_models_compute_refimpls_outputs_in_paddle(paddle_run):
    release, results, _, _ = paddle_run
    assert len(results) == 3 * (1 + len(PROFILES)) + 1
    for case, (expected, (names, outputs, version)) in results.items():
        assert version == release
        assert len(outputs) == len(expected) == 1, case
        np.testing.assert_allclose(outputs[0], expected[0], rtol=1e-5, atol=1e-6,
                                   err_msg="%s in Paddle %s" % (case, release))


def test_static_save_checkpoint_loads_in_paddle(paddle_run):
    release, _, (prefix, main, state, _, _), view = paddle_run
    assert sorted(view["state"]) == sorted(state)
    for name, value in state.items():
        np.testing.assert_array_equal(view["state"][name], value, err_msg=name)
        assert view["state"][name].dtype == value.dtype
    # as Paddle names them (cross_entropy2's grad op is Paddle's cross_entropy_grad2)
    assert view["ops"] == [grad_ops.paddle_grad_type(op.type) for op in main.global_block().ops]
    assert "cross_entropy_grad2" in view["ops"]
    if release != "1.8.5":          # 1.8 has no is_parameter field: no Parameters there
        assert view["parameters"] == sorted(p.name for p in main.all_parameters())


def test_paddle_save_object_loads_in_paddle(paddle_run):
    _, _, (_, _, _, _, obj), view = paddle_run
    got = view["obj"]
    assert (got["step"], got["lr"], got["name"], got["flags"]) == (7, 0.5, "adam",
                                                                    [True, None, (1, 2)])
    for key, value in [("ids", obj["ids"]), ("scalar", obj["scalar"])] + \
            [(k, v) for k, v in obj["weights"].items()]:
        holder = got["weights"] if key in obj["weights"] else got
        np.testing.assert_array_equal(holder[key], value)
        assert holder[key].dtype == value.dtype and holder[key].shape == value.shape


def test_sub_blocks_are_read_by_paddle(paddle_run):
    _, _, _, view = paddle_run
    assert view["blocks"] == [-1, 0, 0, 0]
    assert view["sub_blocks"] == [("while", 1), ("conditional_block", 2),
                                  ("conditional_block", 3)]


def test_refimpl_imports_on_paddle_18s_python():
    """`conformance check --impl paddle18` runs refimpl's conformance package on 1.8.5's
    Python 3.8 (tools/paddle18_api): refimpl must import there (math.nextafter, 3.9 on,
    once broke it)."""
    python = PYTHONS["1.8.5"]
    if not os.path.exists(python):
        pytest.skip("Paddle 1.8.5's Python is not at %s (%s)" % (python, ENV["1.8.5"]))
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    run = subprocess.run([python, "-c", "import refimpl, refimpl.conformance.check; "
                          "print(refimpl.__file__)"], capture_output=True, text=True,
                         timeout=300, env=dict(os.environ, PYTHONPATH=root))
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip().startswith(root)
