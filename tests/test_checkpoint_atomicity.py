"""A save is all or nothing, whatever happens during it (specs/io.md, "Guarantees").

A process saving a large model over and over to one path is SIGKILLed at random moments;
another dies just before each step of a save in turn (each array it writes, fsync, rename, unlink). After every death the
checkpoint at that path loads whole: exactly the last save that completed or the one that
was running, never a mix, never a broken file, and the temp files left behind are
recognizable and removed by the next save. A save that raises part-way changes nothing.
"""
import errno
import os
import random
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import refimpl as paddle
from refimpl.framework import atomic_file, checkpoint, serialization
from refimpl.framework.scope import Scope, scope_guard

import checkpoint_saver_process as saver_process

_REPO = os.path.dirname(os.path.dirname(os.path.abspath(paddle.__file__)))
_CHECKPOINT_FILES = {"static": ["model.pdmanifest", "model.pdmodel", "model.pdopt",
                                "model.pdparams"],
                     "paddle": ["model.pdparams"]}


def _path(directory, saver):
    return str(directory / ("model" if saver == "static" else "model.pdparams"))


def _load(saver, path, megabytes):
    """{name: ndarray} of the checkpoint at `path`, loaded as a user would."""
    if saver == "paddle":
        return paddle.load(path)
    main = saver_process.program(megabytes)
    scope = Scope()
    with scope_guard(scope):
        paddle.static.load(main, path)
    return {name: scope._values[name] for name in saver_process.values(0, megabytes)}


def _assert_whole_generation(state, generations, megabytes):
    """`state` is exactly what one of `generations` saved; returns which one."""
    generation = int(state["generation"][0])
    assert generation in generations
    expected = saver_process.values(generation, megabytes)
    assert sorted(state) == sorted(expected)
    for name, value in expected.items():
        np.testing.assert_array_equal(state[name], value, err_msg=name)
        assert state[name].dtype == value.dtype
    return generation


def _leftovers(directory, saver):
    """The names in `directory` besides the checkpoint's own files: all must be temp files."""
    names = sorted(set(os.listdir(directory)) - set(_CHECKPOINT_FILES[saver]))
    assert all(atomic_file.is_temp_name(n) for n in names), names
    return names


def _child(mode, saver, path, generation, megabytes):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [_REPO, os.path.dirname(saver_process.__file__), os.environ.get("PYTHONPATH", "")]))
    return subprocess.Popen([sys.executable, saver_process.__file__, mode, saver, path,
                             str(generation), str(megabytes)], env=env, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)


class _Lines:
    """The child's stdout lines, read by a thread; `wait_for` fails loudly after `timeout`."""

    def __init__(self, proc):
        self.proc, self.lines, self._more = proc, [], threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        for line in self.proc.stdout:
            with self._more:
                self.lines.append(line.split())
                self._more.notify_all()
        with self._more:
            self.lines.append(None)     # end of output
            self._more.notify_all()

    def wait_for(self, count, timeout=120):
        with self._more:
            if not self._more.wait_for(lambda: len(self.lines) >= count, timeout):
                self.proc.kill()
                pytest.fail("the saving process printed nothing for %d s" % timeout)
            line = self.lines[count - 1]
        if line is None:
            pytest.fail("the saving process ended: %s" % self.proc.stderr.read())
        return line

    def finish(self):
        self._reader.join(60)
        return [line for line in self.lines if line is not None]


def _kill_while_saving(tmp_path, saver, kills, megabytes, seed):
    path = _path(tmp_path, saver)
    rng = random.Random(seed)
    generation, temps_seen = 1, 0
    for _ in range(kills):
        proc = _child("loop", saver, path, generation, megabytes)
        lines = _Lines(proc)
        first_save_s = float(lines.wait_for(1)[2])
        # anywhere in the next few saves: mid-write, between files, mid-rename, in cleanup
        time.sleep(rng.uniform(0, 3 * first_save_s))
        proc.kill()
        proc.wait(60)
        completed = int(lines.finish()[-1][1])
        # the last save that printed, or the one it was in when killed if that committed
        loaded = _assert_whole_generation(_load(saver, path, megabytes),
                                          (completed, completed + 1), megabytes)
        # temp files of this process only: its first save removed the previous one's
        temps = _leftovers(tmp_path, saver)
        assert len(temps) <= len(_CHECKPOINT_FILES[saver])
        temps_seen += bool(temps)
        generation = max(completed, loaded) + 1
    # the next save that completes removes the temp files the killed processes left
    saver_process.save(saver, saver_process.program(megabytes), path, generation, megabytes)
    assert _leftovers(tmp_path, saver) == []
    _assert_whole_generation(_load(saver, path, megabytes), (generation,), megabytes)
    return temps_seen


