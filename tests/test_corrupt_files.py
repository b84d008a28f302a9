"""Corrupt files raise the loader's own error, FileFormatError (a SerializationError), naming
the file and what is wrong; never a KeyError / TypeError / EOFError from deep inside, and
never unpickled code. Archive member names are encoded so that no variable name becomes a
path (specs/io.md)."""
import io
import json
import os
import pickle
import zipfile

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import refimpl as paddle
from refimpl.framework import checkpoint, serialization
from refimpl.framework.program import Program, program_guard
from refimpl.framework.scope import Scope, scope_guard
from refimpl.framework.serialization import FileFormatError

static = paddle.static


def _saved_model(tmp_path):
    main, startup = Program(), Program()
    with program_guard(main, startup):
        x = static.data("x", [None, 3])
        logits = static.nn.fc(x, 2)
    scope = Scope()
    prefix = str(tmp_path / "model")
    with scope_guard(scope):
        static.Executor().run(startup)
        static.save(main, prefix)
        static.save_inference_model(str(tmp_path / "infer"), [x], [logits],
                                    static.Executor(), program=main)
    os.remove(checkpoint.manifest_path(prefix))   # the file's own check, not the manifest's
    os.remove(str(tmp_path / "infer.pdmanifest"))
    return main, prefix


def _load_error(fn, *args):
    with scope_guard(Scope()), pytest.raises(FileFormatError) as e:
        fn(*args)
    return str(e.value)


def test_an_empty_pdparams(tmp_path):
    main, prefix = _saved_model(tmp_path)
    open(prefix + ".pdparams", "wb").close()
    for fn, args in ((static.load, (main, prefix)), (paddle.load, (prefix + ".pdparams",)),
                     (static.load_program_state, (prefix,))):
        assert _load_error(fn, *args) == "%s.pdparams: empty (0 bytes), not a tensor " \
                                         "archive" % prefix


