"""Corrupt files raise the loader's own error, FileFormatError (a SerializationError), naming
the file and what is wrong; never a KeyError / TypeError / EOFError from deep inside, and
never unpickled code (specs/io.md). Paddle's formats, which refimpl writes, and the JSON /
.npz files of earlier refimpl versions, which it still reads: their archive member names
are percent-encoded, so that no variable name becomes a path."""
import io
import json
import os
import pickle
import zipfile

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import refimpl as paddle
from refimpl import versions
from refimpl.framework import checkpoint, serialization
from refimpl.framework.paddle_formats import safe_pickle
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


def _checkpoint(tmp_path):
    """static.save of an initialized fc, manifest and all: (program, prefix)."""
    main, startup = Program(), Program()
    with program_guard(main, startup):
        static.nn.fc(static.data("x", [None, 3]), 2)
    prefix = str(tmp_path / "m")
    with scope_guard(Scope()):
        static.Executor().run(startup)
        static.save(main, prefix)
    return main, prefix


def _load_error(fn, *args):
    with scope_guard(Scope()), pytest.raises(FileFormatError) as e:
        fn(*args)
    return str(e.value)


def _legacy_member(name):
    """An earlier refimpl's archive member for tensor `name`: bytes outside A-Z a-z 0-9 . _
    - @ percent-encoded (%XX of the UTF-8 bytes)."""
    safe = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-@"
    return "".join(chr(b) if b in safe else "%%%02X" % b
                   for b in name.encode("utf-8", "surrogatepass")) + ".npy"


def _legacy_archive(path_or_file, arrays):
    """A tensor archive as earlier refimpl versions wrote every tensor file."""
    with zipfile.ZipFile(path_or_file, "w", zipfile.ZIP_STORED, allowZip64=True) as zf:
        for name, value in arrays.items():
            with zf.open(_legacy_member(name), "w", force_zip64=True) as member:
                np.lib.format.write_array(member, np.asarray(value), allow_pickle=False)


def _legacy_checkpoint(tmp_path):
    """model.pdparams / .pdopt / .pdmodel and infer.pdmodel / .pdiparams as an earlier
    refimpl wrote them (.npz archives and JSON programs), without manifests."""
    main, prefix = _saved_model(tmp_path)
    state = static.load_program_state(prefix)
    params = {v.name for v in main.all_parameters()}
    _legacy_archive(prefix + ".pdparams", {k: v for k, v in state.items() if k in params})
    _legacy_archive(prefix + ".pdopt", {k: v for k, v in state.items() if k not in params})
    infer = static.io.read_inference_model(*static.io.inference_model_files(
        str(tmp_path / "infer")))
    open(str(tmp_path / "infer.pdmodel"), "wb").write(serialization.program_to_bytes(
        infer[0], feed_names=infer[1], fetch_names=[v.name for v in infer[2]]))
    _legacy_archive(str(tmp_path / "infer.pdiparams"), infer[3])
    return main, prefix


# -- Paddle's formats


def test_an_empty_pdparams(tmp_path):
    main, prefix = _saved_model(tmp_path)
    open(prefix + ".pdparams", "wb").close()
    for fn, args in ((static.load, (main, prefix)), (static.load_program_state, (prefix,))):
        assert _load_error(fn, *args) == "%s.pdparams: empty (0 bytes), not a tensor file" \
            % prefix
    assert _load_error(paddle.load, prefix + ".pdparams") == \
        "%s.pdparams: empty (0 bytes), not a paddle.save file" % prefix


