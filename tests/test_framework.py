"""The IR: naming, program structure, clone(for_test), places, scope."""
import os

import numpy as np
import pytest

import refimpl as paddle
from refimpl import static, versions
from refimpl.framework import unique_name
from refimpl.framework.program import OpRole, Program, program_guard


def _fc_program():
    x = static.data("x", [None, 3], "float32")
    h = static.nn.fc(x, 4)
    loss = paddle.mean(h)
    return x, h, loss


@pytest.mark.parametrize("version, loss_shape, startup_ops", [
    ("2.0", (1,), ["fill_constant", "uniform_random"]),     # initializers prepended
    ("3", (), ["uniform_random", "fill_constant"])])        # appended


def test_fc_names_follow_paddle(paddle_version, version, loss_shape, startup_ops):
    with paddle_version(version):
        _, h, loss = _fc_program()
    block = static.default_main_program().global_block()
    assert [p.name for p in block.all_parameters()] == ["fc_0.w_0", "fc_0.b_0"]
    assert h.name == "fc_0.tmp_1"
    assert loss.name == "mean_0.tmp_0"
    # paddle.mean builds reduce_mean (2.0's source, 3.3.1; fluid.layers.mean: the mean op)
    assert [op.type for op in block.ops] == ["mul", "elementwise_add", "reduce_mean"]
    assert block.var("fc_0.w_0").shape == (3, 4)
    assert h.shape == (-1, 4) and loss.shape == loss_shape
    startup = static.default_startup_program().global_block()
    assert [op.type for op in startup.ops] == startup_ops


def test_unique_name_guard_restarts_counters():
    with unique_name.guard():
        assert unique_name.generate("fc") == "fc_0"
        assert unique_name.generate("fc") == "fc_1"
    with unique_name.guard():
        assert unique_name.generate("fc") == "fc_0"


def test_op_roles_after_minimize():
    _, _, loss = _fc_program()
    paddle.optimizer.SGD(0.1).minimize(loss)
    ops = static.default_main_program().global_block().ops
    roles = [(op.type, op.attr("op_role")) for op in ops]
    assert roles[2] == ("reduce_mean", OpRole.Loss)
    assert roles[3] == ("fill_constant", OpRole.Backward | OpRole.Loss)
    assert all(r == OpRole.Backward for t, r in roles if t.endswith("_grad"))
    sgd = [op for op in ops if op.type == "sgd"]
    assert [op.attr("op_role") for op in sgd] == [OpRole.Optimize] * 2
    assert sorted(op.attr("op_role_var")[0] for op in sgd) == ["fc_0.b_0", "fc_0.w_0"]


def test_clone_for_test_drops_backward_and_optimizer_ops():
    _, _, loss = _fc_program()
    main = static.default_main_program()
    paddle.optimizer.SGD(0.1).minimize(loss)
    test_prog = main.clone(for_test=True)
    assert [op.type for op in test_prog.global_block().ops] == ["mul", "elementwise_add",
                                                                "reduce_mean"]
    assert len(main.global_block().ops) > 3, "clone must not change the original"
    assert [p.name for p in test_prog.all_parameters()] == ["fc_0.w_0", "fc_0.b_0"]
    assert not test_prog.global_block().has_var("fc_0.w_0@GRAD")


def _started_fc_softmax_loss(exe, startup):
    """A feed of 5 rows, a scope that ran `startup`, fc_0's initial weight and the softmax
    cross entropy that the 4 -> 3 fc (bias 0 at the start) gives on the feed."""
    rng = np.random.RandomState(0)
    feed = {"x": rng.rand(5, 4).astype("float32"),
            "label": rng.randint(0, 3, (5, 1)).astype("int64")}
    scope = static.global_scope().__class__()
    exe.run(startup, scope=scope)
    w = np.array(scope.find_var("fc_0.w_0").get_tensor())
    z = feed["x"] @ w
    z = z - z.max(1, keepdims=True)
    expected = -(z[np.arange(5), feed["label"][:, 0]] - np.log(np.exp(z).sum(1))).mean()
    return feed, scope, w, expected


