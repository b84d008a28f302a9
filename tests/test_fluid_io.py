"""fluid.io (1.8): variables saved and loaded by directory, inference models, and the
generator loaders (specs/fluid_io.md)."""
import os
import warnings

import numpy as np
import pytest

from refimpl import fluid


def _files(path):
    """The files in a saved directory: exactly Paddle's (the manifest of a directory
    checkpoint is a journal, removed once the save completes: framework/checkpoint.py)."""
    return sorted(os.listdir(path))


def _net():
    x = fluid.data("x", [None, 3], "float32")
    y = fluid.layers.fc(x, 2, name="fc")
    exe = fluid.Executor()
    exe.run(fluid.default_startup_program())
    return x, y, exe


def test_save_and_load_params_file_per_variable_and_combined(tmp_path):
    x, y, exe = _net()
    program = fluid.default_main_program()
    params = {p.name: np.array(fluid.global_scope().find_var(p.name).get_tensor())
              for p in program.all_parameters()}
    fluid.io.save_params(exe, str(tmp_path / "each"), program)
    assert _files(tmp_path / "each") == sorted(params)
    fluid.io.save_persistables(exe, str(tmp_path / "one"), program, filename="all")
    assert _files(tmp_path / "one") == ["all"]
    for name in params:
        fluid.global_scope().find_var(name).get_tensor().set(np.zeros_like(params[name]))
    fluid.io.load_params(exe, str(tmp_path / "each"), program)
    for name, value in params.items():
        np.testing.assert_array_equal(np.array(fluid.global_scope().find_var(name).get_tensor()),
                                      value)
    fluid.io.load_persistables(exe, str(tmp_path / "one"), program, filename="all")


def test_load_checks_every_file_before_setting_any(tmp_path):
    x, y, exe = _net()
    program = fluid.default_main_program()
    fluid.io.save_params(exe, str(tmp_path), program)
    w, b = program.all_parameters()
    os.remove(tmp_path / b.name)
    before = np.array(fluid.global_scope().find_var(w.name).get_tensor())
    fluid.global_scope().find_var(w.name).get_tensor().set(before + 1)
    with pytest.raises(FileNotFoundError, match=b.name):
        fluid.io.load_params(exe, str(tmp_path), program)
    # the weight was not set from its (present) file
    np.testing.assert_array_equal(np.array(fluid.global_scope().find_var(w.name).get_tensor()),
                                  before + 1)


def test_load_vars_refuses_a_wrong_shape(tmp_path):
    x, y, exe = _net()
    w = fluid.default_main_program().all_parameters()[0]
    fluid.io.save_vars(exe, str(tmp_path), vars=[w])
    other = fluid.Program()
    with fluid.program_guard(other, fluid.Program()):
        wrong = other.global_block().create_parameter(name=w.name, shape=[4, 4],
                                                      dtype="float32")
    with pytest.raises(ValueError, match="expects shape"):
        fluid.io.load_vars(exe, str(tmp_path), vars=[wrong])


def test_inference_model_round_trip(tmp_path):
    x, y, exe = _net()
    data = np.arange(6, dtype="float32").reshape(2, 3)
    (want,) = exe.run(feed={"x": data}, fetch_list=[y])
    names = fluid.io.save_inference_model(str(tmp_path), ["x"], [y], exe)
    assert names == [y.name] and "__model__" in os.listdir(tmp_path)
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        program, feeds, fetches = fluid.io.load_inference_model(str(tmp_path), exe)
        (got,) = exe.run(program, feed={feeds[0]: data}, fetch_list=fetches)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    fluid.io.save_inference_model(str(tmp_path / "c"), ["x"], [y], exe,
                                  model_filename="m", params_filename="p")
    assert _files(tmp_path / "c") == ["m", "p"]
    with pytest.raises(ValueError, match="no model file"):
        fluid.io.load_inference_model(str(tmp_path / "missing"), exe)