@pytest.mark.parametrize("saver", saver_process.SAVERS)
def test_sigkill_during_saves_never_breaks_the_checkpoint(tmp_path, saver):
    _kill_while_saving(tmp_path, saver, kills=5, megabytes=24, seed=13)


@pytest.mark.slow
@pytest.mark.parametrize("saver", saver_process.SAVERS)
def test_sigkill_during_saves_never_breaks_the_checkpoint_many_times(tmp_path, saver):
    _kill_while_saving(tmp_path, saver, kills=25, megabytes=40, seed=2024)


@pytest.mark.parametrize("saver", saver_process.SAVERS)
def test_death_before_each_step_of_a_save_leaves_a_whole_checkpoint(tmp_path, saver):
    """Before the commit (the manifest's replace for static.save, the file's replace for
    paddle.save) the old checkpoint loads; from it on, the new one, even when the process
    died before renaming its files into place."""
    megabytes = 0.05
    path = _path(tmp_path, saver)
    saver_process.save(saver, saver_process.program(megabytes), path, 0, megabytes)
    proc = _child("crash-each-step", saver, path, 0, megabytes)
    lines, committed, loaded = _Lines(proc), 0, []
    for count in range(1, 200):
        line = lines.wait_for(count)
        if line[0] == "completed":
            break
        generation = int(line[2])
        got = _assert_whole_generation(_load(saver, path, megabytes),
                                       (committed, generation), megabytes)
        committed = got
        loaded.append(got == generation)
        _leftovers(tmp_path, saver)
        proc.stdin.write("\n")
        proc.stdin.flush()
    proc.wait(60)
    assert line[0] == "completed"
    # dying before the commit keeps the old checkpoint, after it gives the new one
    assert loaded[0] is False and loaded[-1] is True
    assert loaded == sorted(loaded)
    assert _leftovers(tmp_path, saver) == []
    _assert_whole_generation(_load(saver, path, megabytes), (int(line[1]),), megabytes)


# -- saves that raise part-way


def _snapshot(directory):
    return {name: (directory / name).read_bytes() for name in os.listdir(directory)}


def test_paddle_save_of_a_value_that_cannot_be_saved_writes_nothing(tmp_path):
    path = str(tmp_path / "state.pdparams")
    paddle.save({"a": np.ones(3, "float32")}, path)
    before = _snapshot(tmp_path)
    # all values are arrays, so this is a flat state dict; the second cannot be saved
    with pytest.raises(serialization.SerializationError, match="dtype object"):
        paddle.save({"a": np.zeros(3, "float32"), "b": np.array([{}], dtype=object)}, path)
    assert _snapshot(tmp_path) == before
    np.testing.assert_array_equal(paddle.load(path)["a"], np.ones(3))


def _fail_writing(monkeypatch, suffix, nth_write):
    """The `nth_write`-th write into the file ending with `suffix` being saved raises a
    full-disk OSError (after the earlier files of the save are written and staged)."""
    calls = []

    def before_write(path):
        if path.endswith(suffix):
            calls.append(path)
            if len(calls) == nth_write:
                raise OSError(errno.ENOSPC, "No space left on device")
    saver_process.hook_writes(before_write, monkeypatch.setattr)


def test_paddle_save_failing_mid_write_keeps_the_old_file(tmp_path, monkeypatch):
    path = str(tmp_path / "state.pdparams")
    old = {"a": np.arange(4, dtype="float32"), "b": np.ones(2, "int64")}
    paddle.save(old, path)
    before = _snapshot(tmp_path)
    _fail_writing(monkeypatch, ".pdparams", 4)         # in the middle of the file
    with pytest.raises(OSError, match="No space left"):
        paddle.save({"a": np.zeros(4, "float32"), "b": np.zeros(2, "int64")}, path)
    assert _snapshot(tmp_path) == before            # no temp file either
    back = paddle.load(path)
    for name in old:
        np.testing.assert_array_equal(back[name], old[name])