def test_clone_for_test_drops_the_gradient_blocks_of_control_flow():
    # Paddle 1.8.5 (its test_program_prune_backward's test_cond): after minimize, the
    # clone for test has the 3 blocks of the clone before it, not the 5 with the two
    # conditional_block_grad blocks, and computes the same loss
    from refimpl import fluid
    main, startup = Program(), Program()
    with program_guard(main, startup), unique_name.guard():
        x = fluid.data("x", [None, 4], "float32")
        label = fluid.data("label", [None, 1], "int64")
        logits = fluid.layers.fc(x, 3)
        is_two = fluid.layers.fill_constant([1], "int32", 2) == 2
        loss = fluid.layers.case(
            [(is_two, lambda: fluid.layers.mean(
                fluid.layers.softmax_with_cross_entropy(logits, label)))],
            lambda: fluid.layers.mean(fluid.layers.reduce_sum(logits, dim=1)))
        before = main.clone(for_test=True)
        fluid.optimizer.SGD(0.1).minimize(loss)
    after = main.clone(for_test=True)
    assert len(main.blocks) == 5
    assert len(after.blocks) == len(before.blocks) == 3
    for a, b in zip(after.blocks, before.blocks):
        assert (a.idx, a.parent_idx) == (b.idx, b.parent_idx)
        assert [op.type for op in a.ops] == [op.type for op in b.ops]
        assert sorted(a.vars) == sorted(b.vars)
    assert [op.attr("sub_block") for op in after.global_block().ops
            if op.type == "conditional_block"] == [1, 2]
    exe = static.Executor()
    feed, scope, w, expected = _started_fc_softmax_loss(exe, startup)
    for prog in (after, before):
        got, = exe.run(prog, feed=feed, fetch_list=[loss.name], scope=scope)
        np.testing.assert_allclose(got, [expected], rtol=1e-5)


def test_clone_for_test_of_minimize_in_a_branch_lists_only_forward_reads():
    # Paddle 1.8.5 (test_program_prune_backward's test_optimization_in_cond): with SGD's
    # minimize inside both case branches, the clone for test equals the clone of the same
    # net without it: the conditional_blocks read only the logits and the label (not the
    # learning rate, the parameters or x, which only the pruned sgd / grad ops read), write
    # only the case's output, and block 0 has no learning_rate_0
    from refimpl import fluid

    def net(with_optimize):
        main, startup = Program(), Program()
        with program_guard(main, startup), unique_name.guard():
            x = fluid.data("x", [None, 4], "float32")
            label = fluid.data("label", [None, 1], "int64")
            logits = fluid.layers.fc(x, 3)
            sgd = fluid.optimizer.SGD(0.1)

            def branch(loss_fn):
                def fn():
                    loss = fluid.layers.mean(loss_fn(logits, label))
                    if with_optimize:
                        sgd.minimize(loss)
                    return loss
                return fn
            is_two = fluid.layers.fill_constant([1], "int32", 2) == 2
            loss = fluid.layers.case(
                [(is_two, branch(fluid.layers.softmax_with_cross_entropy))],
                branch(lambda z, y: fluid.layers.reduce_sum(z, dim=1)))
        return main, startup, loss

    plain, _, _ = net(False)
    main, startup, loss = net(True)
    assert any(op.type == "sgd" for b in main.blocks for op in b.ops)
    before, after = plain.clone(for_test=True), main.clone(for_test=True)
    assert "learning_rate_0" in main.global_block().vars
    assert "learning_rate_0" not in after.global_block().vars
    for a, b in zip(after.blocks, before.blocks):
        assert [op.type for op in a.ops] == [op.type for op in b.ops]
        assert sorted(a.vars) == sorted(b.vars)
    branches = [op for op in after.global_block().ops if op.type == "conditional_block"]
    assert [op.input("Input") for op in branches] == [["fc_0.tmp_1", "label"],
                                                      ["fc_0.tmp_1"]]
    assert [op.output("Out") for op in branches] == [[loss.name]] * 2
    # the training program keeps its full lists (the branches update the parameters)
    assert "learning_rate_0" in [op for op in main.global_block().ops
                                 if op.type == "conditional_block"][0].input("Input")
    exe = static.Executor()
    feed, scope, w, expected = _started_fc_softmax_loss(exe, startup)
    got, = exe.run(after, feed=feed, fetch_list=[loss.name], scope=scope)
    np.testing.assert_allclose(got, [expected], rtol=1e-5)
    np.testing.assert_array_equal(np.array(scope.find_var("fc_0.w_0").get_tensor()), w)


