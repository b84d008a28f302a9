"""Loads are all or nothing: a load that fails (a missing, truncated, mismatched or
inconsistent file, a wrong shape) leaves the scope and the program exactly as they were;
the manifest tells a complete checkpoint from a torn one (specs/io.md)."""
import io
import os

import numpy as np
import pytest

import refimpl as paddle
from refimpl.framework import checkpoint, serialization
from refimpl.framework.paddle_formats import tensor_stream
from refimpl.framework.program import Program, program_guard
from refimpl.framework.scope import Scope, scope_guard

static = paddle.static


def _trained(seed):
    """A small classifier with Adam (parameters + optimizer state), run one step: (main,
    x, logits, scope)."""
    paddle.seed(seed)
    main, startup = Program(), Program()
    with program_guard(main, startup):
        x = static.data("x", [None, 4])
        y = static.data("y", [None, 1], dtype="int64")
        logits = static.nn.fc(static.nn.fc(x, 8, act="relu"), 3)
        loss = paddle.mean(paddle.nn.functional.cross_entropy(logits, y))
        paddle.optimizer.Adam(0.01).minimize(loss)
    scope = Scope()
    exe = static.Executor()
    rng = np.random.RandomState(seed)
    with scope_guard(scope):
        exe.run(startup)
        exe.run(main, feed={"x": rng.randn(6, 4).astype("float32"),
                            "y": rng.randint(0, 3, (6, 1)).astype("int64")})
    return main, x, logits, scope


def _checkpoint_and_other_state(tmp_path):
    """A checkpoint of training state A at tmp_path/model, and a scope holding another
    state B of the same program: a failed load must leave B untouched."""
    main, x, logits, saved = _trained(1)
    prefix = str(tmp_path / "model")
    with scope_guard(saved):
        static.save(main, prefix)
    _, _, _, other = _trained(2)
    return main, prefix, saved, other


class _Unchanged:
    """Asserts that a scope holds the same array objects with the same values, and a
    program the same bytes, as when this was made."""

    def __init__(self, scope, program):
        self.scope, self.program = scope, program
        self.arrays = dict(scope._values)
        self.copies = {k: None if v is None else np.array(v) for k, v in self.arrays.items()}
        self.program_bytes = serialization.program_to_bytes(program)

    def check(self):
        assert list(self.scope._values) == list(self.arrays)
        for name, array in self.arrays.items():
            assert self.scope._values[name] is array, name
            if array is not None:
                np.testing.assert_array_equal(array, self.copies[name], err_msg=name)
        assert serialization.program_to_bytes(self.program) == self.program_bytes


