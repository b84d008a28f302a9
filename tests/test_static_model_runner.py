"""fluid.dygraph.StaticModelRunner: a saved inference model as a trainable dynamic-mode
Layer, against the same program run and trained statically; fluid.transpiler.details."""
import io

import numpy as np
import pytest

from refimpl import fluid, versions
from refimpl.fluid.transpiler.details import program_utils


def _while_net(img):
    """fc + softmax, then the same again 3 times in a while loop, then batch_norm."""
    def body(i, times, pred):
        return [i + 1, times, fluid.layers.fc(pred, 4, act="softmax")]

    i = fluid.layers.fill_constant([1], "int64", 0)
    times = fluid.layers.fill_constant([1], "int64", 3)
    pred = fluid.layers.fc(img, 4, act="softmax")
    _, _, pred = fluid.layers.while_loop(lambda i, t, p: i < t, body, [i, times, pred])
    return fluid.layers.batch_norm(pred)


def _train_static(model_dir, data, steps, params_filename=None):
    """Train the net statically for `steps` batches, save it, then train `steps` more;
    returns the later losses and the final parameters."""
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 5
    # built as 2.0 builds it: 1.8.5's while_loop writes its loop variables in place (it
    # returns them), and the runner's training of such a loop is not yet the static one's
    with versions.use("2.0"), fluid.program_guard(main, startup):
        img = fluid.data("img", [None, 6], "float32")
        label = fluid.data("label", [None, 1], "int64")
        pred = _while_net(img)
        loss = fluid.layers.mean(fluid.layers.cross_entropy(fluid.layers.softmax(pred),
                                                            label))
        fluid.optimizer.SGD(0.1).minimize(loss)
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        for x, y in data[:steps]:
            exe.run(main, feed={"img": x, "label": y}, fetch_list=[loss])
        fluid.io.save_inference_model(model_dir, ["img"], [pred], exe, main,
                                      params_filename=params_filename)
        saved = {p.name: np.array(scope.find_var(p.name).get_tensor())
                 for p in main.all_parameters()}
        losses = [exe.run(main, feed={"img": x, "label": y}, fetch_list=[loss])[0]
                  for x, y in data[steps:]]
        final = {p.name: np.array(scope.find_var(p.name).get_tensor())
                 for p in main.all_parameters()}
    return saved, losses, final


def _data(n):
    rng = np.random.RandomState(0)
    return [(rng.rand(8, 6).astype("float32"), rng.randint(0, 4, (8, 1)).astype("int64"))
            for _ in range(n)]