def test_clone_is_deep():
    _fc_program()
    main = static.default_main_program()
    copy = main.clone()
    copy.global_block().ops[0]._set_attr("x_num_col_dims", 7)
    assert main.global_block().ops[0].attr("x_num_col_dims") == 1


def test_program_guard_and_str():
    main, startup = Program(), Program()
    with program_guard(main, startup):
        assert static.default_main_program() is main
        _fc_program()
    assert static.default_main_program() is not main
    text = str(main)
    if versions.switch("fluid_debug_text"):     # 1.8.5: the ProgramDesc's text
        assert text == main.to_string(True) and 'name: "fc_0.w_0"' in text
        return
    assert "mul(inputs={X=[x], Y=[fc_0.w_0]}" in text
    assert "param var fc_0.w_0 : LOD_TENSOR.shape(3, 4).dtype(float32)" in text


def test_program_guard_rejects_non_programs():
    with pytest.raises(TypeError, match="main_program must be a Program"):
        with program_guard("nope"):
            pass


def test_block_var_missing_names_the_variable():
    with pytest.raises(ValueError, match="'nope' is not in block 0"):
        static.default_main_program().global_block().var("nope")


def test_cpu_places_honours_cpu_num(monkeypatch):
    monkeypatch.setenv("CPU_NUM", "3")
    assert len(static.cpu_places()) == 3
    monkeypatch.delenv("CPU_NUM")
    assert len(static.cpu_places()) == 1 and os.environ["CPU_NUM"] == "1"
    assert static.cpu_places(2) == [paddle.CPUPlace(), paddle.CPUPlace()]


def test_scope_tensor_set_and_read():
    scope = static.global_scope()
    t = scope.var("v").get_tensor()
    t.set(np.arange(6, dtype="float32").reshape(2, 3), paddle.CPUPlace())
    np.testing.assert_array_equal(np.array(scope.find_var("v").get_tensor()),
                                  np.arange(6).reshape(2, 3))
    assert scope.find_var("missing") is None
    kid = scope.new_scope()
    assert kid.find_var("v") is not None


def test_dtype_spellings_compare_equal():
    x = static.data("x", [2], "float32")
    assert x.dtype == paddle.float32
    assert x.dtype == "float32"
    assert x.dtype == np.float32
    assert x.dtype == np.dtype("float32")
    assert x.dtype != "float64"


def test_parameter_needs_known_shape():
    with pytest.raises(ValueError, match="fully known shape"):
        static.default_main_program().global_block().create_parameter(
            name="w", shape=[-1, 3], dtype="float32")


def test_unknown_op_suggests_a_name():
    block = static.default_main_program().global_block()
    with pytest.raises(ValueError, match="did you mean elementwise_add"):
        block.append_op(type="elementwise_ad", inputs={}, outputs={})


def test_variable_operators_build_ops():
    x = static.data("x", [None, 3], "float32")
    y = (x + 1.0) * 2.0 - x
    ops = static.default_main_program().global_block().ops
    assert [op.type for op in ops] == ["scale", "scale", "elementwise_sub"]
    out, = static.Executor().run(feed={"x": np.full((2, 3), 5.0, "float32")}, fetch_list=[y])
    np.testing.assert_allclose(out, np.full((2, 3), 7.0))


def test_copy_param_info_from_makes_the_named_variables_parameters():
    """Paddle 1.8's Program._copy_param_info_from: a variable of the same name becomes a
    Parameter with the source's trainable / regularizer / optimize_attr."""
    source, target = Program(), Program()
    with program_guard(source, Program()):
        static.nn.fc(static.data("x", [None, 3], "float32"), 2, weight_attr=paddle.ParamAttr(
            name="w", trainable=False, learning_rate=0.5))
    target.global_block().create_var(name="w", shape=[3, 2], dtype="float64")
    target._copy_param_info_from(source)
    (w,) = target.global_block().all_parameters()    # the bias is not in target: skipped
    assert (w.name, w.shape, w.dtype.name, w.trainable) == ("w", (3, 2), "float64", False)
    assert w.optimize_attr == {"learning_rate": 0.5}
    with pytest.raises(TypeError, match="needs to pass in a source Program"):
        target._copy_param_info_from("program")
    with pytest.raises(TypeError, match="needs to pass in a source Program"):
        target._copy_dist_param_info_from("program")
    source._is_distributed, source._endpoints = True, ["127.0.0.1:6170"]
    target._copy_dist_param_info_from(source)
    assert target._is_distributed and target._endpoints == ["127.0.0.1:6170"]