@pytest.mark.parametrize("saved, problem", [
    (_saved_model, "not a complete pickle"),
    (_legacy_checkpoint, "not a tensor archive (.npz without pickles): not a complete zip file"),
])
def test_a_truncated_pdparams(tmp_path, saved, problem):
    main, prefix = saved(tmp_path)
    data = open(prefix + ".pdparams", "rb").read()
    for cut in (len(data) // 2, len(data) - 1, 30):
        open(prefix + ".pdparams", "wb").write(data[:cut])
        message = _load_error(static.load, main, prefix)
        assert message.startswith("%s.pdparams: %s" % (prefix, problem)), message


def test_a_corrupt_pickle(tmp_path):
    main, prefix = _saved_model(tmp_path)
    data = bytearray(open(prefix + ".pdparams", "rb").read())
    data[2] = 0xFF                                  # the first opcode after PROTO
    open(prefix + ".pdparams", "wb").write(bytes(data))
    assert "opcode b'\\xff' unknown" in _load_error(static.load, main, prefix)
    open(prefix + ".pdparams", "wb").write(safe_pickle.dumps([np.ones(2)]))
    assert _load_error(static.load, main, prefix) == \
        "%s.pdparams: the pickle holds a list, not a dict of tensors" % prefix


def test_a_bit_flip_in_the_data_is_caught_by_the_manifest(tmp_path):
    """Paddle's pickles and tensor streams carry no checksum: the manifest's sha256 is what
    tells a damaged value."""
    main, prefix = _checkpoint(tmp_path)
    data = bytearray(open(prefix + ".pdparams", "rb").read())
    data[-20] ^= 0x01                               # inside the last array's data
    open(prefix + ".pdparams", "wb").write(bytes(data))
    with scope_guard(Scope()), pytest.raises(checkpoint.TornCheckpointError,
                                             match="m.pdparams"):
        static.load(main, prefix)


def test_a_truncated_inference_model(tmp_path):
    _saved_model(tmp_path)
    prefix = str(tmp_path / "infer")
    # the program: a ProgramDesc (1.8, 2.0), or a PIR json under 3 (switch
    # inference_program_format)
    program = ((".pdmodel", "runs past the end")
               if versions.switch("inference_program_format") == "program_desc"
               else (".json", "not a PIR program (not UTF-8 JSON"))
    for suffix, problem in ((".pdiparams", "needs 24 bytes, only 14 left"), program):
        data = open(prefix + suffix, "rb").read()
        open(prefix + suffix, "wb").write(data[:-10])
        message = _load_error(static.load_inference_model, prefix, static.Executor())
        assert message.startswith(prefix + suffix + ": ") and problem in message, message
        open(prefix + suffix, "wb").write(data)


def test_a_program_that_is_not_a_program(tmp_path):
    _saved_model(tmp_path)
    path = str(tmp_path / "infer.pdmodel")
    open(path, "wb").write(b"\x00\x01 binary")
    assert _load_error(static.load_inference_model, str(tmp_path / "infer"),
                       static.Executor()) == path + ": ProgramDesc: field number 0 at byte 1"


# -- the .npz / JSON files of earlier refimpl versions


def test_a_corrupt_member(tmp_path):
    main, prefix = _legacy_checkpoint(tmp_path)
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
    arrays = {"a0": np.ones(2), serialization.TREE_MEMBER: np.frombuffer(
        b'{"format": "refimpl.tr', np.uint8)}
    _legacy_archive(path, arrays)
    assert "not a structure member (not UTF-8 JSON" in _load_error(paddle.load, path)
    arrays[serialization.TREE_MEMBER] = np.frombuffer(
        json.dumps({"format": "refimpl.tree", "version": 1,
                    "root": {"w": {"@array": "a7"}}}).encode(), np.uint8)
    _legacy_archive(path, arrays)
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
    _legacy_checkpoint(tmp_path)
    path = str(tmp_path / "infer.pdmodel")
    _edit_program(path, edit)
    message = _load_error(static.load_inference_model, str(tmp_path / "infer"),
                          static.Executor())
    assert message.startswith(path + ": ") and problem in message
    if "fetch_names" not in problem:
        assert problem in _load_error(static.deserialize_program, open(path, "rb").read())


def test_a_malformed_manifest(tmp_path):
    main, prefix = _checkpoint(tmp_path)
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
        pickle.dump({"w": _WritesAFile(marker)}, f)    # Paddle's .pdparams format
    for load in (paddle.load, static.load_program_state):
        assert "the pickle calls io.open; refused" in _load_error(load, raw) \
            or "the pickle calls builtins.open; refused" in _load_error(load, raw)
    member = str(tmp_path / "member.pdparams")
    with zipfile.ZipFile(member, "w") as zf:
        zf.writestr("w.npy", pickle.dumps(_WritesAFile(marker)))
    assert "member 'w.npy' is not a readable .npy array" in _load_error(paddle.load, member)
    assert not os.path.exists(marker)
    # the same payload, unpickled on purpose, does create it: the test can tell
    np.load(npz, allow_pickle=True)["a"]
    assert os.path.exists(marker)


# -- variable names


_ODD_NAMES = ["../../x", "/abs", "a\0b", "back\\slash", "C:evil", "..", ".", "%41", "",
              "fc_0.w_0@GRAD", "名字", "x.npy", "\ud800"]


def test_odd_variable_names_round_trip_through_paddle_save(tmp_path):
    state = {name: np.full(2, i, "int32") for i, name in enumerate(_ODD_NAMES)}
    path = str(tmp_path / "odd.pdparams")
    paddle.save(state, path)
    assert os.listdir(tmp_path) == ["odd.pdparams"]      # names are data, never paths
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


@pytest.mark.parametrize("name", ["../../x", "/abs", "a\0b", "back\\slash", "..", ".", "",
                                  "a//b"])
def test_names_that_would_leave_the_directory_get_no_parameter_file(tmp_path, name):
    with pytest.raises(ValueError, match="cannot be a file name"):
        static.io.save_vars_files(str(tmp_path / "params"), {name: np.ones(2)})
    assert not os.path.exists(tmp_path / "params") or os.listdir(tmp_path / "params") == []


def test_parameter_files_in_subdirectories_round_trip(tmp_path):
    values = {"save_infer_model/scale_0.w": np.ones(2, "float32"), "fc_0.w_0": np.eye(2)}
    static.io.save_vars_files(str(tmp_path / "params"), values)
    back = static.io.read_vars_files(str(tmp_path / "params"), list(values))
    for name, value in values.items():
        np.testing.assert_array_equal(back[name], value)
    assert sorted(static.load_program_state(str(tmp_path / "params"))) == sorted(values)


def test_member_names_written_by_numpy_savez_read_as_they_are(tmp_path):
    path = str(tmp_path / "np.npz")
    np.savez(path, **{"plain": np.ones(1), "with space": np.zeros(1)})
    assert sorted(paddle.load(path)) == ["plain", "with space"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(st.characters(blacklist_categories=())), max_size=5, unique=True))
def test_any_names_round_trip(names):
    state = {name: np.arange(i + 1, dtype="int64") for i, name in enumerate(names)}
    for back in (safe_pickle.loads(safe_pickle.dumps(state)), _legacy_round_trip(state)):
        assert list(back) == names
        for name in names:
            np.testing.assert_array_equal(back[name], state[name])


def _legacy_round_trip(state):
    """An earlier refimpl's archive of `state`, read back: %XX member names decode."""
    buf = io.BytesIO()
    _legacy_archive(buf, state)
    for name in state:
        member = _legacy_member(name)
        assert member.isascii() and not any(c in member for c in "/\\\0:")
    return serialization.arrays_from_bytes(buf.getvalue())
