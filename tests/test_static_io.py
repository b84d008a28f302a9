"""paddle.static save / load / serialize, paddle.save / load (formats: specs/io.md)."""
import io
import json
import os
import pickle
import zipfile

import numpy as np
import pytest

import refimpl as paddle
from refimpl import versions
from refimpl.framework import serialization
from refimpl.framework.paddle_formats import tensor_stream
from refimpl.framework.errors import OpError
from refimpl.framework.program import OpRole, Operator, Parameter, Program, program_guard
from refimpl.framework.scope import Scope, scope_guard
from refimpl.ops.registry import all_op_types, get_op_def, is_duplicable, slot_name
from refimpl.static import io as static_io

static = paddle.static


def _build_classifier(with_optimizer=True):
    main, startup = Program(), Program()
    with program_guard(main, startup):
        x = static.data("x", [None, 4])
        y = static.data("y", [None, 1], dtype="int64")
        with static.name_scope("body"):
            h = static.nn.fc(x, 8, act="relu", weight_attr=paddle.ParamAttr(
                regularizer=paddle.regularizer.L2Decay(0.01)))
            h = static.nn.batch_norm(h)
        logits = static.nn.fc(h, 3)
        loss = paddle.mean(paddle.nn.functional.cross_entropy(logits, y))
        if with_optimizer:
            paddle.optimizer.Adam(0.01).minimize(loss)
    return main, startup, x, logits, loss


def _batch(seed, n=6):
    rng = np.random.RandomState(seed)
    return {"x": rng.randn(n, 4).astype("float32"),
            "y": rng.randint(0, 3, (n, 1)).astype("int64")}


def _fields(var):
    keys = ["name", "type", "shape", "dtype", "lod_level", "persistable", "stop_gradient",
            "is_data", "need_check_feed"]
    d = {k: getattr(var, k) for k in keys}
    if isinstance(var, Parameter):
        d.update(trainable=var.trainable, optimize_attr=var.optimize_attr,
                 need_clip=var.need_clip, regularizer=(type(var.regularizer).__name__,
                                                       getattr(var.regularizer, "coeff", None)))
    return d


def _assert_same_program(a, b):
    assert a.random_seed == b.random_seed and a._is_test == b._is_test
    assert len(a.blocks) == len(b.blocks)
    for ba, bb in zip(a.blocks, b.blocks):
        assert (ba.idx, ba.parent_idx) == (bb.idx, bb.parent_idx)
        assert list(ba.vars) == list(bb.vars)
        for name in ba.vars:
            assert type(ba.vars[name]) is type(bb.vars[name])
            assert _fields(ba.vars[name]) == _fields(bb.vars[name])
        assert [op.type for op in ba.ops] == [op.type for op in bb.ops]
        for oa, ob in zip(ba.ops, bb.ops):
            assert (oa.inputs, oa.outputs) == (ob.inputs, ob.outputs)
            assert oa.attrs == ob.attrs
            # tuples stay tuples, ints stay ints
            assert [type(v) for v in oa.attrs.values()] == [type(v) for v in ob.attrs.values()]


def test_program_round_trip_keeps_everything():
    main, _, _, _, _ = _build_classifier()
    main.random_seed = 7
    data = serialization.program_to_bytes(main)
    back = static.deserialize_program(data)
    _assert_same_program(main, back)
    assert serialization.program_to_bytes(back) == data
    roles = {op.attr("op_role") for op in back.global_block().ops}
    assert {OpRole.Forward, OpRole.Backward, OpRole.Optimize} <= roles
    assert json.loads(data)["format"] == "refimpl.program"


def _sample_program(op_def, sample):
    """One op built from a registered sample, in a fresh program."""
    main = Program()
    block = main.global_block()
    inputs, outputs = {}, {}
    for s in op_def.inputs:
        value = sample.inputs.get(slot_name(s))
        if value is None:
            continue
        values = value if is_duplicable(s) else [value]
        names = []
        for j, v in enumerate(values):
            v = np.asarray(v)
            names.append(block.create_var(name="in_%s_%d" % (slot_name(s), j), shape=v.shape,
                                          dtype=v.dtype.name).name)
        inputs[slot_name(s)] = names
    for s in op_def.outputs:
        outputs[slot_name(s)] = [block.create_var(name="out_" + slot_name(s)).name]
    block.ops.append(Operator(block, op_def.type, inputs, outputs, sample.attrs, infer=False))
    return main


