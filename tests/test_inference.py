"""The inference API (specs/inference.md): fluid.core's AnalysisConfig /
create_paddle_predictor and paddle.inference's Config / create_predictor serving what
save_inference_model wrote, against the Executor, numpy and values recorded on Paddle 1.8.5."""
import numpy as np
import pytest

from refimpl import fluid, inference, versions
from refimpl.fluid import core
from refimpl.framework.checkpoint import TornCheckpointError

X = np.array([[1, 2, 3], [-4, 0, 1]], "float32")
# Paddle 1.8.5's AnalysisPredictor on this model (fc 3 -> 2, weights 0.5, bias 0.1, relu)
EXPECTED_18 = np.array([[3.1, 3.1], [0.0, 0.0]], "float32")


def _save(path, **names):
    """An fc + relu model of constant weights saved with save_inference_model."""
    x = fluid.data("x", [-1, 3], "float32")
    y = fluid.layers.fc(x, 2, act="relu",
                        param_attr=fluid.ParamAttr(initializer=fluid.initializer.Constant(0.5)),
                        bias_attr=fluid.ParamAttr(initializer=fluid.initializer.Constant(0.1)))
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    fluid.io.save_inference_model(str(path), ["x"], [y], exe, **names)
    return exe.run(feed={"x": X}, fetch_list=[y])[0], y.name


def _combined(tmp_path):
    expected, out_name = _save(tmp_path / "m", model_filename="model", params_filename="params")
    return core.AnalysisConfig(str(tmp_path / "m" / "model"), str(tmp_path / "m" / "params")), \
        expected, out_name


def test_zero_copy_predictor_matches_executor_numpy_and_paddle_18(tmp_path):
    config, expected, out_name = _combined(tmp_path)
    assert (config.model_dir(), config.ir_optim(), config.use_feed_fetch_ops_enabled(),
            config.specify_input_name(), config.use_gpu()) == ("", True, True, False, False)
    config.switch_use_feed_fetch_ops(False)
    predictor = core.create_paddle_predictor(config)
    assert predictor.get_input_names() == ["x"]
    assert predictor.get_output_names() == [out_name]
    assert predictor.get_input_tensor_shape() == {"x": [-1, 3]}
    output = predictor.get_output_tensor(out_name)   # a handle taken before the run
    handle = predictor.get_input_tensor("x")
    handle.copy_from_cpu(X)
    assert (handle.shape(), handle.type(), handle.lod()) == ([2, 3], core.PaddleDType.FLOAT32, [])
    assert predictor.zero_copy_run() is True
    np.testing.assert_allclose(output.copy_to_cpu(), EXPECTED_18, rtol=1e-6)
    np.testing.assert_allclose(output.copy_to_cpu(), expected, rtol=1e-6)
    np.testing.assert_allclose(output.copy_to_cpu(), np.maximum(X @ np.full((3, 2), 0.5) + 0.1, 0),
                               rtol=1e-6)
    assert output.shape() == [2, 2]


def test_run_of_paddle_tensors_from_a_model_directory(tmp_path):
    expected, out_name = _save(tmp_path / "d")
    predictor = core.create_paddle_predictor(core.AnalysisConfig(str(tmp_path / "d")))
    outputs = predictor.run([core.PaddleTensor(X)])
    assert [(o.name, o.shape, o.dtype, o.lod) for o in outputs] == \
        [(out_name, [2, 2], core.PaddleDType.FLOAT32, [])]
    np.testing.assert_allclose(outputs[0].as_ndarray(), expected, rtol=1e-6)
    tensor = core.PaddleTensor(np.array([1, 2], "int64"))
    assert (tensor.dtype, tensor.shape, tensor.data.int64_data()) == \
        (core.PaddleDType.INT64, [2], [1, 2])
    with pytest.raises(ValueError, match="wrong feed input size, need 1"):
        predictor.run([])