def test_a_truncated_archive(tmp_path):
    main, prefix = _saved_model(tmp_path)
    data = open(prefix + ".pdparams", "rb").read()
    for cut in (len(data) // 2, len(data) - 1, 30):
        open(prefix + ".pdparams", "wb").write(data[:cut])
        message = _load_error(static.load, main, prefix)
        assert message.startswith(prefix + ".pdparams: not a tensor archive")
        assert "not a complete zip file" in message


def test_a_corrupt_member(tmp_path):
    main, prefix = _saved_model(tmp_path)
    data = bytearray(open(prefix + ".pdparams", "rb").read())
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as zf:
        info = zf.getinfo("fc_0.w_0.npy")
    end_of_member = info.header_offset + len(info.FileHeader()) + info.compress_size
    data[end_of_member - 3] ^= 0xFF              # a bit flip in the array data: bad CRC
    open(prefix + ".pdparams", "wb").write(bytes(data))
    message = _load_error(static.load, main, prefix)
    assert "member 'fc_0.w_0.npy' is not a readable .npy array" in message
    assert "CRC" in message


def test_a_member_with_a_wrong_npy_header(tmp_path):
    path = str(tmp_path / "bad.pdparams")
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("w.npy", b"\x93NUMPX\x01\x00" + b"\x00" * 40)
        zf.writestr("v.npy", b"\x93NUMPY\x09\x00" + b"\x00" * 40)     # version 9.0
    message = _load_error(paddle.load, path)
    assert "member 'w.npy' is not a readable .npy array" in message


def test_a_tree_member_that_is_not_json(tmp_path):
    path = str(tmp_path / "obj.pdparams")
    paddle.save({"step": 3, "w": np.ones(2)}, path)
    arrays = serialization.read_arrays(path)
    arrays[serialization.TREE_MEMBER] = np.frombuffer(b'{"format": "refimpl.tr', np.uint8)
    with open(path, "wb") as f:
        serialization.archive_writer(arrays)(f)
    assert "not a structure member (not UTF-8 JSON" in _load_error(paddle.load, path)
    arrays[serialization.TREE_MEMBER] = np.frombuffer(
        json.dumps({"format": "refimpl.tree", "version": 1,
                    "root": {"w": {"@array": "a7"}}}).encode(), np.uint8)
    with open(path, "wb") as f:
        serialization.archive_writer(arrays)(f)
    assert "root['w'] refers to array 'a7', which the archive does not hold" \
        in _load_error(paddle.load, path)


def _edit_program(path, edit):
    data = json.loads(open(path, "rb").read())
    edit(data)
    open(path, "wb").write(json.dumps(data).encode())


@pytest.mark.parametrize("edit, problem", [
    (lambda d: d["blocks"][0]["ops"][0].pop("inputs"),
     "blocks[0]['ops'][0] has no key 'inputs'"),
    (lambda d: d.update(blocks={"0": {}}),
     "the program['blocks'] must be a list, got an object"),
    (lambda d: d["blocks"][0]["vars"][0].update(shape="3"),
     "blocks[0]['vars'][0]['shape'] must be a list, got a string"),
    (lambda d: d["blocks"][0]["vars"][0].update(dtype="complex7"),
     "blocks[0]['vars'][0]['dtype']: unknown dtype 'complex7'"),
    (lambda d: d["blocks"][0]["ops"][0].update(type="no_such_op"),
     "blocks[0]['ops'][0]: [operator no_such_op] no such operator is registered"),
    (lambda d: d["blocks"][0]["ops"][0]["attrs"].update(x={"@float": "big"}),
     "blocks[0]['ops'][0]['attrs']['x']: '@float' must be"),
    (lambda d: d["blocks"][0]["ops"][0]["attrs"].update(x={"@ndarray": {
        "dtype": "float32", "shape": [2, 2], "data": [1, 2, 3]}}),
     "'@ndarray' of shape [2, 2] needs 4 values, has 3"),
    (lambda d: d["blocks"][0].update(parent_idx=5), "blocks[0]['parent_idx'] is 5"),
    (lambda d: d.update(version=2),
     "refimpl program format version 2 is not supported (this refimpl reads version 1)"),
    (lambda d: d.update(format="paddle.ProgramDesc"), "not a refimpl program"),
    (lambda d: d.update(fetch_names=["nowhere"]),
     "fetch_names names variables the program does not have: ['nowhere']"),
])
def test_a_malformed_program(tmp_path, edit, problem):
    _saved_model(tmp_path)
    path = str(tmp_path / "infer.pdmodel")
    _edit_program(path, edit)
    message = _load_error(static.load_inference_model, str(tmp_path / "infer"),
                          static.Executor())
    assert message.startswith(path + ": ") and problem in message
    if "fetch_names" not in problem:
        assert problem in _load_error(static.deserialize_program, open(path, "rb").read())


def test_a_program_that_is_not_json(tmp_path):
    _saved_model(tmp_path)
    path = str(tmp_path / "infer.pdmodel")
    open(path, "wb").write(b"\x00\x01 binary")
    assert _load_error(static.load_inference_model, str(tmp_path / "infer"),
                       static.Executor()).startswith(path + ": not a refimpl program (not "
                                                            "UTF-8 JSON")


def test_a_malformed_manifest(tmp_path):
    main, startup = Program(), Program()
    with program_guard(main, startup):
        static.nn.fc(static.data("x", [None, 3]), 2)
    prefix = str(tmp_path / "m")
    with scope_guard(Scope()):
        static.Executor().run(startup)
        static.save(main, prefix)
    manifest = json.loads(open(prefix + ".pdmanifest").read())
    for damage, problem in (
            (lambda m: m.update(version=9), "checkpoint manifest version 9 is not supported"),
            (lambda m: m["files"][0].update(name="../../etc/passwd"), "files[0] must be"),
            (lambda m: m["files"][0].update(pending="/tmp/x.refimpl-tmp"), "files[0] must be")):
        edited = json.loads(json.dumps(manifest))
        damage(edited)
        open(prefix + ".pdmanifest", "w").write(json.dumps(edited))
        assert problem in _load_error(static.load_program_state, prefix)


# -- never unpickled


class _WritesAFile:
    """Unpickling this creates `path`: the proof that a loader ran pickled code."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def test_pickled_data_is_refused_and_never_run(tmp_path):
    marker = str(tmp_path / "pickle-ran")
    payload = np.array([_WritesAFile(marker)], dtype=object)
    npz = str(tmp_path / "object.npz")
    np.savez(npz, a=payload)                           # numpy pickles object arrays
    assert "allow_pickle" in _load_error(paddle.load, npz)
    raw = str(tmp_path / "raw.pdparams")
    with open(raw, "wb") as f:
        pickle.dump({"w": _WritesAFile(marker)}, f)    # what Paddle's own .pdparams are
    assert "not a tensor archive" in _load_error(paddle.load, raw)
    member = str(tmp_path / "member.pdparams")
    with zipfile.ZipFile(member, "w") as zf:
        zf.writestr("w.npy", pickle.dumps(_WritesAFile(marker)))
    assert "member 'w.npy' is not a readable .npy array" in _load_error(paddle.load, member)
    assert not os.path.exists(marker)
    # the same payload, unpickled on purpose, does create it: the test can tell
    np.load(npz, allow_pickle=True)["a"]
    assert os.path.exists(marker)


# -- member names


_ODD_NAMES = ["../../x", "/abs", "a\0b", "back\\slash", "C:evil", "..", ".", "%41", "",
              "fc_0.w_0@GRAD", "名字", "x.npy", "\ud800"]


def _assert_safe_member(member):
    assert member.endswith(".npy")
    assert not any(c in member for c in "/\\\0:") and member.isascii()


def test_odd_variable_names_are_safe_members_and_round_trip(tmp_path):
    state = {name: np.full(2, i, "int32") for i, name in enumerate(_ODD_NAMES)}
    path = str(tmp_path / "odd.pdparams")
    paddle.save(state, path)
    with zipfile.ZipFile(path) as zf:
        members = zf.namelist()
    assert len(members) == len(_ODD_NAMES)
    for member in members:
        _assert_safe_member(member)
    assert members[:3] == ["..%2F..%2Fx.npy", "%2Fabs.npy", "a%00b.npy"]
    back = paddle.load(path)
    assert list(back) == _ODD_NAMES
    for name in _ODD_NAMES:
        np.testing.assert_array_equal(back[name], state[name])


def test_odd_variable_names_round_trip_through_static_save(tmp_path):
    main = Program()
    block = main.global_block()
    for name in _ODD_NAMES[:4]:
        block.create_parameter(name=name, shape=[2], dtype="float32")
    values = {name: np.full(2, i, "float32") for i, name in enumerate(_ODD_NAMES[:4])}
    prefix = str(tmp_path / "m")
    with scope_guard(Scope()) as _:
        static.global_scope().set_values(dict(values))
        static.save(main, prefix)
    assert sorted(os.listdir(tmp_path)) == ["m.pdmanifest", "m.pdmodel", "m.pdopt",
                                            "m.pdparams"]
    loaded = static.deserialize_program(static.load_from_file(prefix + ".pdmodel"))
    scope = Scope()
    with scope_guard(scope):
        static.load(loaded, prefix)
    for name, value in values.items():
        np.testing.assert_array_equal(scope._values[name], value)


def test_member_names_written_by_numpy_savez_read_as_they_are(tmp_path):
    path = str(tmp_path / "np.npz")
    np.savez(path, **{"plain": np.ones(1), "with space": np.zeros(1)})
    assert sorted(paddle.load(path)) == ["plain", "with space"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(st.characters(blacklist_categories=())), max_size=5, unique=True))
def test_any_names_round_trip(names):
    for name in names:
        member = serialization.member_name(name)
        _assert_safe_member(member)
        assert serialization.tensor_name(member) == name
    state = {name: np.arange(i + 1, dtype="int64") for i, name in enumerate(names)}
    buf = io.BytesIO()
    serialization.archive_writer(state)(buf)
    back = serialization.arrays_from_bytes(buf.getvalue())
    assert list(back) == names
    for name in names:
        np.testing.assert_array_equal(back[name], state[name])