@pytest.mark.parametrize("op_type", [t for t in all_op_types()
                                     if list(get_op_def(t).samples(np.random.RandomState(0)))])
def test_every_op_sample_attrs_round_trip(op_type):
    op_def = get_op_def(op_type)
    for sample in op_def.samples(np.random.RandomState(0)):
        main = _sample_program(op_def, sample)
        _assert_same_program(main, static.deserialize_program(
            serialization.program_to_bytes(main)))


def test_special_attr_values_round_trip():
    values = {"inf": float("inf"), "ninf": -np.inf, "tup": (1, (2.5, "a")), "f32": np.float32(1.5),
              "dtype": paddle.float32, "arr": np.arange(6, dtype="int32").reshape(2, 3),
              "nested": {"k": [True, None]}}
    back = serialization.decode_value(json.loads(json.dumps(
        serialization.encode_value(values, "test"), allow_nan=False)))
    assert back["inf"] == float("inf") and back["ninf"] == -float("inf")
    assert back["tup"] == (1, (2.5, "a")) and isinstance(back["tup"][1], tuple)
    assert back["f32"] == 1.5 and back["dtype"] == paddle.float32
    np.testing.assert_array_equal(back["arr"], values["arr"])
    assert back["arr"].dtype == np.int32
    assert back["nested"] == {"k": [True, None]}
    nan = serialization.decode_value(serialization.encode_value(float("nan"), "t"))
    assert np.isnan(nan)
    with pytest.raises(serialization.SerializationError, match="reserved"):
        serialization.encode_value({"@tuple": 1}, "attr x")
    with pytest.raises(serialization.SerializationError, match="cannot save an object of type"):
        serialization.encode_value(object(), "attr x")


def _train(main, startup_or_none, scope, steps, loss_name):
    exe = static.Executor()
    with scope_guard(scope):
        if startup_or_none is not None:
            exe.run(startup_or_none)
        return [float(exe.run(main, feed=_batch(i), fetch_list=[loss_name])[0])
                for i in range(steps)]


def _trained_and_saved(seed, prefix, steps=1):
    """A seeded classifier trained `steps` steps, then saved to `prefix`: (main, scope, loss)."""
    paddle.seed(seed)
    main, startup, _, _, loss = _build_classifier()
    scope = Scope()
    _train(main, startup, scope, steps, loss.name)
    with scope_guard(scope):
        static.save(main, prefix)
    return main, scope, loss


def test_saved_program_trains_the_same(tmp_path):
    prefix = str(tmp_path / "ckpt" / "model")
    main, scope, loss = _trained_and_saved(1, prefix, steps=2)
    assert sorted(os.listdir(tmp_path / "ckpt")) == ["model.pdmanifest", "model.pdmodel",
                                                      "model.pdopt", "model.pdparams"]
    # continue the original and a copy rebuilt from the files: same losses, bit for bit
    expected = _train(main, None, scope, 4, loss.name)
    loaded = static.deserialize_program(static.load_from_file(prefix + ".pdmodel"))
    fresh = Scope()
    with scope_guard(fresh):
        static.load(loaded, prefix)
    got = _train(loaded, None, fresh, 4, loss.name)
    assert got == expected
    assert expected[0] != expected[-1]      # it did train


def test_static_load_checks_and_var_list(tmp_path):
    prefix = str(tmp_path / "m")
    main, scope, _ = _trained_and_saved(2, prefix)
    w = main.all_parameters()[0]
    fresh = Scope()
    with scope_guard(fresh):
        static.load(main, prefix + ".pdparams", var_list=[w])
        assert fresh.local_var_names() == [w.name]
        np.testing.assert_array_equal(np.asarray(fresh.find_var(w.name).get_tensor()),
                                      scope._values[w.name])
    # a program whose parameter has another shape: named, expected vs got
    other = Program()
    with program_guard(other, Program()):
        static.nn.fc(static.data("x", [None, 5]), 8, weight_attr=w.name, bias_attr=False)
    with scope_guard(Scope()), pytest.raises(ValueError) as e:
        static.load(other, prefix)
    assert "variable %r expects shape [5, 8] dtype float32, got shape [4, 8] dtype float32" \
        % w.name in str(e.value)
    with pytest.raises(FileNotFoundError, match="nowhere.pdparams"):
        static.load(main, str(tmp_path / "nowhere"))