def test_copy_data_info_from_marks_the_sources_data_variables():
    """Paddle 2.0's Program._copy_data_info_from: is_data, need_check_feed and stop_gradient
    come from the same-named variables of the source's blocks; a variable the source lacks
    is a ValueError, a source that is no Program a TypeError (its test_desc_clone)."""
    source = Program()
    with program_guard(source, Program()):
        x = static.data("x", [None, 3], "float32")
        y = paddle.scale(x, 2.0)
        y.stop_gradient = True
    target = Program()
    for v in (x, y):
        target.global_block().create_var(name=v.name, shape=v.shape, dtype=v.dtype)
    target._copy_data_info_from(source)
    tx, ty = (target.global_block().var(v.name) for v in (x, y))
    assert (tx.is_data, tx.need_check_feed, tx.stop_gradient) == (True, True, True)
    assert (ty.is_data, ty.need_check_feed, ty.stop_gradient) == (False, False, True)
    with pytest.raises(ValueError, match="'x' of block 0 is not in block 0"):
        target._copy_data_info_from(Program())
    with pytest.raises(TypeError, match="needs to pass in a source Program"):
        target._copy_data_info_from(source.global_block())


def test_op_desc_details_as_paddle_18(paddle_version):
    # Paddle 1.8.5's mul op desc (measured): its attrs, their types, the op's index
    from refimpl.fluid import core
    with paddle_version("2.0"):
        _check_mul_op_desc(core)


def test_op_desc_attrs_under_3(paddle_version):
    # 3.3.1 (measured; its test_operator_desc): no MKL-DNN attrs, with_quant_attr on every op
    with paddle_version("3"):
        block = Program().global_block()
        for name, shape in (("x", [5, 10]), ("y", [10, 8]), ("out", [5, 8])):
            block.create_var(name=name, shape=shape, dtype="float32")
        mul = block.append_op(type="mul", inputs={"X": ["x"], "Y": ["y"]},
                              outputs={"Out": ["out"]}, attrs={"x_num_col_dims": 1})
        relu = block.append_op(type="relu", inputs={"X": ["out"]}, outputs={"Out": ["r"]})
        common = {"op_role", "op_role_var", "op_namescope", "op_callstack", "op_device",
                  "with_quant_attr"}
        assert set(mul.attr_names) == common | {"x_num_col_dims", "y_num_col_dims"}
        assert set(relu.attr_names) == common and relu.attr("with_quant_attr") is False
        mul.desc.remove_input("X")
        assert mul.input_names == ["Y"]


def _check_mul_op_desc(core):
    block = Program().global_block()
    for name, shape in (("x", [5, 10]), ("y", [10, 8]), ("out", [5, 8])):
        block.create_var(name=name, shape=shape, dtype="float32")
    block.append_op(type="scale", inputs={"X": ["x"]}, outputs={"Out": ["x2"]})
    op = block.append_op(type="mul", inputs={"X": ["x2"], "Y": ["y"]}, outputs={"Out": ["out"]},
                         attrs={"x_num_col_dims": 1})
    assert set(op.attr_names) == {
        "x_num_col_dims", "y_num_col_dims", "op_role", "op_role_var", "use_mkldnn", "scale_x",
        "scale_y", "scale_out", "force_fp32_output", "op_namescope", "op_callstack", "op_device"}
    assert (op.attr("op_namescope"), op.attr("op_device"), op.attr("scale_y")) == ("/", "", [1.0])
    types = {n: op.attr_type(n) for n in ("x_num_col_dims", "scale_x", "scale_y", "use_mkldnn",
                                          "op_role_var", "op_device")}
    assert types == {"x_num_col_dims": core.AttrType.INT, "scale_x": core.AttrType.FLOAT,
                     "scale_y": core.AttrType.FLOATS, "use_mkldnn": core.AttrType.BOOLEAN,
                     "op_role_var": core.AttrType.STRINGS, "op_device": core.AttrType.STRING}
    assert op.idx == 1 and block.var("out").op is op and block.var("y").op is None
    with pytest.raises(ValueError, match="^`type` to initialized an Operator can not be None.$"):
        block.append_op()
    with pytest.raises(ValueError) as unknown:
        block.append_op(type="no_such_op")
    assert str(unknown.value) == 'Operator "no_such_op" has not been registered.'


