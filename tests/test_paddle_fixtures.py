"""Models saved by real Paddle (tests/fixtures/paddle_models, README there) load through the
public API and compute what Paddle computed: inference models of Paddle 1.8.5 (separate
and combined parameters) and 3.3.1 (legacy ProgramDesc and PIR json), Adam checkpoints
(1.8.5 save_persistables and fluid.save, 3.3.1 static.save) continued one step, and a
3.3.1 dygraph state_dict."""
import json
import os

import numpy as np
import pytest

import refimpl as paddle
from refimpl import fluid, static
from refimpl.framework.program import Program, program_guard
from refimpl.framework.scope import Scope, scope_guard

from helpers import paddle_loss_name

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "paddle_models")
P18 = os.path.join(FIXTURES, "paddle1.8.5")
P3 = os.path.join(FIXTURES, "paddle3.3.1")


def _infer(load, inputs_file):
    """The loaded model's output on the fixture's input, in a fresh scope."""
    exe = static.Executor()
    with scope_guard(Scope()):
        program, feeds, fetches = load(exe)
        x = np.load(inputs_file)
        out, = exe.run(program, feed={feeds[0]: x}, fetch_list=fetches)
    return program, out


@pytest.mark.parametrize("net, params", [("mlp", "separate"), ("mlp", "combined"),
                                         ("conv", "separate"), ("conv", "combined"),
                                         ("misc", "combined")])
def test_paddle18_inference_models(net, params):
    kwargs = {"model_filename": "__model__"}
    if params == "combined":
        directory = os.path.join(P18, net + "_infer_combined")
        kwargs["params_filename"] = "__params__"
    else:
        directory = os.path.join(P18, net + "_infer")
    program, out = _infer(lambda exe: static.load_inference_model(directory, exe, **kwargs),
                          os.path.join(P18, net + "_input.npy"))
    np.testing.assert_allclose(out, np.load(os.path.join(P18, net + "_output.npy")),
                               rtol=1e-5, atol=1e-6)
    # an inference program of 1.8: no Parameters (Paddle marks none), feed / fetch ops gone
    assert program.all_parameters() == []
    assert not {"feed", "fetch"} & {op.type for op in program.global_block().ops}


@pytest.mark.parametrize("name", ["mlp", "conv", "mlp_pir", "conv_pir", "misc_pir"])
def test_paddle3_inference_models(name):
    prefix = os.path.join(P3, "%s_infer" % name, "model")
    _, out = _infer(lambda exe: static.load_inference_model(prefix, exe),
                    os.path.join(P3, name + "_input.npy"))
    np.testing.assert_allclose(out, np.load(os.path.join(P3, name + "_output.npy")),
                               rtol=1e-5, atol=1e-6)


# -- Adam checkpoints, continued one step


def _mlp_adam_18():
    """make_paddle18.py's MLP with Adam, built with refimpl's fluid API (same names)."""
    main, startup = Program(), Program()
    with program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.data("x", [None, 4], "float32")
        hidden = fluid.layers.fc(x, 8, act="relu")
        y = fluid.layers.fc(hidden, 3, act="softmax")
        label = fluid.data("label", [None, 1], "int64")
        loss = fluid.layers.mean(fluid.layers.cross_entropy(y, label))
        fluid.optimizer.Adam(0.01).minimize(loss)
    return main, startup, loss


def _mlp_adam_3():
    """make_paddle3.py's MLP with Adam, built with refimpl's paddle.static API."""
    main, startup = Program(), Program()
    with program_guard(main, startup), fluid.unique_name.guard():
        x = static.data("x", [None, 4], "float32")
        hidden = static.nn.fc(x, 8, activation="relu")
        logits = static.nn.fc(hidden, 3)
        label = static.data("label", [None, 1], "int64")
        loss = paddle.nn.functional.cross_entropy(logits, label)
        paddle.optimizer.Adam(0.01).minimize(loss)
    return main, startup, loss