def test_program_state(tmp_path):
    prefix = str(tmp_path / "m")
    main, scope, _ = _trained_and_saved(3, prefix)
    state = static.load_program_state(prefix)
    persistables = {v.name for v in main.global_block().vars.values() if v.persistable}
    assert set(state) == persistables
    for name, value in state.items():
        np.testing.assert_array_equal(value, scope._values[name])
    fresh = Scope()
    with scope_guard(fresh):
        static.set_program_state(main, state)
        for name in persistables:
            np.testing.assert_array_equal(fresh._values[name], state[name])
        w = main.all_parameters()[0]
        bad = dict(state)
        bad[w.name] = bad[w.name].astype("float64")
        with pytest.raises(ValueError, match="%r expects shape .* dtype float32, got .* "
                                             "dtype float64" % w.name):
            static.set_program_state(main, bad)
        with pytest.warns(UserWarning, match="not in the program"):
            static.set_program_state(main, dict(state, extra=np.zeros(1)))
    only = static.load_program_state(prefix, var_list=[w])
    assert list(only) == [w.name]


def test_inference_model_matches_original(tmp_path):
    paddle.seed(4)
    main, startup, x, logits, loss = _build_classifier()
    scope = Scope()
    _train(main, startup, scope, 3, loss.name)
    feed = {"x": _batch(9)["x"]}
    test_program = main.clone(for_test=True)
    exe = static.Executor()
    with scope_guard(scope):
        expected, = exe.run(test_program, feed=dict(feed, y=_batch(9)["y"]),
                            fetch_list=[logits])
        with paddle.pir_utils.OldIrGuard():     # the ProgramDesc, also under 3
            static.save_inference_model(str(tmp_path / "infer"), [x], [logits], exe,
                                        program=main)
    fresh = Scope()
    with scope_guard(fresh):
        program, feed_names, fetch_targets = static.load_inference_model(
            str(tmp_path / "infer"), exe)
        got, = exe.run(program, feed=feed, fetch_list=fetch_targets)
    np.testing.assert_array_equal(got, expected)
    assert feed_names == ["x"] and [v.name for v in fetch_targets] == [logits.name]
    block = program.global_block()
    assert "y" not in block.vars
    assert all(op.attr("op_role") & 3 == 0 for op in block.ops)      # no backward/optimize
    assert all(op.attr("is_test") for op in block.ops if op.has_attr("is_test"))
    # only the parameters inference uses (no optimizer moments, no learning rate)
    saved = static_io.read_inference_model(
        *static_io.inference_model_files(str(tmp_path / "infer")))[3]
    assert set(saved) == {v.name for v in block.vars.values() if v.persistable}
    assert not any("moment" in n or "learning_rate" in n for n in saved)


def test_prune_needs_feeds():
    main, _, x, logits, _ = _build_classifier(with_optimizer=False)
    h = [op for op in main.global_block().ops if op.type == "relu"][0].output("Out")[0]
    # fetch from a cut in the middle: only the ops after the feed remain
    pruned, _, _ = static_io.normalize_program(main, [main.global_block().var(h)], [logits])
    assert "relu" not in [op.type for op in pruned.global_block().ops]
    assert "x" not in pruned.global_block().vars
    with pytest.raises(ValueError, match="neither fed"):
        static_io.normalize_program(main, [main.global_block().var("y")], [logits])
    with pytest.raises(ValueError, match="feed_vars must be a Variable"):   # as Paddle
        static.serialize_program(["x"], [logits], program=main)


def test_serialize_persistables_round_trip():
    paddle.seed(5)
    main, startup, x, logits, loss = _build_classifier()
    scope = Scope()
    _train(main, startup, scope, 1, loss.name)
    exe = static.Executor()
    with scope_guard(scope):
        program_bytes = static.serialize_program([x], [logits], program=main)
        param_bytes = static.serialize_persistables([x], [logits], exe, program=main)
    program = static.deserialize_program(program_bytes)
    fresh = Scope()
    with scope_guard(fresh):
        static.deserialize_persistables(program, param_bytes, exe)
    for v in program.global_block().vars.values():
        if v.persistable:
            np.testing.assert_array_equal(fresh._values[v.name], scope._values[v.name])
    # Paddle's combined stream: exactly the inference persistables, in name order
    names = sorted(v.name for v in program.list_vars() if v.persistable)
    stored = tensor_stream.read_combined(io.BytesIO(param_bytes), len(param_bytes), names)
    np.testing.assert_array_equal(stored[names[0]].array, scope._values[names[0]])
    smaller = program.clone()
    del smaller.global_block().vars[names[-1]]
    with pytest.raises(serialization.FileFormatError,
                       match="after the %d tensors" % (len(names) - 1)):
        static.deserialize_persistables(smaller, param_bytes, exe)
    with pytest.raises(serialization.FileFormatError, match="no data for"):
        static.deserialize_persistables(main, param_bytes, exe)