def test_paddle_inference_predictor_handles_clone_and_pool(tmp_path, paddle_version):
    expected, out_name = _save(tmp_path / "p", model_filename="m.pdmodel",
                               params_filename="m.pdiparams")
    config = inference.Config(str(tmp_path / "p" / "m.pdmodel"),
                              str(tmp_path / "p" / "m.pdiparams"))
    predictor = inference.create_predictor(config)
    assert not config.use_feed_fetch_ops_enabled()     # create_predictor turns them off
    predictor.get_input_handle("x").copy_from_cpu(X)
    # True (2.0's bool Run()), or None (3.3.1; switch inference_predictor_run)
    assert predictor.run() is (True if versions.switch("inference_predictor_run") == "bool"
                               else None)
    np.testing.assert_allclose(predictor.get_output_handle(out_name).copy_to_cpu(), expected)
    clone = predictor.clone()       # shares the parameters, not the inputs
    with pytest.raises(ValueError, match=r"inputs \['x'\] have no value"):
        clone.run()
    clone.get_input_handle("x").copy_from_cpu(X[:1])
    with paddle_version("3"):
        assert clone.run() is None      # 3.3.1's run() gives None (inference_predictor_run)
    np.testing.assert_allclose(clone.get_output_handle(out_name).copy_to_cpu(), expected[:1])
    assert predictor.get_output_handle(out_name).shape() == [2, 2]
    pool = inference.PredictorPool(inference.Config(str(tmp_path / "p" / "m.pdmodel"),
                                                    str(tmp_path / "p" / "m.pdiparams")), 2)
    with pytest.raises(IndexError, match=r"There are \(2\) predictors"):
        pool.retrive(2)
    assert inference.get_num_bytes_of_data_type(inference.DataType.INT64) == 8
    # printed as 1.8.5's bindings print them
    assert [repr(v) for v in (inference.DataType.INT64, inference.PlaceType.CPU,
                              inference.PrecisionType.Half)] == \
        ["PaddleDType.INT64", "PaddlePlace.CPU", "Precision.Half"]
    from refimpl.fluid import inference as fluid_inference     # 2.0's paddle.fluid.inference
    assert fluid_inference.Config is inference.Config
    assert inference.get_version().startswith("version: ")


def test_clear_errors_and_one_predictor_per_config(tmp_path):
    config, _, out_name = _combined(tmp_path)
    predictor = core.create_paddle_predictor(config)
    with pytest.raises(ValueError, match="Each config can only be used for one predictor"):
        core.create_paddle_predictor(config)
    with pytest.raises(ValueError, match=r"no input named 'nope'; the model's inputs are \['x'\]"):
        predictor.get_input_tensor("nope")
    with pytest.raises(ValueError, match="no output named 'x'"):
        predictor.get_output_tensor("x")
    with pytest.raises(RuntimeError, match="switch_use_feed_fetch_ops"):
        predictor.zero_copy_run()       # feed / fetch ops on, as Paddle 1.8.5 refuses too
    with pytest.raises(FileNotFoundError, match="Cannot open file"):
        core.create_paddle_predictor(core.AnalysisConfig(str(tmp_path / "none")))
    alone = core.AnalysisConfig()
    alone.set_prog_file(config.prog_file())     # 1.8.5 makes no predictor (None) of this
    with pytest.raises(ValueError, match="Either model_dir or param_file"):
        core.create_paddle_predictor(alone)
    copy = core.AnalysisConfig(config)
    copy.switch_use_feed_fetch_ops(False)
    other = core.create_paddle_predictor(copy)
    handle = other.get_input_tensor("x")
    with pytest.raises(TypeError, match="float64 is not supported"):
        handle.copy_from_cpu(X.astype("float64"))
    handle.copy_from_cpu(np.ones((2, 3), "int32"))
    with pytest.raises(TypeError, match="input 'x' holds int32 data, the model's variable is "
                                        "float32"):
        other.zero_copy_run()
    handle.copy_from_cpu(np.ones((2, 4), "float32"))    # the op refuses it, as in Paddle
    with pytest.raises(Exception, match=r"operator mul.*x=\(2, 4\)"):
        other.zero_copy_run()
    with pytest.raises(RuntimeError, match="run the predictor first"):
        other.get_output_tensor(out_name).copy_to_cpu()