def test_a_feed_the_targets_do_not_read_is_refused(tmp_path):
    """Paddle 1.8.5 (ValueError "var y not in this block", measured) and 2.0 (its
    prepend_feed_ops' ValueError) refuse to save a feed that pruning drops; nothing is
    written."""
    x, y, exe = _net()
    fluid.data("unused", [None, 3], "float32")
    with pytest.raises(ValueError, match="'unused', is not involved in the target_vars"):
        fluid.io.save_inference_model(str(tmp_path / "m"), ["x", "unused"], [y], exe)
    assert not (tmp_path / "m").exists()


def test_inference_model_through_memory_and_prune_with_input(tmp_path):
    x, y, exe = _net()
    loss = fluid.layers.mean(y)
    data = np.arange(6, dtype="float32").reshape(2, 3)
    (want,) = exe.run(feed={"x": data}, fetch_list=[loss])
    fluid.io.save_inference_model(str(tmp_path), ["x"], [loss], exe, model_filename="model",
                                  params_filename="params")
    pruned = fluid.default_main_program()._prune_with_input(["x"], [y])
    assert [op.type for op in pruned.global_block().ops] == ["mul", "elementwise_add"]
    params = fluid.io.save_persistables(exe, None, pruned, None)
    assert isinstance(params, bytes)
    model = (tmp_path / "model").read_bytes()
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        program, feeds, fetches = fluid.io.load_inference_model(None, exe, model, params)
        (got,) = exe.run(program, feed={feeds[0]: data}, fetch_list=fetches)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    with pytest.raises(ValueError, match="params_filename is None"):
        fluid.io.load_inference_model(None, exe, model, None)
    with pytest.raises(ValueError, match="can only be str"):
        fluid.default_main_program()._prune_with_input([2, 3], [])


def test_dataloader_from_generator_iterable_and_started():
    x = fluid.data("x", [None, 2], "float32")
    total = fluid.layers.reduce_sum(x)
    exe = fluid.Executor()
    samples = [(np.full(2, i, "float32"),) for i in range(5)]
    loader = fluid.io.DataLoader.from_generator(feed_list=[x], capacity=4)
    loader.set_sample_generator(lambda: iter(samples), batch_size=2, drop_last=False)
    sums = [float(exe.run(feed=feed, fetch_list=[total])[0]) for feed in loader()]
    assert sums == [2.0, 10.0, 8.0]          # (0+1)*2, (2+3)*2, 4*2
    dropping = fluid.io.DataLoader.from_generator(feed_list=[x], capacity=4)
    dropping.set_sample_generator(lambda: iter(samples), batch_size=2)  # drop_last=True
    assert [float(exe.run(feed=feed, fetch_list=[total])[0]) for feed in dropping()] == \
        [2.0, 10.0]
    with pytest.raises(ValueError, match="set_sample_generator: batch_size must be a "
                       "positive int, got 0"):
        dropping.set_sample_generator(lambda: iter(samples), batch_size=0)
    started = fluid.io.DataLoader.from_generator(feed_list=[x], capacity=4, iterable=False)
    started.set_batch_generator(lambda: iter([(np.ones((3, 2), "float32"),)] * 2))
    started.start()
    got = [float(exe.run(fetch_list=[total])[0]) for _ in range(2)]
    with pytest.raises(fluid.core.EOFException):
        exe.run(fetch_list=[total])
    started.reset()
    assert got == [6.0, 6.0]
    with pytest.raises(ValueError, match="capacity"):
        fluid.io.DataLoader.from_generator(feed_list=[x], capacity=0)
    with pytest.raises(RuntimeError, match="not iterable"):
        iter(started).__next__()