def test_save_to_file_and_bad_bytes(tmp_path):
    path = str(tmp_path / "sub" / "blob")
    static.save_to_file(path, b"\x00\x01abc")
    assert static.load_from_file(path) == b"\x00\x01abc"
    with pytest.raises(ValueError, match="'content' type should be bytes"):
        static.save_to_file(path, "text")
    with pytest.raises(serialization.FileFormatError, match="ProgramDesc: field number 0"):
        static.deserialize_program(b"\x00\x01abc")
    with pytest.raises(serialization.FileFormatError, match="not a refimpl program"):
        static.deserialize_program(b'{"format": "other"}')


def test_paddle_save_load_nested(tmp_path):
    obj = {"w": np.arange(6, dtype="float32").reshape(2, 3),
           "opt": {"step": 3, "lr": 0.5, "moments": [np.ones(2, "float64"), np.zeros(0)],
                   "shape": (2, 3), "name": "adam", "none": None}}
    path = str(tmp_path / "d" / "obj.pdparams")
    paddle.save(obj, path)
    back = paddle.load(path)
    np.testing.assert_array_equal(back["w"], obj["w"])
    assert back["w"].dtype == np.float32
    assert back["opt"]["step"] == 3 and back["opt"]["lr"] == 0.5
    assert back["opt"]["shape"] == (2, 3) and back["opt"]["none"] is None
    np.testing.assert_array_equal(back["opt"]["moments"][0], np.ones(2))
    assert back["opt"]["moments"][1].shape == (0,)


def test_paddle_save_state_dict_is_paddles_pickle(tmp_path):
    state = {"fc.w": np.eye(2, dtype="float32"), "fc.b": np.zeros(2, "float32")}
    path = str(tmp_path / "s.pdparams")
    paddle.save(state, path)
    with open(path, "rb") as f:         # what Paddle's paddle.load does (our own file)
        plain = pickle.load(f)
    assert sorted(plain) == ["fc.b", "fc.w"] and plain["fc.w"].dtype == np.float32
    back = paddle.load(path)
    assert sorted(back) == ["fc.b", "fc.w"]
    np.testing.assert_array_equal(back["fc.w"], np.eye(2))


def test_paddle_save_refuses_unsupported(tmp_path):
    path = str(tmp_path / "x")
    with pytest.raises(serialization.SerializationError, match=r"obj\)\['f'\].*function"):
        paddle.save({"f": len}, path)
    with pytest.raises(serialization.SerializationError, match="dtype object"):
        paddle.save({"a": np.array([{}, 1], dtype=object)}, path)
    with pytest.raises(serialization.SerializationError, match="cannot save a Program"):
        paddle.save(Program(), path)
    with pytest.raises(serialization.SerializationError, match="dict keys must be str or int"):
        paddle.save({(1, 2): np.ones(1)}, path)
    with pytest.raises(ValueError, match="protocol must be 2, 3 or 4"):
        paddle.save({"a": np.ones(1)}, path, protocol=5)


def test_load_never_unpickles(tmp_path):
    """An archive holding a pickled object array is refused, not executed."""
    path = str(tmp_path / "evil.npz")
    np.savez(path, a=np.array([object()], dtype=object))     # numpy pickles this member
    with pytest.raises(serialization.SerializationError, match="allow_pickle"):
        paddle.load(path)
    raw = str(tmp_path / "raw")
    with open(raw, "wb") as f:
        f.write(b"not a zip")
    with pytest.raises(serialization.SerializationError, match="not a paddle.save file"):
        paddle.load(raw)
    with zipfile.ZipFile(str(tmp_path / "empty.npz"), "w"):
        pass
    assert paddle.load(str(tmp_path / "empty.npz")) == {}


# -- py_func


def _py_func_net(backward_func, skip_input=False):
    """x -> h = 2x -> t = py_func(tanh, h) -> loss = sum(t^2), and d loss / dx."""
    main, startup = Program(), Program()
    with program_guard(main, startup):
        x = static.data("x", [None, 3])
        x.stop_gradient = False
        h = paddle.scale(x, 2.0)
        t = main.global_block().create_var(name="t", shape=[-1, 3], dtype="float32")
        static.py_func(np.tanh, h, t, backward_func=backward_func,
                       skip_vars_in_backward_input=[h] if skip_input else None)
        loss = paddle.sum(t * t)
        grad, = static.gradients([loss], [x])
    return main, t, grad