def _continue_one_step(directory, main, startup, loss, load):
    """Load the checkpoint with `load(main)` into a fresh scope (after the startup program),
    run the step Paddle ran next, and check its loss and the parameters after it."""
    batch = dict(np.load(os.path.join(directory, "mlp_adam_next_batch.npz")))
    expected = dict(np.load(os.path.join(directory, "mlp_adam_params_after_next_step.npz")))
    exe = static.Executor()
    scope = Scope()
    with scope_guard(scope):
        if startup is not None:
            exe.run(startup)
        load(main)
        got_loss, = exe.run(main, feed=batch, fetch_list=[loss])
    np.testing.assert_allclose(got_loss, np.load(os.path.join(directory,
                                                              "mlp_adam_next_loss.npy")),
                               rtol=1e-5)
    assert sorted(expected) == sorted(p.name for p in main.all_parameters())
    for name, value in expected.items():
        np.testing.assert_allclose(scope._values[name], value, rtol=1e-5, atol=1e-7,
                                   err_msg=name)


def test_paddle18_save_persistables_directory_continues_training():
    directory = os.path.join(P18, "mlp_adam_persistables")
    main, startup, loss = _mlp_adam_18()
    _continue_one_step(P18, main, startup, loss,
                       lambda program: static.load(program, directory, static.Executor()))


def test_paddle18_fluid_save_checkpoint_continues_training():
    prefix = os.path.join(P18, "mlp_adam_checkpoint", "model")
    main, startup, loss = _mlp_adam_18()
    _continue_one_step(P18, main, startup, loss, lambda program: static.load(program, prefix))
    state = static.load_program_state(prefix)
    assert "fc_0.w_0_moment1_0" in state and state["fc_0.w_0"].shape == (4, 8)


def test_paddle3_static_save_checkpoint_continues_training():
    prefix = os.path.join(P3, "mlp_adam_checkpoint", "model")
    main, startup, loss = _mlp_adam_3()
    # 3.x stores the learning rate as a 0-d tensor, refimpl's 2.0 profile as [1]: the
    # startup program's value is the same 0.01
    persistables = [v for v in main.list_vars() if v.persistable and v.name != "learning_rate_0"]
    _continue_one_step(P3, main, startup, loss,
                       lambda program: static.load(program, prefix, var_list=persistables))


def test_static_load_takes_the_program_file_of_paddle3s_pir_mode():
    """Paddle 3 in PIR mode writes static.save's program as model.json; the path of any of
    the checkpoint's files names the checkpoint."""
    prefix = os.path.join(P3, "mlp_adam_checkpoint", "model")
    state = static.load_program_state(prefix + ".json")
    assert sorted(state) == sorted(static.load_program_state(prefix))


def test_paddle_training_checkpoint_program_continues_training():
    """The .pdmodel of a training checkpoint is Paddle's whole program, backward and
    optimizer ops included: loaded with its checkpoint, it makes Paddle's next step
    (more steps and optimizers: tests/test_paddle_training_programs.py)."""
    for release in (P18, P3):
        prefix = os.path.join(release, "mlp_adam_checkpoint", "model")
        with open(prefix + ".pdmodel", "rb") as f:
            main = static.deserialize_program(f.read())
        assert [op.type for op in main.global_block().ops].count("adam") == 4
        _continue_one_step(release, main, None, paddle_loss_name(main),
                           lambda program: static.load(program, prefix))


# -- dygraph state_dict


def test_paddle3_dygraph_state_dict_loads_into_layers():
    state = paddle.load(os.path.join(P3, "mlp_dygraph", "model.pdparams"))
    assert sorted(state) == ["0.bias", "0.weight", "2.bias", "2.weight"]
    with_names = paddle.load(os.path.join(P3, "mlp_dygraph", "model.pdparams"),
                             keep_name_table=True)
    assert with_names["StructuredToParameterName@@"] == json.load(
        open(os.path.join(P3, "mlp_dygraph_param_names.json")))
    main, startup = Program(), Program()
    with program_guard(main, startup):
        x = static.data("x", [None, 4], "float32")
        model = paddle.nn.Sequential(paddle.nn.Linear(4, 8), paddle.nn.ReLU(),
                                     paddle.nn.Linear(8, 3))
        y = model(x)
    exe = static.Executor()
    with scope_guard(Scope()):
        exe.run(startup)
        model.set_state_dict(state)
        out, = exe.run(main, feed={"x": np.load(os.path.join(P3, "mlp_dygraph_input.npy"))},
                       fetch_list=[y])
    np.testing.assert_allclose(out, np.load(os.path.join(P3, "mlp_dygraph_output.npy")),
                               rtol=1e-5, atol=1e-6)
    moments = paddle.load(os.path.join(P3, "mlp_dygraph", "model.pdopt"))
    assert moments["linear_0.w_0_moment1_0"].shape == (4, 8)
    assert all(isinstance(v, np.ndarray) for v in moments.values())
