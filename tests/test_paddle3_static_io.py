"""save_inference_model / load_inference_model as Paddle 2.0 and 3.3.1 have them (the
early-2024 test_inference_model_io): a missing model is a ValueError ("There is no
directory named ..." in 3.3.1; refimpl's error is a FileNotFoundError too), a
CompiledProgram is saved as its program (with Paddle's warning), a program with auc ops
warns about their states, and paddle.static.normalize_program gives the inference
Program (TypeError for anything else, 3.3.1's words)."""
import warnings

import numpy as np
import pytest

import refimpl as paddle


@pytest.fixture
def static_net():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data(name="x", shape=[-1, 2], dtype="float32")
        y = paddle.static.data(name="y", shape=[-1, 1], dtype="int64")
        predict = paddle.static.nn.fc(x, size=2, activation="softmax")
        paddle.static.auc(input=predict, label=y)
        loss = paddle.mean(paddle.nn.functional.cross_entropy(predict, y, use_softmax=False))
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    return main, x, y, predict, loss, exe


def test_a_missing_model_is_a_value_error(tmp_path):
    exe = paddle.static.Executor(paddle.CPUPlace())
    with pytest.raises(ValueError):
        paddle.static.load_inference_model(str(tmp_path / "none" / "model"), exe)
    with pytest.raises(FileNotFoundError):
        paddle.static.load_inference_model(str(tmp_path / "none" / "model"), exe)


@pytest.mark.paddle("3")
def test_saving_a_compiled_program_with_auc_ops(static_net, tmp_path):
    main, x, y, predict, loss, exe = static_net
    prefix = str(tmp_path / "m")
    with warnings.catch_warnings(record=True) as caught, paddle.pir_utils.OldIrGuard():
        warnings.simplefilter("always")
        paddle.static.save_inference_model(prefix, [x], [predict], exe,
                                           program=paddle.static.CompiledProgram(main))
    assert [str(w.message) for w in caught] == [
        "The input is a CompiledProgram, this is not recommended.",
        "Be sure that you have set auc states to 0 before saving inference model."]
    program, feeds, fetches = paddle.static.load_inference_model(prefix, exe)
    assert feeds == ["x"]
    data = np.array([[1., 2.], [3., -1.]], "float32")
    want, = exe.run(main, feed={"x": data, "y": np.zeros([2, 1], "int64")},
                    fetch_list=[predict])
    got, = exe.run(program, feed={"x": data}, fetch_list=fetches)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_normalize_program(static_net):
    main, x, y, predict, loss, exe = static_net
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        inference = paddle.static.normalize_program(main, [x, y], [loss])
    assert isinstance(inference, paddle.static.Program)
    assert "auc" not in [op.type for op in inference.global_block().ops]
    with pytest.raises(TypeError, match="program type must be"):
        paddle.static.normalize_program(None, [x, y], [loss])
    with pytest.raises(TypeError, match="feed_vars type must be"):
        paddle.static.normalize_program(main, "x", [loss])
    with pytest.raises(TypeError, match="fetch_vars type must be"):
        paddle.static.normalize_program(main, [x, y], "loss")