def _run_py_func_net(main, fetch):
    x = np.random.RandomState(0).randn(2, 3).astype("float32")
    return x, static.Executor().run(main, feed={"x": x}, fetch_list=fetch, scope=Scope())


@pytest.mark.parametrize("skip_input", [False, True])
def test_py_func_forward_and_backward(skip_input):
    received = []

    def tanh_grad(*args):          # (h, t, dt), or (t, dt) with h skipped
        received.append(len(args))
        t, dt = args[-2:]
        return dt * (1 - t * t)
    main, t, grad = _py_func_net(tanh_grad, skip_input)
    x, (got_t, got_grad) = _run_py_func_net(main, [t, grad])
    tanh = np.tanh(2 * x)
    np.testing.assert_allclose(got_t, tanh, rtol=1e-6)
    # d/dx sum(tanh(2x)^2) = 2 tanh * (1 - tanh^2) * 2
    np.testing.assert_allclose(got_grad, 4 * tanh * (1 - tanh ** 2), rtol=1e-5, atol=1e-6)
    assert received == [2 if skip_input else 3]
    op = [op for op in main.global_block().ops if op.type == "py_func"][0]
    assert op.attr("backward_skip_vars") == (op.input("X") if skip_input else [])


def test_py_func_without_backward_stops_gradient():
    main = Program()
    with program_guard(main, Program()):
        t = main.global_block().create_var(name="t", shape=[-1, 3], dtype="float32")
        static.py_func(np.tanh, static.data("x", [None, 3]), t)
    assert t.stop_gradient
    # a backward that returns None: zero gradient
    main, t, grad = _py_func_net(lambda h, t, dt: None)
    _, (got_grad,) = _run_py_func_net(main, [grad])
    np.testing.assert_array_equal(got_grad, np.zeros((2, 3)))


def test_py_func_checks_what_the_function_returns():
    main = Program()
    with program_guard(main, Program()):
        x = static.data("x", [None, 3])
        out = main.global_block().create_var(name="o", shape=[-1, 3], dtype="float32")
        static.py_func(lambda a: a[:, :2], x, out)
    with pytest.raises(OpError, match="output 'o' expects shape \\[-1, 3\\], the forward "
                                      "function returned shape \\[2, 2\\]"):
        static.Executor().run(main, feed={"x": np.ones((2, 3), "float32")}, fetch_list=[out],
                              scope=Scope())
    with pytest.raises(ValueError, match="skip_vars_in_backward_input 'y' is neither"):
        with program_guard(Program(), Program()):
            a = static.data("a", [1])
            static.py_func(np.abs, a, a, backward_func=np.abs,
                           skip_vars_in_backward_input=static.data("y", [1]))


def test_py_func_program_serializes_and_runs_in_process():
    main, t, _ = _py_func_net(lambda h, t, dt: dt * (1 - t * t))
    back = static.deserialize_program(serialization.program_to_bytes(main))
    x = np.ones((1, 3), "float32")
    got, = static.Executor().run(back, feed={"x": x}, fetch_list=["t"], scope=Scope())
    np.testing.assert_allclose(got, np.tanh(2 * x), rtol=1e-6)
    op = [op for op in back.global_block().ops if op.type == "py_func"][0]
    op.attrs["forward_callable_id"] = 10 ** 9
    back._bump()
    with pytest.raises(OpError, match="callable id 1000000000 is not registered"):
        static.Executor().run(back, feed={"x": x}, fetch_list=["t"], scope=Scope())


# -- InputSpec, WeightNormParamAttr