def test_parameter_broadcast_is_no_second_initializer():
    block = Program().global_block()
    init = paddle.nn.initializer.Constant(0.01)
    var = block.create_parameter(name="a", shape=[2, 2], dtype="float32", initializer=init)
    block.append_op(type="c_broadcast", inputs={"X": [var]}, outputs={"Out": [var]})
    block.append_op(type="c_sync_comm_stream", inputs={"X": [var]}, outputs={"Out": [var]})
    block.create_parameter(name="a", shape=[2, 2], dtype="float32", initializer=init)
    assert [op.type for op in block.ops] == ["fill_constant", "c_broadcast", "c_sync_comm_stream"]
    block.append_op(type="fill_constant", outputs={"Out": [var]},
                    attrs={"shape": [2, 2], "value": 1.0, "dtype": "float32"})
    with pytest.raises(RuntimeError, match="initialized by several ops"):
        block.create_parameter(name="a", shape=[2, 2], dtype="float32", initializer=init)


def test_device_guard_places_ops_and_warns_for_kernelless_ops():
    main, startup = Program(), Program()
    with program_guard(main, startup):
        i = paddle.full([1], 0, "int64")
        with pytest.warns(UserWarning, match=r"The Op\(while\) is not support to set device."):
            with static.device_guard("gpu:1"):
                x = static.create_parameter([2], "float32", name="w")
                cond = paddle.less_than(i, paddle.full([1], 3, "int64"))
                loop = paddle.fluid.layers.While(cond)
                with loop.block():
                    paddle.increment(i)
                    paddle.fluid.layers.less_than(i, paddle.full([1], 3, "int64"), cond=cond)
                loss = paddle.mean(x * 2.0)
        paddle.optimizer.SGD(0.1).minimize(loss)
    devices = {op.type: op.attr("op_device") for op in main.global_block().ops}
    assert devices["while"] == "" and devices["less_than"] == "gpu:1"
    # grad ops follow their forward op, the loss gradient the loss op
    assert devices["reduce_mean_grad"] == devices["fill_constant"] == "gpu:1"
    assert devices["sgd"] == ""
    # w's initializer, built inside the guard (the learning rate's, outside it, is not)
    startup_devices = {op.output_arg_names[0]: op.attr("op_device")
                       for op in startup.global_block().ops}
    assert startup_devices.pop("w") == "gpu:1" and set(startup_devices.values()) == {""}


def test_force_cpu_inside_a_device_guard_warns_that_the_guard_wins():
    # Paddle 1.8.5 / 2.0 (2.0's test_device_guard test_warning): fill_constant's
    # force_cpu=True and less_than's given force_cpu warn; fill_constant's default does not
    import warnings
    warning = "'device_guard' has higher priority when they are used at the same time."
    with program_guard(Program(), Program()):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with static.device_guard("gpu"):
                x = paddle.fluid.layers.fill_constant([1], "float32", 3.0, force_cpu=True)
                y = paddle.fluid.layers.fill_constant([1], "float32", 4.0)
                paddle.fluid.layers.less_than(x, y, force_cpu=False)
                paddle.fluid.layers.less_than(x, y)
            paddle.fluid.layers.fill_constant([1], "float32", 3.0, force_cpu=True)
    found = [str(w.message) for w in caught if warning in str(w.message)]
    assert [m.split("Op(")[1].split(")")[0] for m in found] == ["fill_constant", "less_than"]


def test_variable_info_is_kept_per_variable():
    main = Program()
    with program_guard(main, Program()):
        x = static.data("x", [2], "float32")
        y = static.data("y", [2], "float32")
    x._set_info("name", "test")
    assert x._get_info("name") == "test"
    assert x._get_info("not_exist") is None and y._get_info("name") is None