def test_inputs_are_not_checked_against_a_saved_fixed_batch(tmp_path):
    x = fluid.data("x", [4, 3], "float32")      # a dy2static model records its batch
    y = fluid.layers.scale(x, 2.0, bias=1.0)
    exe = fluid.Executor(fluid.CPUPlace())
    with pytest.warns(UserWarning, match="no variable in your model"):    # as 1.8.5 warns
        fluid.io.save_inference_model(str(tmp_path / "f"), ["x"], [y], exe)
    config = core.AnalysisConfig(str(tmp_path / "f"))
    config.switch_use_feed_fetch_ops(False)
    predictor = core.create_paddle_predictor(config)
    predictor.get_input_tensor("x").copy_from_cpu(X[:1])
    predictor.zero_copy_run()
    np.testing.assert_allclose(predictor.get_output_tensor(y.name).copy_to_cpu(), X[:1] * 2 + 1)


def test_a_torn_parameter_file_is_refused(tmp_path):
    config, _, _ = _combined(tmp_path)
    params = tmp_path / "m" / "params"
    params.write_bytes(params.read_bytes()[:-4])
    with pytest.raises((TornCheckpointError, ValueError)):
        core.create_paddle_predictor(config)


def test_cpu_build_switches_stay_off_and_passes_are_listed(capfd):
    config = inference.Config()
    config.enable_use_gpu(100, 0)
    config.enable_mkldnn()
    config.enable_tensorrt_engine(1 << 20, 1, 3, inference.PrecisionType.Float32, False, False)
    assert (config.use_gpu(), config.mkldnn_enabled(), config.tensorrt_engine_enabled(),
            config.memory_pool_init_size_mb()) == (False, False, False, 100)
    err = capfd.readouterr().err
    assert "Please compile with gpu to EnableGpu()" in err
    assert "Please compile with MKLDNN first to use MKLDNN" in err
    with pytest.raises(RuntimeError, match="XPU"):
        config.enable_xpu()
    builder = config.pass_builder()
    assert builder.all_passes()[:2] == ["simplify_with_basic_ops_pass", "attention_lstm_fuse_pass"]
    config.delete_pass("fc_fuse_pass")
    assert "fc_fuse_pass" not in builder.all_passes()
    assert core.PassVersionChecker.IsCompatible("conv_bn_fuse_pass")
    assert core.PassVersionChecker.IsCompatible("fc_gru_fuse_pass")     # fusion_gru 1 <= 1
    assert not core.PassVersionChecker.IsCompatible("embedding_fc_lstm_fuse_pass")  # v2 is 1
    assert not core.PassVersionChecker.IsCompatible("no_such_pass")
    # 2.0 names "elementweise_add", an op without checkpoints: version 0 == 0 holds
    assert core.PassVersionChecker.IsCompatible("embedding_eltwise_layernorm_fuse_pass")
    # built only with MKLDNN / TensorRT, so not registered in a CPU build
    assert not core.PassVersionChecker.IsCompatible("conv_relu_mkldnn_fuse_pass")
    assert not core.PassVersionChecker.IsCompatible("tensorrt_subgraph_pass")