def test_input_spec(paddle_version):
    spec = static.InputSpec([None, 784], "float32", "x")
    assert spec.shape == (-1, 784) and spec.dtype == paddle.float32 and spec.name == "x"
    assert spec.batch(16) is spec and spec.shape == (16, -1, 784)
    assert spec.unbatch().shape == (-1, 784)
    assert static.InputSpec([3]).batch([4]).shape == (4, 3)
    from_np = static.InputSpec.from_numpy(np.ones((2, 3), "int64"), name="n")
    assert (from_np.shape, from_np.dtype, from_np.name) == ((2, 3), paddle.int64, "n")
    with program_guard(Program(), Program()):
        v = static.data("img", [None, 3, 8, 8])
    assert static.InputSpec.from_tensor(v) == static.InputSpec([-1, 3, 8, 8], "float32", "img")
    assert static.InputSpec([1], "float32") != static.InputSpec([1], "int64")
    with pytest.raises(TypeError, match="shape must be a list or tuple, got int"):
        static.InputSpec(5)
    if not versions.switch("input_spec_zero_dim"):
        with pytest.raises(ValueError, match="must hold at least one dim, got \\[\\]"):
            static.InputSpec([])                  # Paddle 2.0 refuses a 0-D spec
        with pytest.raises(ValueError, match="must hold at least one dim"):
            static.InputSpec([3]).unbatch()
    else:                                         # 3.3.1: 0-D specs
        assert static.InputSpec([]).shape == static.InputSpec([3]).unbatch().shape == ()
    with pytest.raises(ValueError, match="expected a Tensor, got int"):
        static.InputSpec.from_tensor(3)
    # equal specs hash equal; the hash leaves the name out, as Paddle's
    assert hash(static.InputSpec([2], name="a")) == hash(static.InputSpec([2], name="b"))
    with paddle_version("3"):                 # 3.3.1 takes it (measured)
        assert static.InputSpec([]).shape == () and static.InputSpec([3]).unbatch().shape == ()
        with pytest.raises(ValueError, match="shape is empty"):
            static.InputSpec([]).unbatch()
    with pytest.raises(ValueError, match="must hold one int"):
        static.InputSpec([1]).batch([1, 2])


def test_weight_norm_param_attr_trains_like_paddle():
    # Paddle 1.8.5, the same program (float32): fc 4 -> 3 without bias, weight from W0,
    # mean squared error, one SGD step of 0.5; g before and after, by dim
    rng = np.random.RandomState(0)
    w0, x, y = rng.randn(4, 3).round(2), rng.randn(5, 4).round(2), rng.randn(5, 3).round(2)
    paddle_g = {None: ([4.113162040710449], [2.562832832336426]),
                1: ([3.030808210372925, 1.9232784509658813, 2.008307933807373],
                    [1.70582914352417, 1.4227229356765747, 1.3120558261871338]),
                0: ([2.053776979446411, 3.078132390975952, 0.9669539332389832,
                     1.5133405923843384], [0.05867172032594681, 2.5246622562408447,
                                           0.8873091340065002, 1.183880090713501])}
    for dim, (g_before, g_after) in paddle_g.items():
        main, startup = Program(), Program()
        with program_guard(main, startup):
            xv = static.data("x", [None, 4], "float32")
            yv = static.data("y", [None, 3], "float32")
            attr = static.WeightNormParamAttr(
                dim=dim, name="w", initializer=paddle.nn.initializer.Assign(w0.astype("float32")))
            out = static.nn.fc(xv, 3, weight_attr=attr, bias_attr=False)
            loss = paddle.mean(paddle.square(out - yv))
            paddle.optimizer.SGD(0.5).minimize(loss)
        assert sorted(p.name for p in main.all_parameters()) == ["w_g", "w_v"]
        scope = Scope()
        exe = static.Executor()
        exe.run(startup, scope=scope)
        g0 = np.array(scope.find_var("w_g").get_tensor())
        np.testing.assert_allclose(g0.ravel(), g_before, rtol=1e-6)
        got, = exe.run(main, feed={"x": x.astype("float32"), "y": y.astype("float32")},
                       fetch_list=[loss], scope=scope)
        np.testing.assert_allclose(float(got), 7.283690452575684, rtol=1e-6)
        np.testing.assert_allclose(np.array(scope.find_var("w_g").get_tensor()).ravel(),
                                   g_after, rtol=1e-5)
    with pytest.raises(TypeError, match="dim must be an int or None"):
        static.WeightNormParamAttr(dim="0")