def test_paddle_batch_and_reader_decorators():
    import refimpl as paddle
    reader = lambda: iter(range(7))
    assert list(paddle.batch(reader, 3)()) == [[0, 1, 2], [3, 4, 5], [6]]
    assert list(paddle.batch(reader, 3, drop_last=True)()) == [[0, 1, 2], [3, 4, 5]]
    with pytest.raises(ValueError, match="positive integeral"):
        paddle.batch(reader, 0)
    composed = paddle.reader.compose(lambda: iter([1, 2]), lambda: iter([(3, 4), (5, 6)]))
    assert list(composed()) == [(1, 3, 4), (2, 5, 6)]
    with pytest.raises(paddle.reader.ComposeNotAligned):
        list(paddle.reader.compose(lambda: iter([1]), lambda: iter([1, 2]))())
    assert list(paddle.reader.firstn(reader, 2)()) == [0, 1]
    assert list(paddle.reader.chain(reader, reader)())[6:8] == [6, 0]
    assert sorted(paddle.reader.shuffle(reader, 3)()) == list(range(7))
    assert list(paddle.reader.map_readers(lambda a, b: a + b, reader, reader)())[3] == 6
    assert list(paddle.reader.cache(reader)()) == list(range(7))


def test_get_parameter_value_by_name():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        block = main.global_block()
        block.create_parameter(name="w", shape=[2, 3], dtype="float32",
                               initializer=fluid.initializer.Constant(1.0625))
        with pytest.raises(ValueError, match="shape must not be None"):
            block.create_parameter(name="bad", shape=None, dtype="float32")
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        exe.run(main)          # Block.create_parameter puts the initializer in main
        got = fluid.io.get_parameter_value_by_name("w", exe, main)
        np.testing.assert_array_equal(got, np.full((2, 3), 1.0625, "float32"))
        # as 1.8.5 and 2.0 (measured 1.8.5): the program's global block's var(name), and a
        # Program only (theirs read a CompiledProgram's global_block: AttributeError)
        with pytest.raises(ValueError, match="'nope' is not in block 0"):
            fluid.io.get_parameter_value_by_name("nope", exe, main)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(TypeError, match="program must be a Program, got "
                                                "CompiledProgram"):
                fluid.io.get_parameter_value_by_name("w", exe, fluid.CompiledProgram(main))


def test_save_inference_model_takes_a_compiled_program_with_a_warning(tmp_path):
    # 1.8.5 (measured): fluid.io.save_inference_model warns and saves the CompiledProgram's
    # program; another type: its TypeError naming main_program
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [None, 2], "float32")
        y = fluid.layers.fc(x, 1)
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        with pytest.warns(UserWarning, match="The input is a CompiledProgram, this is not "
                                             "recommended."):
            assert fluid.io.save_inference_model(str(tmp_path), ["x"], [y], exe,
                                                 fluid.CompiledProgram(main)) == [y.name]
        with pytest.raises(TypeError, match="The type of input main_program is invalid, "
                                            "expected type is fluid.Program, but received "
                                            "<class 'str'>"):
            fluid.io.save_inference_model(str(tmp_path), ["x"], [y], exe, "p")


def test_as_lodtensor_of_scalars_and_arrays(paddle_version):
    from refimpl.fluid import core, executor
    tensor = executor._as_lodtensor(1.0, fluid.CPUPlace(), core.VarDesc.VarType.INT32)
    assert tensor._dtype() == core.VarDesc.VarType.INT32
    np.testing.assert_array_equal(np.array(tensor), np.array([1], "int32"))
    assert np.array(executor._as_lodtensor(np.ones((2, 3)), fluid.CPUPlace())).shape == (2, 3)
    with pytest.raises(AssertionError, match="dtype should be given"):
        executor._as_lodtensor(1, fluid.CPUPlace())
    with paddle_version("1.8"), pytest.raises(RuntimeError, match="LoD"):   # from 2.0: an array
        executor._as_lodtensor([np.ones(2)], fluid.CPUPlace())