def test_lod_input_and_output(tmp_path):
    ids = fluid.data("ids", [-1, 1], "int64", lod_level=1)
    emb = fluid.embedding(ids, size=[10, 2],
                          param_attr=fluid.ParamAttr(
                              initializer=fluid.initializer.NumpyArrayInitializer(
                                  np.arange(20, dtype="float32").reshape(10, 2))))
    pooled = fluid.layers.sequence_pool(emb, "sum")
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    fluid.io.save_inference_model(str(tmp_path / "s"), ["ids"], [pooled, emb], exe)
    config = core.AnalysisConfig(str(tmp_path / "s"))
    config.switch_use_feed_fetch_ops(False)
    predictor = core.create_paddle_predictor(config)
    handle = predictor.get_input_tensor("ids")
    handle.copy_from_cpu(np.array([[1], [2], [3]], "int64"))
    handle.set_lod([[0, 2, 3]])
    predictor.zero_copy_run()
    sums, rows = (predictor.get_output_tensor(n) for n in predictor.get_output_names())
    # rows 1, 2, 3 of the table (fluid.embedding keeps the ids' [.., 1] dim); sums of the
    # sequences [1, 2] and [3]
    np.testing.assert_array_equal(sums.copy_to_cpu(), [[[2 + 4, 3 + 5]], [[6, 7]]])
    assert rows.lod() == [[0, 2, 3]]


def test_compiled_program_with_inference_optimize_runs_the_predictor(tmp_path):
    """Paddle 2.0's book test_word2vec: Executor.run of a CompiledProgram
    _with_inference_optimize(NativeConfig) feeds PaddleTensors to the config's predictor."""
    expected, _ = _save(tmp_path / "n")
    config = core.NativeConfig()
    config.model_dir = str(tmp_path / "n")
    compiled = fluid.CompiledProgram(fluid.Program())._with_inference_optimize(config)
    assert compiled._is_inference is True
    out, = fluid.Executor(fluid.CPUPlace()).run(compiled, feed=[core.PaddleTensor(X)])
    np.testing.assert_allclose(out.as_ndarray(), expected)
    with pytest.raises(TypeError, match="must be a core.NativeConfig or AnalysisConfig"):
        fluid.CompiledProgram(fluid.Program())._with_inference_optimize(object())


def test_native_config_model_dir_or_prog_and_param_files(tmp_path):
    config = core.NativeConfig()     # 1.8.5's defaults
    assert (config.model_dir, config.prog_file, config.param_file, config.use_gpu,
            config.device, config.fraction_of_gpu_memory, config.specify_input_name) == \
        ("", "", "", False, 0, -1.0, False)
    expected, _ = _save(tmp_path / "n")
    config.model_dir = str(tmp_path / "n")
    predictor = core.create_paddle_predictor(config)
    assert type(predictor).__name__ == "NativePaddlePredictor"
    np.testing.assert_allclose(predictor.run([core.PaddleTensor(X)])[0].as_ndarray(),
                               EXPECTED_18, rtol=1e-6)
    np.testing.assert_allclose(predictor.run([core.PaddleTensor(X)])[0].as_ndarray(), expected)



def test_predictor_run_of_tensors_from_3(tmp_path, paddle_version):
    # 3.3.1's Predictor.run([Tensor]): the outputs as Tensors, the handles updated too;
    # 2.0's binding takes no inputs (switch inference_predictor_run)
    config, expected, out_name = _combined(tmp_path)
    predictor = inference.create_predictor(config)
    with paddle_version("2.0"), pytest.raises(TypeError, match="takes no inputs"):
        predictor.run([X])
    with paddle_version("3"), fluid.dygraph.guard():
        x = fluid.dygraph.to_variable(X)
        outputs = predictor.run([x])
        np.testing.assert_allclose(outputs[0].numpy(), EXPECTED_18, rtol=1e-6)
        np.testing.assert_allclose(predictor.get_output_handle(out_name).copy_to_cpu(),
                                   expected)
        with pytest.raises(ValueError, match="wrong feed input size, need 1 but get 2"):
            predictor.run([x, x])
        with pytest.raises(TypeError, match="inputs must be paddle Tensors"):
            predictor.run([X])      # 3.3.1's binding refuses arrays too