@pytest.mark.parametrize("params_filename", [None, "__params__"])
def test_fluid_style_inference_directory_round_trip(tmp_path, params_filename):
    """save_inference_files writes what fluid.io.save_inference_model(dirname) writes;
    load_inference_model(dirname, exe, model_filename=...) reads it back."""
    paddle.seed(6)
    main, startup, x, logits, loss = _build_classifier()
    scope = Scope()
    _train(main, startup, scope, 2, loss.name)
    exe = static.Executor()
    feed = {"x": _batch(3)["x"]}
    with scope_guard(scope):
        expected, = exe.run(main.clone(for_test=True), feed=dict(feed, y=_batch(3)["y"]),
                            fetch_list=[logits])
        program, feeds, fetches = static_io.normalize_program(main, [x], [logits])
        static_io.save_inference_files(str(tmp_path / "model"), program, feeds, fetches,
                                       params_filename=params_filename)
    files = sorted(os.listdir(tmp_path / "model"))
    persistables = sorted(v.name for v in program.list_vars() if v.persistable)
    # exactly Paddle's files: a directory checkpoint's manifest is a journal, gone once saved
    assert files == sorted(["__model__"] + (
        persistables if params_filename is None else [params_filename]))
    kwargs = {"model_filename": "__model__", "params_filename": params_filename}
    with scope_guard(Scope()):
        loaded, feed_names, targets = static.load_inference_model(str(tmp_path / "model"),
                                                                  exe, **kwargs)
        got, = exe.run(loaded, feed=feed, fetch_list=targets)
    np.testing.assert_array_equal(got, expected)


def test_inference_model_argument_checks_and_loading_from_memory(tmp_path):
    """Paddle 2.0's (and 3.3.1's, measured) checks: ValueErrors for a path_prefix that is
    not a string or ends in '/', feed / fetch names instead of Variables, an existing
    directory in a file's place, unknown or deprecated load arguments; path_prefix None
    loads the model's and parameters' bytes; _serialize_persistables and
    _get_valid_program are 2.0's helpers its test_inference_model_io calls."""
    paddle.seed(5)
    main, startup, x, logits, loss = _build_classifier()
    scope = Scope()
    _train(main, startup, scope, 1, loss.name)
    exe = static.Executor()
    prefix = str(tmp_path / "m")
    with scope_guard(scope), static.program_guard(main, startup):
        for bad, why in ((None, "should be a string"), (prefix + "/", "not be a directory")):
            with pytest.raises(ValueError, match=why):
                static.save_inference_model(bad, [x], [logits], exe)
        for feeds, fetches in ((["x"], [logits]), ([x], "logits")):
            with pytest.raises(ValueError, match="must be a Variable"):
                static.save_inference_model(prefix, feeds, fetches, exe)
        # the program file: .json under 3 (switch inference_program_format)
        program_file = prefix + (".pdmodel" if versions.switch("inference_program_format")
                                 == "program_desc" else ".json")
        os.makedirs(program_file)
        with pytest.raises(ValueError, match="is an existing directory"):
            static.save_inference_model(prefix, [x], [logits], exe)
        os.rmdir(program_file)
        static.save_inference_model(prefix, [x], [logits], exe)
        model = static.serialize_program([x], [logits])
        params = static.serialize_persistables([x], [logits], exe)
        inference, _, _ = static_io.normalize_program(main, [x], [logits])
        assert static_io._serialize_persistables(inference, exe) == params
    for kwargs, why in (({"pserver_endpoints": None}, "'pserver_endpoints' is deprecated"),
                        ({"unsupported_param": None}, "'unsupported_param' is not supp")):
        with pytest.raises(ValueError, match=why):
            static.load_inference_model(prefix, exe, **kwargs)
    with pytest.raises(ValueError, match="params_filename cannot be None"):
        static.load_inference_model(None, exe)
    with pytest.raises(ValueError, match="should be a string"):
        static.load_inference_model([prefix], exe)
    feed_x = np.random.RandomState(0).randn(2, 4).astype("float32")
    results = []
    for args in ((prefix,), (None,)):
        kwargs = {} if args[0] else {"model_filename": model, "params_filename": params}
        with scope_guard(Scope()):
            program, feeds, fetches = static.load_inference_model(*args, exe, **kwargs)
            results.append(exe.run(program, feed={feeds[0]: feed_x}, fetch_list=fetches)[0])
    with scope_guard(scope):
        want, = exe.run(inference, feed={"x": feed_x}, fetch_list=[logits.name])
    for got in results:
        np.testing.assert_allclose(got, want, rtol=1e-6)
    with pytest.warns(UserWarning, match="no variable in your model"):
        assert static_io._serialize_persistables(static.Program(), None) is None
    compiled = static.CompiledProgram(main)
    with pytest.warns(UserWarning, match="CompiledProgram"):
        assert static_io._get_valid_program(compiled) is main
    assert static_io._get_valid_program(None) is static.default_main_program()
    with pytest.raises(TypeError, match="input program is invalid, expected type is "
                                        "fluid.Program, but received <class 'int'>"):
        static_io._get_valid_program(0)
    # 2.0's serialize_program, serialize_persistables and save_inference_model take a
    # CompiledProgram's program as well, with the warning
    with scope_guard(scope), pytest.warns(UserWarning, match="CompiledProgram"):
        assert static.serialize_program([x], [logits], program=compiled) == \
            static.serialize_program([x], [logits], program=main)
        assert static.serialize_persistables([x], [logits], exe, program=compiled) == params
        static.save_inference_model(str(tmp_path / "c"), [x], [logits], exe, program=compiled)


