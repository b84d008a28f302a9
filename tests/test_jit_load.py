"""paddle.jit.load: a TranslatedLayer running what paddle.jit.save (refimpl's or Paddle
3.3.1's) or save_inference_model wrote, with the saved parameters, gradients and
train / eval modes (specs/jit.md)."""
import json
import os
import pickle

import numpy as np
import pytest

import refimpl as paddle
from refimpl import versions
from refimpl.framework import unique_name
from refimpl.framework.checkpoint import TornCheckpointError

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "paddle_models")


class _ConvNet(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = paddle.nn.Conv2D(1, 2, 3, padding=1)
        self.bn = paddle.nn.BatchNorm2D(2)
        self.fc = paddle.nn.Linear(2 * 4 * 4, 3)

    def forward(self, img):
        return self.fc(paddle.flatten(paddle.nn.functional.relu(self.bn(self.conv(img))), 1))


_IMG_SPEC = [paddle.static.InputSpec([None, 1, 4, 4], "float32", "img")]


def _by_saved_name(loaded):
    """The loaded parameters by the variable names they were saved under (Paddle 2.0 names
    them <saved name>.load_<n>: switch translated_layer_var_names)."""
    return {p.name.rsplit(".load_", 1)[0]: p for p in loaded.parameters()}


def _saved_conv(tmp_path, rng):
    """A _ConvNet with batch-norm statistics off their initial values, saved by jit.save."""
    net = _ConvNet()
    net(paddle.to_tensor(rng.standard_normal([3, 1, 4, 4]).astype("float32")))
    net.eval()
    path = str(tmp_path / "conv")
    paddle.jit.save(net, path, input_spec=_IMG_SPEC)
    return net, path


def test_linear_round_trip_outputs_names_and_info(tmp_path, dygraph, paddle_version):
    net = paddle.nn.Linear(3, 2)
    x = np.array([[1.0, -2.0, 0.5], [0.0, 3.0, -1.0]], np.float32)
    path = str(tmp_path / "lin")
    paddle.jit.save(net, path, input_spec=[paddle.static.InputSpec([None, 3], "float32", "x")])
    # the program: a PIR json under 3 (switch inference_program_format)
    program = ".pdmodel" if versions.switch("inference_program_format") == "program_desc" \
        else ".json"
    assert {program, ".pdiparams", ".pdiparams.info"} <= {
        f[len("lin"):] for f in os.listdir(tmp_path)}
    with open(path + ".pdiparams.info", "rb") as f:
        info = pickle.load(f)
    assert info == {net.weight.name: {"structured_name": "weight", "stop_gradient": False,
                                      "trainable": True},
                    net.bias.name: {"structured_name": "bias", "stop_gradient": False,
                                    "trainable": True}}
    with unique_name.guard():
        loaded = paddle.jit.load(path)
        again = paddle.jit.load(path)
    assert isinstance(loaded, paddle.jit.TranslatedLayer) and not loaded.training
    names = sorted([net.weight.name, net.bias.name])
    assert list(loaded.state_dict()) == ["param_0", "param_1"]
    # Paddle 2.0: each load holds variables of its own (switch translated_layer_var_names)
    suffixed = versions.switch("translated_layer_var_names") == "load_suffix"
    assert [p.name for p in loaded.parameters()] == [n + ".load_0" * suffixed for n in names]
    assert [p.name for p in again.parameters()] == [n + ".load_1" * suffixed for n in names]
    with paddle_version("3"):
        assert [p.name for p in paddle.jit.load(path).parameters()] == names
    got = loaded(paddle.to_tensor(x)).numpy()
    np.testing.assert_allclose(got, x @ net.weight.numpy() + net.bias.numpy(), rtol=1e-6)
    with pytest.raises(TypeError, match="takes 1 inputs \\['x'\\], got 2"):
        loaded(paddle.to_tensor(x), paddle.to_tensor(x))


def test_conv_batch_norm_eval_train_and_gradients_match_the_layer(tmp_path, dygraph, rng):
    net, path = _saved_conv(tmp_path, rng)
    loaded = paddle.jit.load(path)
    by_name = _by_saved_name(loaded)
    assert [by_name[p.name].stop_gradient for p in (net.bn._mean, net.bn._variance,
                                                    net.conv.weight)] == [True, True, False]
    x = rng.standard_normal([2, 1, 4, 4]).astype("float32")
    np.testing.assert_allclose(loaded(paddle.to_tensor(x)).numpy(),
                               net(paddle.to_tensor(x)).numpy(), rtol=1e-5, atol=1e-6)
    # training mode: gradients as the Layer's; batch_norm keeps the saved statistics
    # (use_global_stats was fixed when the program was saved in evaluation mode: Paddle
    # 3.3.1's TranslatedLayer computes the same in both modes)
    mean = net.bn._mean.numpy().copy()
    loaded.train()
    outs = [m(paddle.to_tensor(x)) for m in (net, loaded)]
    np.testing.assert_allclose(outs[1].numpy(), outs[0].numpy(), rtol=1e-5, atol=1e-6)
    for out in outs:
        (out * out).sum().backward()
    np.testing.assert_array_equal(by_name[net.bn._mean.name].numpy(), mean)
    for p in (net.conv.weight, net.bn.weight, net.fc.weight, net.fc.bias):
        assert np.abs(np.asarray(p.grad)).max() > 0
        np.testing.assert_allclose(np.asarray(by_name[p.name].grad), np.asarray(p.grad),
                                   rtol=1e-4, atol=1e-6)


def test_training_mode_turns_dropout_on(tmp_path, dygraph):
    net = paddle.nn.Sequential(paddle.nn.Dropout(0.5))
    path = str(tmp_path / "drop")
    paddle.jit.save(net, path, input_spec=[paddle.static.InputSpec([None, 1000], "float32", "x")])
    loaded = paddle.jit.load(path)
    x = paddle.to_tensor(np.ones([1, 1000], np.float32))
    np.testing.assert_array_equal(loaded(x).numpy(), x.numpy())
    loaded.train()
    out = loaded(x).numpy()
    assert set(np.unique(out)) == {0.0, 2.0} and 300 < (out == 0).sum() < 700

def test_loads_save_inference_model_files(tmp_path, dygraph, rng):
    net = _ConvNet()
    net.eval()
    x = rng.standard_normal([2, 1, 4, 4]).astype("float32")
    expected = net(paddle.to_tensor(x)).numpy()
    paddle.Model(net, _IMG_SPEC).save(str(tmp_path / "infer"), training=False)
    assert not os.path.exists(str(tmp_path / "infer.pdiparams.info"))
    loaded = paddle.jit.load(str(tmp_path / "infer"))
    np.testing.assert_allclose(loaded(paddle.to_tensor(x)).numpy(), expected, rtol=1e-5,
                               atol=1e-6)
    # without .pdiparams.info the program's trainable Parameters train, nothing else does
    by_name = _by_saved_name(loaded)
    assert by_name[net.bn._mean.name].stop_gradient and not by_name[net.fc.weight.name].stop_gradient


def test_paddle18_inference_directory_with_filenames(dygraph):
    directory = os.path.join(FIXTURES, "paddle1.8.5", "mlp_infer_combined")
    loaded = paddle.jit.load(directory, model_filename="__model__", params_filename="__params__")
    x = np.load(os.path.join(FIXTURES, "paddle1.8.5", "mlp_input.npy"))
    np.testing.assert_allclose(loaded(paddle.to_tensor(x)).numpy(),
                               np.load(os.path.join(FIXTURES, "paddle1.8.5", "mlp_output.npy")),
                               rtol=1e-5, atol=1e-6)


@pytest.mark.paddle("3")
def test_paddle331_jit_save_fixture(dygraph):
    base = os.path.join(FIXTURES, "paddle3.3.1")
    loaded = paddle.jit.load(os.path.join(base, "jit_conv", "model"))
    with open(os.path.join(base, "jit_conv_loaded.json")) as f:
        paddle_loaded = json.load(f)
    assert loaded.training == paddle_loaded["training_after_load"]
    assert {k: v.name for k, v in loaded.state_dict().items()} == paddle_loaded["state_dict"]
    assert {p.name: p.stop_gradient for p in loaded.parameters()} == \
        paddle_loaded["stop_gradient"]
    x = np.load(os.path.join(base, "jit_conv_input.npy"))
    np.testing.assert_allclose(loaded(paddle.to_tensor(x)).numpy(),
                               np.load(os.path.join(base, "jit_conv_output.npy")),
                               rtol=1e-5, atol=1e-6)


class _Exploit:
    def __reduce__(self):
        return (os.system, ("touch pwned",))


def test_load_runs_no_pickled_code_and_checks_files(tmp_path, dygraph, rng, monkeypatch):
    _, path = _saved_conv(tmp_path, rng)
    monkeypatch.chdir(tmp_path)
    os.remove(path + ".pdmanifest")      # files as Paddle writes them: no manifest
    with open(path + ".pdiparams.info", "wb") as f:
        pickle.dump({"conv2d_0.w_0": _Exploit()}, f)
    with pytest.raises(ValueError):
        paddle.jit.load(path)
    assert not os.path.exists(tmp_path / "pwned")
    with open(path + ".pdiparams.info", "wb") as f:
        pickle.dump({"conv2d_0.w_0": 3}, f)
    with pytest.raises(ValueError, match="is not a .pdiparams.info file"):
        paddle.jit.load(path)
    with pytest.raises(ValueError, match="no model file .*nothing.pdmodel"):
        paddle.jit.load(str(tmp_path / "nothing"))


def test_load_refuses_a_torn_save(tmp_path, dygraph, rng):
    _, path = _saved_conv(tmp_path, rng)
    with open(path + ".pdiparams", "r+b") as f:
        f.seek(-4, os.SEEK_END)
        f.write(b"\0\0\0\1")
    with pytest.raises(TornCheckpointError):
        paddle.jit.load(path)


def test_load_of_an_edited_info_gives_paddles_error_where_paddle_raises_one(tmp_path, dygraph,
                                                                          rng):
    """2.0's test_load_var_not_in_extra_var_info clears the .pdiparams.info after the save:
    Paddle's RuntimeError (a variable of the program is not in it) comes before the
    manifest's; an edited .info that still lists every variable is TornCheckpointError."""
    _, path = _saved_conv(tmp_path, rng)
    with open(path + ".pdiparams.info", "rb") as f:
        info = pickle.load(f)
    with open(path + ".pdiparams.info", "wb") as f:
        pickle.dump({}, f, protocol=2)
    with pytest.raises(RuntimeError, match="not complete: the variable 'batch_norm2d_0.b_0'"):
        paddle.jit.load(path)
    info["conv2d_0.w_0"] = dict(info["conv2d_0.w_0"], structured_name="renamed")
    with open(path + ".pdiparams.info", "wb") as f:
        pickle.dump(info, f, protocol=2)
    with pytest.raises(TornCheckpointError, match="pdiparams.info: does not match"):
        paddle.jit.load(path)


@pytest.mark.parametrize("net", ["mlp_pir", "misc_pir", "conv"])
def test_paddle331_save_inference_model_fixtures(dygraph, net):
    """Paddle 3.3.1's static save_inference_model files, PIR json and legacy ProgramDesc."""
    base = os.path.join(FIXTURES, "paddle3.3.1")
    loaded = paddle.jit.load(os.path.join(base, net + "_infer", "model"))
    x = np.load(os.path.join(base, net + "_input.npy"))
    np.testing.assert_allclose(loaded(paddle.to_tensor(x)).numpy(),
                               np.load(os.path.join(base, net + "_output.npy")),
                               rtol=1e-5, atol=1e-6)