def test_static_save_failing_mid_write_keeps_the_old_checkpoint(tmp_path, monkeypatch):
    """.pdparams is written (staged) when writing .pdopt fails: every old file stays."""
    megabytes = 0.01
    main, path = saver_process.program(megabytes), str(tmp_path / "model")
    saver_process.save("static", main, path, 1, megabytes)
    before = _snapshot(tmp_path)
    _fail_writing(monkeypatch, ".pdopt", 1)
    with pytest.raises(OSError, match="No space left"):
        saver_process.save("static", main, path, 2, megabytes)
    assert _snapshot(tmp_path) == before
    _assert_whole_generation(_load("static", path, megabytes), (1,), megabytes)


def test_static_save_of_a_variable_without_value_writes_nothing(tmp_path):
    megabytes = 0.01
    main, path = saver_process.program(megabytes), str(tmp_path / "model")
    saver_process.save("static", main, path, 1, megabytes)
    before = _snapshot(tmp_path)
    main.global_block().create_var(name="late", shape=[1], dtype="float32", persistable=True)
    with pytest.raises(ValueError, match="'late' has no value"):
        paddle.static.save(main, path)
    assert _snapshot(tmp_path) == before


# -- the pieces


def test_atomic_write_replaces_syncs_and_cleans_up(tmp_path, monkeypatch):
    path = str(tmp_path / "sub" / "f.bin")
    synced = []
    fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd) or fsync(fd))
    atomic_file.write_bytes(path, b"one")
    assert len(synced) == 2                 # the file, then its directory
    with pytest.raises(ZeroDivisionError):
        atomic_file.write(path, lambda f: f.write(b"two, half") and 1 / 0)
    assert open(path, "rb").read() == b"one"
    assert os.listdir(tmp_path / "sub") == ["f.bin"]


def test_stale_temp_files_of_dead_processes_are_removed(tmp_path):
    path = str(tmp_path / "f.bin")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    live = str(os.getpid())
    stem = atomic_file._temp_stem("f.bin") + atomic_file._host()
    names = {who: "%s.%s.0123abcd%s" % (stem, pid, atomic_file.TEMP_SUFFIX)
             for who, pid in (("dead", dead), ("live", live))}
    for name in names.values():
        (tmp_path / name).write_bytes(b"partial")
    (tmp_path / "other.refimpl-tmp").write_bytes(b"not ours")
    atomic_file.write_bytes(path, b"new")
    assert sorted(os.listdir(tmp_path)) == sorted(["f.bin", names["live"],
                                                   "other.refimpl-tmp"])
    assert atomic_file.is_temp_name(names["live"]) and not atomic_file.is_temp_name("f.bin")


def test_a_long_file_name_gets_a_short_temp_name(tmp_path):
    path = str(tmp_path / ("x" * 250))
    atomic_file.write_bytes(path, b"data")
    assert open(path, "rb").read() == b"data"


def test_manifest_lists_each_file_with_size_and_sha256(tmp_path):
    import hashlib
    import json
    main, path = saver_process.program(0.01), str(tmp_path / "model")
    saver_process.save("static", main, path, 3, 0.01)
    manifest = json.loads((tmp_path / "model.pdmanifest").read_bytes())
    assert manifest["format"] == "refimpl.checkpoint" and manifest["version"] == 1
    assert manifest["saved_by"] == "static.save"
    assert [f["name"] for f in manifest["files"]] == ["model.pdparams", "model.pdopt",
                                                      "model.pdmodel"]
    for entry in manifest["files"]:
        data = (tmp_path / entry["name"]).read_bytes()
        assert entry == {"name": entry["name"], "size": len(data),
                         "sha256": hashlib.sha256(data).hexdigest()}
    assert checkpoint.manifest_path(path) == str(tmp_path / "model.pdmanifest")


def test_a_replaced_file_keeps_its_permissions(tmp_path):
    path = str(tmp_path / "private.pdparams")
    paddle.save({"w": np.ones(1)}, path)
    os.chmod(path, 0o600)
    paddle.save({"w": np.zeros(1)}, path)
    assert os.stat(path).st_mode & 0o777 == 0o600