def _damage(path, how):
    data = open(path, "rb").read()
    if how == "missing":
        os.remove(path)
    elif how == "truncated":
        open(path, "wb").write(data[:len(data) // 2])
    else:
        open(path, "wb").write(b"")


@pytest.mark.parametrize("how", ["missing", "truncated", "empty"])
@pytest.mark.parametrize("with_manifest", [True, False])
def test_a_bad_pdopt_leaves_parameters_and_optimizer_state_as_they_were(tmp_path, how,
                                                                        with_manifest):
    """The reported bug: parameters were set from .pdparams, then .pdopt failed."""
    main, prefix, _, other = _checkpoint_and_other_state(tmp_path)
    if not with_manifest:         # a checkpoint from an older refimpl
        os.remove(checkpoint.manifest_path(prefix))
    _damage(prefix + ".pdopt", how)
    unchanged = _Unchanged(other, main)
    expected = {"missing": FileNotFoundError,
                "truncated": checkpoint.TornCheckpointError if with_manifest
                else serialization.FileFormatError,
                "empty": checkpoint.TornCheckpointError if with_manifest
                else serialization.FileFormatError}[how]
    with scope_guard(other), pytest.raises(expected, match="model.pdopt"):
        static.load(main, prefix)
    unchanged.check()
    if how == "missing" and not with_manifest:     # .pdopt is optional there
        assert "fc_0.w_0" in static.load_program_state(prefix)
    else:
        with pytest.raises(expected, match="model.pdopt"):
            static.load_program_state(prefix)


def test_a_wrong_shape_in_pdopt_sets_nothing(tmp_path):
    main, prefix, saved, other = _checkpoint_and_other_state(tmp_path)
    os.remove(checkpoint.manifest_path(prefix))
    state = paddle.load(prefix + ".pdopt")
    moment = next(n for n in state if "moment1" in n)
    state[moment] = np.zeros((1, 1), state[moment].dtype)
    paddle.save(state, prefix + ".pdopt")
    unchanged = _Unchanged(other, main)
    with scope_guard(other), pytest.raises(ValueError, match="%r expects shape" % moment):
        static.load(main, prefix)
    unchanged.check()


def test_a_complete_load_sets_everything(tmp_path):
    main, prefix, saved, other = _checkpoint_and_other_state(tmp_path)
    with scope_guard(other):
        static.load(main, prefix)
    for var in main.list_vars():
        if var.persistable:
            np.testing.assert_array_equal(other._values[var.name], saved._values[var.name])


def test_set_program_state_checks_every_value_first(tmp_path):
    main, prefix, saved, other = _checkpoint_and_other_state(tmp_path)
    state = static.load_program_state(prefix)
    last = [v.name for v in main.list_vars() if v.persistable][-1]
    state[last] = np.zeros((7, 7), "float32")
    unchanged = _Unchanged(other, main)
    with scope_guard(other), pytest.raises(ValueError, match="%r expects shape" % last):
        static.set_program_state(main, state)
    unchanged.check()


def test_a_manifest_that_disagrees_is_named_and_removing_it_loads_the_files(tmp_path):
    main, prefix, saved, other = _checkpoint_and_other_state(tmp_path)
    # .pdparams replaced after the save (here by paddle.save, which knows no manifest)
    params = paddle.load(prefix + ".pdparams")
    first = sorted(params)[0]
    params[first] = params[first] + 1
    paddle.save(params, prefix + ".pdparams")
    os.utime(checkpoint.manifest_path(prefix), (1, 1))      # the manifest is older
    unchanged = _Unchanged(other, main)
    with scope_guard(other), pytest.raises(checkpoint.TornCheckpointError) as e:
        static.load(main, prefix)
    unchanged.check()
    message = str(e.value)
    assert "model.pdparams" in message and "does not match the checkpoint manifest" in message
    assert "newer than the manifest" in message and "Remove" in message
    os.remove(checkpoint.manifest_path(prefix))
    with scope_guard(other):
        static.load(main, prefix)
    np.testing.assert_array_equal(other._values[first], params[first])


def test_a_manifest_listing_a_missing_file(tmp_path):
    main, prefix, _, other = _checkpoint_and_other_state(tmp_path)
    os.remove(prefix + ".pdopt")
    with pytest.raises(FileNotFoundError, match="model.pdmanifest lists: the checkpoint is "
                                                "incomplete"):
        static.load_program_state(prefix)


def test_inference_model_load_is_all_or_nothing(tmp_path):
    main, x, logits, scope = _trained(3)
    prefix = str(tmp_path / "infer")
    with scope_guard(scope):
        # the ProgramDesc under every profile (3 writes a PIR json by default)
        with paddle.pir_utils.OldIrGuard():
            static.save_inference_model(prefix, [x], [logits], static.Executor(), program=main)
    assert sorted(os.listdir(tmp_path)) == ["infer.pdiparams", "infer.pdmanifest",
                                            "infer.pdmodel"]
    other = Scope()
    unchanged = _Unchanged(other, main)
    for damaged in (".pdiparams", ".pdmodel"):
        data = open(prefix + damaged, "rb").read()
        open(prefix + damaged, "wb").write(data[:-10])
        with scope_guard(other), pytest.raises(checkpoint.TornCheckpointError,
                                               match="infer" + damaged):
            static.load_inference_model(prefix, static.Executor())
        unchanged.check()
        open(prefix + damaged, "wb").write(data)
    with scope_guard(other):
        program, feeds, fetches = static.load_inference_model(prefix, static.Executor())
    assert feeds == ["x"] and [v.name for v in fetches] == [logits.name]
    assert set(other._values) == {v.name for v in program.list_vars() if v.persistable}


def test_deserialize_persistables_checks_all_first():
    main, x, logits, scope = _trained(4)
    with scope_guard(scope):
        data = static.serialize_persistables([x], [logits], static.Executor(), program=main)
    program = static.deserialize_program(static.serialize_program([x], [logits], program=main))
    names = sorted(v.name for v in program.list_vars() if v.persistable)
    state = tensor_stream.read_combined(io.BytesIO(data), len(data), names)
    del state[names[-1]]                 # the stream of all but the last variable
    other = Scope()
    unchanged = _Unchanged(other, main)
    with scope_guard(other), pytest.raises(ValueError, match="no data for %r" % names[-1]):
        static.deserialize_persistables(program, tensor_stream.combined_bytes(state),
                                        static.Executor())
    unchanged.check()


@pytest.mark.paddle("1.8")       # from 2.0 a wrong shape is skipped with a warning
def test_layer_set_state_dict_checks_all_first():
    main, startup = Program(), Program()
    with program_guard(main, startup):
        net = paddle.nn.Sequential(paddle.nn.Linear(3, 4), paddle.nn.Linear(4, 2))
    scope = Scope()
    with scope_guard(scope):
        static.Executor().run(startup)
        unchanged = _Unchanged(scope, main)
        state = {k: np.ones(v.shape, "float32") for k, v in net.state_dict().items()}
        state["1.bias"] = np.ones(5, "float32")       # the last one is wrong
        with pytest.raises(ValueError, match="1.bias"):
            net.set_state_dict(state)
        unchanged.check()
        state["1.bias"] = np.ones(2, "float64")
        net.set_state_dict(state)
        for var in net.state_dict().values():
            np.testing.assert_array_equal(scope._values[var.name], 1)
            assert scope._values[var.name].dtype == np.float32