def _saved_fc_model(tmp_path, model_filename=None, params_filename=None, only_params=False):
    """A trained-looking fc: its parameters, saved by fluid.io in tmp_path/model."""
    from refimpl import fluid
    main, startup = Program(), Program()
    with program_guard(main, startup):
        x = paddle.static.data("x", [None, 3], "float32")
        y = paddle.static.nn.fc(x, 2)
    exe = paddle.static.Executor()
    dirname = str(tmp_path / "model")
    with scope_guard(Scope()):
        exe.run(startup)
        values = {p.name: np.array(paddle.static.global_scope().find_var(p.name).get_tensor())
                  for p in main.all_parameters()}
        if only_params:
            fluid.io.save_params(exe, dirname, main_program=main)
        else:
            fluid.io.save_inference_model(dirname, ["x"], [y], exe, main_program=main,
                                          model_filename=model_filename,
                                          params_filename=params_filename)
    return dirname, values


@pytest.mark.parametrize("model_filename, params_filename, only_params", [
    (None, None, False), ("m.model", None, False), (None, "m.params", False),
    ("m.model", "m.params", False), (None, None, True)])
@pytest.mark.skipif(not versions.switch("load_dygraph_directories"),
                    reason="Paddle 1.8.5's load_dygraph reads .pdparams / .pdopt only "
                           "(switch load_dygraph_directories)")
def test_load_of_a_saved_directory_gives_its_persistables(tmp_path, model_filename,
                                                          params_filename, only_params):
    from refimpl import fluid
    dirname, values = _saved_fc_model(tmp_path, model_filename, params_filename, only_params)
    configs = {k: v for k, v in (("model_filename", model_filename),
                                 ("params_filename", params_filename)) if v}
    loaded, opt = fluid.load_dygraph(dirname, **configs)
    assert opt is None and sorted(loaded) == sorted(values) and len(values) == 2
    for name, value in values.items():
        np.testing.assert_array_equal(loaded[name], value)
        np.testing.assert_array_equal(paddle.load(dirname, **configs)[name], value)


def test_load_dygraph_of_a_directory_is_paddle_2s(tmp_path, paddle_version):
    from refimpl import fluid
    dirname, _ = _saved_fc_model(tmp_path)
    with paddle_version("1.8"):          # 1.8.5's load_dygraph reads save_dygraph's files only
        with pytest.raises(FileNotFoundError, match="neither .*model.pdparams nor"):
            fluid.load_dygraph(dirname)
        with pytest.raises(TypeError, match=r"unexpected arguments \['model_filename'\]"):
            fluid.load_dygraph(dirname, model_filename="__model__")
    with pytest.raises(ValueError, match="Model saved directory '.*nowhere' is not exists"):
        static_io.load_directory_state(str(tmp_path / "nowhere"))
    with pytest.raises(TypeError, match=r"unexpected arguments \['bogus'\]"):
        fluid.load_dygraph(dirname, bogus=1)


@pytest.mark.parametrize("version", ["2.0", "3"])
def test_save_inference_model_without_variables_warns(tmp_path, paddle_version, version):
    """A program with no persistables: the model file alone, and Paddle's warning (2.0's
    and 3.3.1's _serialize_persistables words; Paddle 3's test_save_model_without_var)."""
    import warnings
    with paddle_version(version):
        main = Program()
        with program_guard(main, Program()):
            data = paddle.static.data("data", [-1, 2], "float32")
            plus = data + 1
        exe = paddle.static.Executor(paddle.CPUPlace())
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            paddle.static.save_inference_model(str(tmp_path / "m"), [data], [plus], exe,
                                               program=main)
        assert [str(w.message) for w in caught][-1] == (
            "no variable in your model, please ensure there are any variables in your model "
            "to save")
        assert not os.path.exists(str(tmp_path / "m.pdiparams"))