def _interrupt_after_the_manifest_commit(monkeypatch):
    """Ctrl-C right after a save's manifest is renamed into place (its commit point)."""
    commit = atomic_file.StagedFile.commit

    def interrupted_after(staged):
        commit(staged)
        if staged.path.endswith(checkpoint.MANIFEST_SUFFIX):
            raise KeyboardInterrupt
    monkeypatch.setattr(atomic_file.StagedFile, "commit", interrupted_after)


def test_an_interrupt_just_after_the_commit_keeps_the_new_checkpoint(tmp_path, monkeypatch):
    """Ctrl-C landing after the manifest's rename but before the save returns: the staged
    files are the committed checkpoint's, so they stay and load."""
    megabytes = 0.01
    main, path = saver_process.program(megabytes), str(tmp_path / "model")
    saver_process.save("static", main, path, 1, megabytes)
    _interrupt_after_the_manifest_commit(monkeypatch)
    with pytest.raises(KeyboardInterrupt):
        saver_process.save("static", main, path, 2, megabytes)
    monkeypatch.undo()
    assert len(_leftovers(tmp_path, "static")) == 3         # the pending data files
    _assert_whole_generation(_load("static", path, megabytes), (2,), megabytes)


# -- directory checkpoints (fluid.io's dirname layouts): the manifest is a journal


def _save_dir(dirname, value):
    from refimpl.static import io as static_io
    static_io.save_vars_files(dirname, {"a": np.full(3, value, "float32"),
                                        "b": np.full(2, value, "float64")})


def _read_dir(dirname):
    from refimpl.static import io as static_io
    got = static_io.read_vars_files(dirname, ["a", "b"])
    return float(got["a"][0]), float(got["b"][0])


def test_a_saved_directory_holds_exactly_paddles_files(tmp_path):
    _save_dir(str(tmp_path / "d"), 1.0)
    _save_dir(str(tmp_path / "d"), 2.0)
    assert sorted(os.listdir(tmp_path / "d")) == ["a", "b"]
    assert _read_dir(str(tmp_path / "d")) == (2.0, 2.0)


def test_a_directory_save_interrupted_after_its_commit_loads_the_new_values(tmp_path,
                                                                           monkeypatch):
    dirname = str(tmp_path / "d")
    _save_dir(dirname, 1.0)
    _interrupt_after_the_manifest_commit(monkeypatch)
    with pytest.raises(KeyboardInterrupt):
        _save_dir(dirname, 2.0)
    monkeypatch.undo()
    # the journal stays, with the pending files: the committed save is what loads
    assert ".pdmanifest" in os.listdir(dirname)
    assert _read_dir(dirname) == (2.0, 2.0)
    _save_dir(dirname, 3.0)
    # (the interrupted save's pending files belong to a live process: left for it)
    assert sorted(f for f in os.listdir(dirname) if not atomic_file.is_temp_name(f)) == \
        ["a", "b"]
    assert _read_dir(dirname) == (3.0, 3.0)


def test_a_save_between_two_reads_of_a_directory_makes_the_reader_read_again(tmp_path,
                                                                             monkeypatch):
    """Without a manifest the reader checks every file unchanged afterwards: a whole save
    landing after its first file would otherwise give an old `a` with a new `b`."""
    dirname = str(tmp_path / "d")
    _save_dir(dirname, 1.0)
    read_file, saves = checkpoint.read_file, []

    def read_then_save(path, fn):
        data = read_file(path, fn)
        if not saves:
            saves.append(path)
            _save_dir(dirname, 2.0)
        return data
    monkeypatch.setattr(checkpoint, "read_file", read_then_save)
    assert _read_dir(dirname) == (2.0, 2.0)


def test_a_directory_that_never_stops_changing_is_a_torn_checkpoint(tmp_path, monkeypatch):
    dirname = str(tmp_path / "d")
    _save_dir(dirname, 1.0)
    read_file, count = checkpoint.read_file, []

    def read_then_save(path, fn):
        data = read_file(path, fn)
        count.append(path)
        _save_dir(dirname, float(len(count)))
        return data
    monkeypatch.setattr(checkpoint, "read_file", read_then_save)
    with pytest.raises(checkpoint.TornCheckpointError, match="kept changing"):
        _read_dir(dirname)