@pytest.mark.parametrize("params_filename", [None, "params"])
def test_loaded_model_trains_as_the_static_program(tmp_path, params_filename,
                                                   paddle_version):
    data = _data(4)
    saved, static_losses, static_final = _train_static(str(tmp_path), data, 2,
                                                       params_filename)
    with fluid.dygraph.guard():
        with paddle_version("1.8"):     # Paddle 1.8's names: <name>@LOADED
            net = fluid.dygraph.StaticModelRunner(str(tmp_path),
                                                  params_filename=params_filename)
        params = {p.name: p for p in net.parameters()}
        suffix = fluid.core.loaded_var_suffix()
        assert suffix == "@LOADED" and sorted(params) == sorted(n + suffix for n in saved)
        for name, value in saved.items():
            np.testing.assert_array_equal(params[name + suffix].numpy(), value)
        # batch_norm's moving statistics are written by the op: no gradient
        frozen = sorted(n for n, p in params.items() if p.stop_gradient)
        assert frozen == ["batch_norm_0.w_1@LOADED", "batch_norm_0.w_2@LOADED"]
        sgd = fluid.optimizer.SGD(0.1, parameter_list=net.parameters())
        losses = []
        for x, y in data[2:]:
            pred = net(x)
            loss = fluid.layers.mean(fluid.layers.cross_entropy(fluid.layers.softmax(pred),
                                                                fluid.dygraph.to_variable(y)))
            loss.backward()
            sgd.minimize(loss)
            net.clear_gradients()
            losses.append(loss.numpy())
        final = {n[:-len(suffix)]: p.numpy() for n, p in params.items()}
    np.testing.assert_allclose(np.ravel(losses), np.ravel(static_losses), rtol=1e-5)
    for name, value in static_final.items():
        np.testing.assert_allclose(final[name], value, rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.skipif(versions.switch("static_runner_param_names") == "suffixed",
                    reason="Paddle 1.8.5 names them <name>@LOADED "
                           "(test_loaded_model_trains_as_the_static_program)")
def test_paddle_2_0_renames_the_loaded_parameters_with_new_unique_names(tmp_path):
    # release/2.0's loader renames each persistable (in name order) to
    # unique_name.generate(its name less the numeric tail), drawn again while that is
    # another variable's name: "b_3" -> "b_0" is the input's name -> "b_1"; "w" -> "w_0"
    # (switch static_runner_param_names; 1.8: "b_3@LOADED", "w@LOADED")
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("b_0", [None, 2], "float32")
        out = fluid.layers.fc(x, 1, param_attr=fluid.ParamAttr(name="w"),
                              bias_attr=fluid.ParamAttr(name="b_3"))
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    fluid.io.save_inference_model(str(tmp_path), ["b_0"], [out], exe, main)
    with fluid.dygraph.guard():
        net = fluid.dygraph.StaticModelRunner(str(tmp_path))
        params = {p.name: p.numpy() for p in net.parameters()}
        got = net(np.ones([1, 2], "float32")).numpy()
    assert sorted(params) == ["b_1", "w_0"]
    np.testing.assert_allclose(got, params["w_0"].sum(0, keepdims=True) + params["b_1"],
                               rtol=1e-6)
    # 2.0's loader keeps new name -> saved name (its tests read it to compare parameters)
    assert net._program_holder_dict["forward"]._suffix_varname_dict == \
        {"b_1": "b_3", "w_0": "w"}


def test_eval_runs_the_inference_program(tmp_path):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [None, 5], "float32")
        out = fluid.layers.dropout(x, 0.4, seed=3)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    fluid.io.save_inference_model(str(tmp_path), ["x"], [out], exe, main)
    ones = np.ones([4, 5], "float32")
    with fluid.dygraph.guard():
        net = fluid.dygraph.StaticModelRunner(str(tmp_path))
        trained = net(ones).numpy()
        net.eval()
        inferred = net(fluid.dygraph.to_variable(ones)).numpy()
    assert set(np.unique(trained)) == {0.0, 1.0}     # train(): dropout drops
    np.testing.assert_allclose(inferred, np.full([4, 5], 0.6, "float32"))


def test_errors_name_the_model_and_its_inputs(tmp_path):
    with fluid.dygraph.guard():
        with pytest.raises(ValueError, match="no model file"):
            fluid.dygraph.StaticModelRunner(str(tmp_path))
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [None, 2], "float32")
        y = fluid.layers.relu(x)
    fluid.io.save_inference_model(str(tmp_path), ["x"], [y], fluid.Executor(), main)
    with fluid.dygraph.guard():
        net = fluid.dygraph.StaticModelRunner(str(tmp_path))
        with pytest.raises(ValueError, match=r"takes 1 inputs \(x\), got 2"):
            net(np.ones([1, 2], "float32"), np.ones([1, 2], "float32"))
        with pytest.raises(TypeError, match="input 'x' must be a numpy array or a Tensor"):
            net([1.0, 2.0])
        np.testing.assert_array_equal(net(np.array([[-1.0, 2.0]], "float32")).numpy(),
                                      [[0.0, 2.0]])


def test_program_utils_print_find_and_delete(paddle_version):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [None, 3], "float32")
        h = fluid.layers.relu(x)
        fluid.layers.scale(h, 2.0)
    block = main.global_block()
    out = io.StringIO()
    program_utils.program_to_code(main, fout=out)
    lines = out.getvalue().splitlines()
    assert lines[0] == "{ // block 0" and lines[-1] == "}"
    assert "    var x : shape[-1, 3].dtype(float32).stop_gradient(True)" in lines
    # 1.8.5's ops also hold the attrs its OpProto declares (switch undeclared_op_attrs)
    held = ", use_cudnn=False, use_mkldnn=False" if versions.switch("undeclared_op_attrs") \
        else ""
    # 3.3.1's op descs hold with_quant_attr (switch op_desc_attrs)
    if versions.switch("op_desc_attrs") == "with_quant_attr":
        held += ", with_quant_attr=False"
    assert "    {Out=['%s']} = relu(inputs={X=['x']}%s)" % (h.name, held) in lines
    assert program_utils.find_op_by_input_arg(block, h.name) == 1
    assert program_utils.find_op_by_output_arg(block, h.name) == 0
    assert program_utils.find_op_by_input_arg(block, "nothing") == -1
    program_utils.delete_ops(block, [block.ops[1]])
    assert [op.type for op in block.ops] == ["relu"]