def test_a_wrong_shape_in_parameter_files_is_a_runtime_error_as_in_paddle_18(tmp_path):
    """Paddle 1.8's load_vars raises RuntimeError for a parameter of another shape, and
    load / load_program_state turn an unreadable fluid.io file into one."""
    x, y, exe = _net()
    program = fluid.default_main_program()
    fluid.io.save_persistables(exe, str(tmp_path / "each"), program)
    fluid.io.save_persistables(exe, str(tmp_path / "one"), program, filename="all")
    w = program.all_parameters()[0]
    w.desc.set_shape([4, 4])
    assert w.shape == (4, 4)
    with pytest.raises(RuntimeError, match="expects shape \\[4, 4\\]"):
        fluid.load(program, str(tmp_path / "each"), exe)
    extra = program.global_block().create_var(name="extra", shape=[1], persistable=True)
    with pytest.raises(RuntimeError, match="all"):
        fluid.load_program_state(str(tmp_path / "one" / "all"), var_list=[extra])
    with pytest.raises(TypeError, match="must be a Variable, got str 'str'"):
        fluid.load_program_state(str(tmp_path / "one" / "all"), var_list=["str"])


def test_save_prefix_beside_a_directory_and_load_prefers_the_pdparams(tmp_path):
    x, y, exe = _net()
    program = fluid.default_main_program()
    w = program.all_parameters()[0]
    scope = fluid.global_scope()
    scope.find_var(w.name).get_tensor().set(np.full((3, 2), 7.0, "float32"))
    fluid.io.save_persistables(exe, str(tmp_path / "ckpt"), program)   # a directory
    scope.find_var(w.name).get_tensor().set(np.full((3, 2), 2.0, "float32"))
    fluid.save(program, str(tmp_path / "ckpt"))                          # ckpt.pd* beside it
    assert {"ckpt.pdparams", "ckpt.pdopt", "ckpt.pdmodel"} <= set(os.listdir(tmp_path))
    scope.find_var(w.name).get_tensor().set(np.zeros((3, 2), "float32"))
    fluid.load(program, str(tmp_path / "ckpt"), exe)
    np.testing.assert_array_equal(np.array(scope.find_var(w.name).get_tensor()), 2.0)


def test_create_loaded_parameter_gives_each_variable_a_tensor_to_set():
    x, y, exe = _net()
    program = fluid.default_main_program()
    params = program.all_parameters()
    scope = fluid.core.Scope()
    fluid.core._create_loaded_parameter(params, scope, exe._default_executor)
    for p in params:
        tensor = scope.find_var(p.name).get_tensor()
        assert np.array(tensor).shape == p.shape and tensor._place().is_cpu_place()
        assert not tensor._place().is_gpu_place()
    assert [fluid.io.is_belong_to_optimizer(v) for v in (params[0], x)] == [False, False]
    lr = program.global_block().create_var(name="lr", shape=[1], persistable=True)
    assert fluid.io.is_belong_to_optimizer(lr)


def test_inference_model_not_for_deployment_saves_the_whole_program(tmp_path):
    """export_for_deployment=False (Paddle 1.8 / 2.0, fluid/tests/book/test_recognize_digits):
    no feeds or targets needed; the unpruned program as __model__.main_program (no feed /
    fetch ops) beside its persistables."""
    x, y, exe = _net()
    loss = fluid.layers.mean(y)
    program = fluid.default_main_program()
    names = fluid.io.save_inference_model(str(tmp_path), [], [], exe,
                                          export_for_deployment=False)
    assert names == []
    params = sorted(p.name for p in program.all_parameters())
    assert _files(tmp_path) == sorted(["__model__.main_program"] + params)
    saved = fluid.Program.parse_from_string((tmp_path / "__model__.main_program").read_bytes())
    assert [op.type for op in saved.global_block().ops] == \
        [op.type for op in program.global_block().ops]
    assert loss.name in saved.global_block().vars
    fluid.io.save_inference_model(str(tmp_path / "c"), ["x"], [y], exe, model_filename="m",
                                  params_filename="p", export_for_deployment=False)
    assert _files(tmp_path / "c") == ["m.main_program", "p"]
